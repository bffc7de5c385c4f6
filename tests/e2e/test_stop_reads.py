"""End to end (issue 27): what Locals reads once and keeps (a Keras loss's line) or reads
in place (a learning rate that is only Keras's code) shows, at the next stop, what the
program assigned between the stops; a loss of the program's own class, read through a
bounded call at each look, too."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def test_a_stop_shows_the_settings_assigned_since_the_last_one(debug_session):
    s = debug_session("training_loop_changes.py")
    first = {name: row.value for name, row in s.locals().items()}
    assert "lr=0.1 " in first["optimizer"] and "iterations=1" in first["optimizer"]
    assert "lr=0.05 (ExponentialDecay)" in first["decayed"]
    assert "from_logits=True" in first["loss_fn"]
    assert "reduction=sum_over_batch_size" in first["loss_fn"]
    assert "scale=1" in first["custom_loss"]
    s.resume_to_next_stop()
    second = {name: row.value for name, row in s.locals().items()}
    assert "lr=0.025 " in second["optimizer"] and "iterations=2" in second["optimizer"]
    assert "lr=0.025 (ExponentialDecay)" in second["decayed"]
    assert "from_logits=False" in second["loss_fn"]
    assert "reduction=sum " in second["loss_fn"] + " "
    assert "scale=2" in second["custom_loss"]
    # the rows say what the program's own expressions say
    truth = s.evaluate("float(optimizer.learning_rate)", "repl")["result"]
    assert float(truth.strip("'")) == pytest.approx(0.025, rel=1e-7)  # float32
    assert s.evaluate("loss_fn.get_config()['from_logits']", "repl")["result"] == "False"
