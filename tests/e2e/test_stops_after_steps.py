"""End to end (issue 27): at each stop of a training loop, the model's rows show the
weights' values of that stop, while its structure (sublayers, weights, counts) is the
one computed at the first look, not recomputed per stop."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

KEPT = "id(__import__('tf_debug_repr.views.models', fromlist=['_'])._structures[model])"


def test_a_stop_after_a_step_shows_fresh_values_with_the_structure_kept(debug_session):
    s = debug_session("training_loop_steps.py")
    seen = []
    for _ in range(2):
        model = s.locals()["model"]
        assert "195 params" in model.value and "2 layers" in model.value  # 8*16+16 + 16*3+3
        layer = s.child_map(model)["dense (Dense)"]
        kernel = next(row for row in s.children(layer) if row.name.startswith("kernel"))
        truth = s.evaluate("float(model.layers[0].kernel.numpy().sum())", "repl")["result"]
        seen.append((kernel.value, float(truth.strip("'")), s.evaluate(KEPT, "repl")["result"]))
        s.resume_to_next_stop()
    (first, total1, kept1), (second, total2, kept2) = seen
    assert total1 != total2  # the step changed the weights ...
    assert first != second  # ... and the row shows this stop's values
    assert kept1.isdigit() and kept1 == kept2  # the structure kept at the first stop
