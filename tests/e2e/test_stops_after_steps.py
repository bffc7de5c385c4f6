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


PAYLOAD = (
    "__import__('tf_debug_repr').view_payload((model.layers[0].kernel), "
    "axes=None, index=None, region=None, part=None)"
)
# The kernel's truth at this stop, read by numpy in the program: its figures and its
# histogram over the viewer's 64 bins of [min, max] (the viewer's bin rule).
TRUTH = (
    "(lambda k: [float(k.mean()), float(k.min()), float(k.max()), "
    "__import__('numpy').minimum(((k.astype('float64') - float(k.min())) "
    "/ ((float(k.max()) - float(k.min())) / 64)), 63).astype('int64').ravel().tolist()])"
    "(model.layers[0].kernel.numpy())"
)


def test_the_viewers_payload_and_the_models_change_row_show_each_stops_values(debug_session):
    """After a step the viewer's payload of a weight (its histogram counted on the host
    now, its figures) and the model's ``Δ since last stop`` row (each weight's steps, the
    counters read once for the request) are this stop's, not the first look's."""
    import ast
    from collections import Counter

    from tf_debug_repr.viewer.payload import decode

    s = debug_session("training_loop_steps.py")
    seen = []
    for stop in range(3):
        model = s.locals()["model"]
        rows = s.child_map(model)
        payload = decode(s.evaluate(PAYLOAD, "clipboard")["result"])
        mean, low, high, bins = ast.literal_eval(
            ast.literal_eval(s.evaluate(f"repr({TRUTH})", "repl")["result"])
        )
        counts = Counter(bins)
        assert payload["error"] is None, payload["error"]
        assert payload["stats"]["mean"] == pytest.approx(mean, rel=1e-5, abs=1e-7)
        assert (payload["stats"]["min"], payload["stats"]["max"]) == pytest.approx((low, high))
        assert payload["histogram"]["counts"] == [counts.get(i, 0) for i in range(64)]
        change = next((row for name, row in rows.items() if name.startswith("Δ")), None)
        if stop == 0:
            assert change is None or "no change" in change.value or "tracked" in change.value
        else:
            assert change is not None, list(rows)
            weights = s.children(change)
            assert len(weights) >= 4, [w.name for w in weights]  # 2 kernels, 2 biases
            assert all("1 optimizer step" in w.value for w in weights[:4]), [
                w.value for w in weights
            ]
        seen.append((payload["stats"]["mean"], payload["histogram"]["counts"]))
        if stop < 2:
            s.resume_to_next_stop()
    assert seen[0] != seen[1] != seen[2]  # the steps changed the kernel: each payload its own
