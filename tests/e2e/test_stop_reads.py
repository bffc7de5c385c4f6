"""End to end (issue 27): what Locals reads once and keeps (a Keras loss's line) or reads
in place (a learning rate that is only Keras's code) shows, at the next stop, what the
program assigned between the stops; a loss of the program's own class, read through a
bounded call at each look, too. No full garbage collection runs by itself during a stop,
and only then."""

from __future__ import annotations

import gc

import pytest

pytestmark = pytest.mark.e2e


def test_a_stop_shows_the_settings_assigned_since_the_last_one(debug_session):
    s = debug_session("training_loop_changes.py")
    first = {name: row.value for name, row in s.locals().items()}
    # from the stop's first request no full garbage collection runs by itself (it walks
    # every object of the program, ~0.2 s: core.collector) ...
    held = s.evaluate("__import__('gc').get_threshold()", "repl")["result"]
    assert held.endswith(f", {2**31 - 1})"), held
    assert s.evaluate("__import__('gc').isenabled()", "repl")["result"] == "True"
    assert "lr=0.1 " in first["optimizer"] and "iterations=1" in first["optimizer"]
    assert "lr=0.05 (ExponentialDecay)" in first["decayed"]
    assert "from_logits=True" in first["loss_fn"]
    assert "reduction=sum_over_batch_size" in first["loss_fn"]
    assert "scale=1" in first["custom_loss"]
    s.resume_to_next_stop()
    second = {name: row.value for name, row in s.locals().items()}
    # ... and the program's own thresholds are back once it resumes
    assert s.evaluate("thresholds_while_running", "repl")["result"] == repr(gc.get_threshold())
    assert "lr=0.025 " in second["optimizer"] and "iterations=2" in second["optimizer"]
    assert "lr=0.025 (ExponentialDecay)" in second["decayed"]
    assert "from_logits=False" in second["loss_fn"]
    assert "reduction=sum " in second["loss_fn"] + " "
    assert "scale=2" in second["custom_loss"]
    # the rows say what the program's own expressions say
    truth = s.evaluate("float(optimizer.learning_rate)", "repl")["result"]
    assert float(truth.strip("'")) == pytest.approx(0.025, rel=1e-7)  # float32
    assert s.evaluate("loss_fn.get_config()['from_logits']", "repl")["result"] == "False"


# The program's own record of the eager ops run in it (every generated op wrapper calls
# ``pywrap_tfe.TFE_Py_FastPathExecute`` by its module attribute), installed once.
PYWRAP = "__import__('tensorflow.python.pywrap_tfe', fromlist=['_'])"
COUNT_OPS = (
    "(lambda p: setattr(p, 'TFE_Py_FastPathExecute', (lambda real, seen: lambda ctx, op, *a: "
    "seen.append(op) or real(ctx, op, *a))(p.TFE_Py_FastPathExecute, "
    f"p.__dict__.setdefault('_e2e_ops', []))))({PYWRAP})"
)


def test_an_optimizers_line_reads_its_rate_and_iterations_by_one_raw_read_each(debug_session):
    """numpy's conversion of a variable runs ``read_value``: a read and an ``Identity``,
    one more kernel made at its first run (~2 ms of a first stop). The line reads each
    number by the read alone, and shows what the program's own expressions say."""
    s = debug_session("training_loop_changes.py")
    s.evaluate(COUNT_OPS, "repl")
    for stop in range(2):
        s.evaluate(f"{PYWRAP}._e2e_ops.clear()", "repl")
        line = s.evaluate("optimizer", "watch")["result"]
        ops = s.evaluate(f"list({PYWRAP}._e2e_ops)", "repl")["result"]
        assert "Identity" not in ops, ops
        assert ops.count("ReadVariableOp") == 2, ops  # the rate and iterations
        lr = float(s.evaluate("float(optimizer.learning_rate)", "repl")["result"].strip("'"))
        steps = s.evaluate("int(optimizer.iterations)", "repl")["result"]
        assert f"lr={lr:g} " in line and f"iterations={steps}" in line, (line, lr, steps)
        if stop == 0:
            s.resume_to_next_stop()
