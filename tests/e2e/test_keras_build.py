"""End to end: a Keras 3 layer with sublayers, stopped in its call() during Keras's build pass
(shape inference in a scratch graph: with TF_DEBUG_REPR_EAGER=1 passed unless
TF_DEBUG_REPR_TRACE_STOPS=1, as here) and in a real call."""

from __future__ import annotations

import pytest

from tf_debug_repr.hosts.demo.dap_client import Variable

from ..conftest import start_stopped
from .test_tensors import PYDEVD_GROUPS

pytestmark = pytest.mark.e2e

WEIGHTS = ("self.scale", "self.proj.kernel", "self.proj.bias", "self.gate.kernel")


@pytest.fixture(scope="module")
def s():
    session = start_stopped(
        "keras_build.py",
        marker="BREAKPOINT in call",
        env={"TF_DEBUG_REPR_EAGER": "1", "TF_DEBUG_REPR_TRACE_STOPS": "1"},
    )
    yield session
    session.client.close()


def expand(s, expression: str, depth: int = 2) -> tuple[str, list[Variable]]:
    """The watch value of ``expression`` and every child below it, ``depth`` levels down."""
    result = s.evaluate(expression, "watch")
    found: list[Variable] = []
    level = [result["variablesReference"]]
    for _ in range(depth):
        below = []
        for reference in level:
            for child in s.client.variables(reference) if reference else []:
                if child.name in PYDEVD_GROUPS:
                    continue
                found.append(child)
                if child.reference and child.type not in ("ndarray", "FuncGraph"):
                    below.append(child.reference)
        level = below
    return result["result"], found


def test_build_pass_shows_real_weights_and_says_where_values_come(s):
    local = s.locals()
    assert "scratch_graph" in local["h"].value, "the first stop is Keras's build pass"
    for name in ("x", "h", "g", "out"):
        value, children = expand(s, name)
        assert "Keras build pass: values at a later stop" in value, value
        hint = next(c for c in children if c.name == "hint")
        assert hint.value.startswith("no value: Keras's build pass"), hint.value
        assert all("TF_DEBUG_REPR_EAGER" not in c.value for c in children), name
    # A weight created in __init__ holds its value: shown, read outside the scratch graph.
    scale, children = expand(s, "self.scale", depth=1)
    assert scale.startswith("float32[3] x∈[1, 1]") and "Variable 'block/scale'" in scale, scale
    # The note comes before the values (after rows other features put first, such as Δ).
    names = [c.name for c in children]
    note = children[names.index("note")]
    assert note.value.startswith("Keras's build pass"), note.value
    assert names.index("note") < names.index("[0]"), names
    assert [c.value for c in children if c.name.startswith("[")] == ["1.0", "1.0", "1.0"]
    for child in children:  # expressions evaluate outside the scratch graph, to the child
        shown = s.evaluate(child.evaluate_name, "watch")["result"]
        if child.type == "float32":  # a leaf; its expression gives a 0-d tensor
            assert shown.split()[0] == child.value, (child.evaluate_name, shown)
        elif child.type in ("Note", "bool", "EagerTensor"):
            assert shown.strip("'\"") == child.value, (child.evaluate_name, shown)
    stats = next(c for c in children if c.name == "stats")
    for figure in s.children(stats):  # recomputed from the weight, outside the graph
        shown = s.evaluate(figure.evaluate_name, "watch")["result"]
        assert float(shown) == float(figure.value), (figure.evaluate_name, shown)
    # Sublayers' weights are created during the pass, their values right after it.
    kernel, children = expand(s, "self.proj.kernel")
    assert kernel.startswith("float32[4, 3] ")
    assert kernel.endswith(" Variable 'sequential/block/proj/kernel'")
    assert "no value yet (Keras build pass: values come at a later stop)" in kernel
    for expression in WEIGHTS:
        value, children = expand(s, expression)
        assert "<error" not in value, value
        for child in children:
            assert "<error" not in child.value, (expression, child.name, child.value)
            assert child.evaluate_name, (expression, child.name)
            # Evaluated in the frame (inside the scratch graph): must not raise.
            s.evaluate(child.evaluate_name, "watch")
        names = {c.name for c in children}
        assert {"shape", "dtype", "path", "trainable"} <= names, names
        dtype = next(c for c in children if c.name == "dtype")
        assert s.evaluate(dtype.evaluate_name)["result"] == "'float32'"


def test_real_call_shows_values_and_every_expression_gives_its_child(s):
    for _ in range(3):  # Keras may run the build pass more than once
        if "scratch_graph" not in s.locals()["h"].value:
            break
        s.resume_to_next_stop()
    local = s.locals()
    assert local["h"].value.startswith("float32[2, 3] x∈[")
    assert local["out"].value.startswith("float32[2, 3] x∈[")
    for expression in (*WEIGHTS, "h", "out"):
        value, children = expand(s, expression)
        assert "<error" not in value and "no value" not in value, value
        assert all(c.name != "note" for c in children), expression
        for child in children:
            assert "<error" not in child.value, (expression, child.name, child.value)
            shown = s.evaluate(child.evaluate_name, "watch")["result"]
            if child.type == "EagerTensor" or child.type == "Note":
                assert shown.strip("'\"") == child.value, (child.evaluate_name, shown)
            elif child.type in ("float32", "float", "int", "bool"):
                assert shown.split()[0] == child.value, (child.evaluate_name, shown)
    row = next(c for c in expand(s, "self.proj.kernel", depth=1)[1] if c.name == "[1]")
    leaves = [c.value for c in s.children(row) if c.name.startswith("[")]
    real = s.evaluate("self.proj.kernel.numpy()[1].tolist()", "repl")["result"]
    assert [float(v) for v in leaves] == pytest.approx(eval(real.strip("'")), rel=1e-6)


def test_eager_input_in_the_build_pass_expressions_add_no_op_and_give_values():
    # A layer called on a real tensor for the first time: call() runs with that tensor while
    # Keras's scratch graph is the default graph. ``x[0]`` evaluated there would be a new
    # StridedSlice op of that graph, and a symbolic tensor instead of the row's value.
    # The build pass's stops are passed by default (the real call follows, with values):
    # TF_DEBUG_REPR_TRACE_STOPS=1 stops there, which this test is about.
    s = start_stopped(
        "keras_build_eager_input.py",
        marker="BREAKPOINT in call",
        env={"TF_DEBUG_REPR_TRACE_STOPS": "1"},
    )
    try:
        ops = "len(__import__('tensorflow').compat.v1.get_default_graph().get_operations())"
        graph = s.evaluate("__import__('tensorflow').compat.v1.get_default_graph().name")
        assert graph["result"] == "'scratch_graph'", graph
        before = s.evaluate(ops)["result"]
        value, children = expand(s, "x")
        assert value.startswith("float32[2, 3] x∈[0, 5]"), value
        checked = 0
        for child in children:
            assert "<error" not in child.value, (child.name, child.value)
            shown = s.evaluate(child.evaluate_name, "watch")["result"]
            assert "symbolic" not in shown, (child.evaluate_name, shown)
            if child.type in ("EagerTensor", "Note"):
                assert shown.strip("'\"") == child.value, (child.evaluate_name, shown)
                checked += 1
            elif child.type == "float32":  # a leaf; its expression gives a 0-d tensor
                assert shown.split()[0] == child.value, (child.evaluate_name, shown)
                checked += 1
        assert checked >= 8, [c.name for c in children]
        assert s.evaluate(ops)["result"] == before, "the expressions added ops to the graph"
    finally:
        s.client.close()
