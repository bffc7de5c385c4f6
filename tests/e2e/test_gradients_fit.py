"""Keras model.fit: compiled, the weights carry the gradients the compiled step applied
(kept by ops the capture adds to the traced step); with run_eagerly=True, those the
eager optimizer applied."""

from __future__ import annotations

import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

from ..conftest import program_path

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


def test_a_stop_in_a_layers_call_under_fit_names_the_users_line_and_no_wrong_step_count(
    debug_session,
):
    """TF's word2vec tutorial: a breakpoint in the model's ``call`` under ``fit``. The
    stopped step runs eagerly (its gradient from its tape), the next two compiled (theirs
    from the optimizer): the weight's targets name the program's lines, never the plugin's
    own wrapper of ``train_step``, and its ``Δ since last stop`` gives no count of steps
    from the later target alone (it read "2 gradient steps" after 3)."""
    s = debug_session("grad_fit_call_stop.py", markers=["CALL_STOP", "END_STOP"])
    path = program_path("grad_fit_call_stop.py")
    scale = s.locals()["self"]
    s.children(s.child_map(scale)["w"])  # shown: its change is tracked from here
    s.client.request(
        "setBreakpoints",
        {"source": {"path": path}, "breakpoints": [{"line": line_of(path, "END_STOP")}]},
    )
    s.resume_to_next_stop()
    rows = s.locals()
    assert rows["w"].value.startswith("float32[4, 1]"), rows["w"].value
    assert s.evaluate("int(model.optimizer.iterations.numpy())")["result"] == "3"
    w = s.child_map(rows["w"])
    change = w["Δ since last stop"].value
    assert "gradient steps between" not in change, change
    gradient = s.child_map(w["∇ gradient"])
    every = gradient["all targets"]
    assert every.value.startswith("2 targets,"), every.value
    targets = [row.name for row in s.children(every)]
    assert any(t.startswith("gradients passed to SGD.apply") for t in targets), targets
    # the stopped step's, from its tape: the program's fit line, not the plugin's wrapper
    (taped,) = [t for t in targets if not t.startswith("gradients passed to")]
    assert "activations.py" not in taped and "grad_fit_call_stop.py:" in taped, targets
    # SGD's three steps are one series, the eager step's gradient and the compiled ones'
    # (it read "last 2 gradients": the later target's alone)
    norms = gradient["‖g‖ history"]
    assert "last 3 gradients" in norms.value, norms.value
    steps = s.children(norms)
    assert [row.name for row in steps] == [
        "#3 SGD iteration 2",
        "#2 SGD iteration 1",
        "#1 SGD iteration 0",
    ], [row.name for row in steps]
    for row in steps:  # each row's expression gives its norm
        assert s.evaluate(row.evaluate_name)["result"] == row.value, row
