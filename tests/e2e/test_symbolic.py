"""End to end: tensors without values (inside tf.function tracing, Keras functional
building) show their static facts, and looking at them adds no op to the user's graph."""

from __future__ import annotations

import pytest

from ..conftest import start_stopped

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def s():
    # TF_DEBUG_REPR_EAGER=0: the function stays compiled, so the stop is in its trace (where
    # functions cannot run eagerly: Dataset.map functions, exports), with symbolic tensors.
    session = start_stopped(
        "symbolic.py",
        markers=["BREAKPOINT in tf.function", "BREAKPOINT keras"],
        env={"TF_DEBUG_REPR_EAGER": "0"},
    )
    yield session
    session.client.close()


DEPTH = 4  # levels a curious user opens; objects' attribute rows lead round in cycles


def look_at_everything(s, names):
    """Expand every name four levels deep and evaluate it in every context, as a curious
    user would."""
    shown = {}
    for name in names:
        result = s.evaluate(name, "watch")
        shown[name] = result["result"]
        stack = [(result["variablesReference"], 1)]
        while stack:
            reference, depth = stack.pop()
            if reference and depth <= DEPTH:
                for child in s.client.variables(reference):
                    if (
                        child.type not in ("ndarray", "FuncGraph", "module")
                        and "variables" not in child.name
                    ):
                        stack.append((child.reference, depth + 1))
        for context in ("hover", "repl", "clipboard"):
            s.evaluate(name, context)
    return shown


def test_traced_tensors_show_static_facts_and_add_no_ops(s):
    shown = look_at_everything(s, ["x", "y", "scale"])
    local = s.locals()
    y = local["y"]
    assert (
        y.value
        == "symbolic float32[2, 2] 'mul:0' ← Mul in FuncGraph 'traced' (no value while tracing)"
    )
    assert local["x"].value.startswith(
        "symbolic float32[2, 2] 'x:0' ← Placeholder in FuncGraph 'traced'"
    )
    children = s.child_map(y)
    assert children["hint"].value.startswith(
        "no value while tracing: put TF_DEBUG_REPR_EAGER=1 in the launch configuration's env"
    )
    assert children["op"].value == "Mul" and children["op"].evaluate_name == "y.op.type"
    assert children["shape"].value == "[2, 2]"
    assert (
        s.evaluate(children["inputs"].evaluate_name)["result"]
        == "['MatMul:0', 'mul/ReadVariableOp:0']"
    )
    # The captured variable still shows its real value, read outside the graph.
    assert shown["scale"].startswith("3.0 float32 ") and "Variable 'scale'" in shown["scale"]
    # Its children's expressions (Add to Watch, Copy as Expression) give those values too,
    # evaluated outside the graph being traced: ``scale.value()`` there would be a new op.
    checked = 0
    for child in s.client.variables(s.evaluate("scale", "watch")["variablesReference"]):
        if child.evaluate_name and child.type in ("EagerTensor", "float32", "ndarray"):
            shown_child = s.evaluate(child.evaluate_name, "watch")["result"]
            assert "symbolic" not in shown_child, (child.evaluate_name, shown_child)
            assert shown_child.startswith(child.value.split(" ")[0]), (child.name, shown_child)
            checked += 1
    assert checked >= 2, checked
    ops_now = s.evaluate("len(graph.get_operations()) - ops_before")["result"]
    assert ops_now == "0"


def test_program_confirms_no_op_was_added_then_keras_tensors(s):
    s.resume_to_next_stop()
    output = "".join(s.client.output)
    assert "ops added while stopped: 0" in output
    assert "result [[7.0, 7.0], [7.0, 7.0]]" in output
    look_at_everything(s, ["inputs", "hidden"])
    local = s.locals()
    assert local["hidden"].value == (
        "KerasTensor float32[None, 4] 'keras_tensor' from Dense 'hidden' (symbolic: no value while building the model)"
    )
    children = s.child_map(local["hidden"])
    assert children["hint"].value.startswith("no value while the model is being built")
    assert children["layer"].type == "Dense"
    assert s.evaluate(children["layer"].evaluate_name)["result"] == children["layer"].value
    s.client.resume(s.thread_id)
    s.client.wait_event("terminated")
    assert "params 16" in "".join(s.client.output)
