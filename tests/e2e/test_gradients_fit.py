"""Keras model.fit: compiled, the weights carry the gradients the compiled step applied
(kept by ops the capture adds to the traced step); with run_eagerly=True, those the
eager optimizer applied."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def test_fit_compiled_then_eager(debug_session):
    s = debug_session("grad_fit.py", markers=["STOP_AFTER_COMPILED_FIT", "STOP_AFTER_EAGER_FIT"])
    kernel = s.child_map(s.child_map(s.locals()["model"])["dense (Dense)"])["kernel"]
    # the sidebar line: figures, the gradient mark, the variable's name last
    assert "∇‖g‖=" in kernel.value and "@Adam iteration 3 Variable '" in kernel.value, kernel.value
    child = s.child_map(kernel)["∇ gradient"]
    assert child.value.startswith("∇ Adam iteration 3 ‖g‖="), child.value
    assert "last 4 gradients" in s.child_map(child)["‖g‖ history"].value

    s.resume_to_next_stop()
    model = s.locals()["model"]
    # 64 / 16 = 4 batches: the last gradients were applied at the optimizer's iteration 3
    # (a second compile() made a second Adam: Keras named it adam_1).
    assert "∇‖g‖=" in model.value and "@Adam 'adam_1' iteration 3, Sequential" in model.value, (
        model.value
    )
    for i in range(4):
        var = s.evaluate(f"model.trainable_variables[{i}]")
        assert "∇‖g‖=" in var["result"], var["result"]
    kernel = s.child_map(s.child_map(model)["dense (Dense)"])["kernel"]
    parts = s.child_map(s.child_map(kernel)["∇ gradient"])
    assert parts["applied by"].value.startswith("Adam 'adam_1' at iteration 3"), parts["applied by"]
    assert "last 4 gradients" in parts["‖g‖ history"].value
    assert s.evaluate(f"{parts['‖g‖'].evaluate_name} > 0")["result"] == "True"
