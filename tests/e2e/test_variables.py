"""End to end: tf.Variable and keras.Variable alike (naming, dtype and device children whose
expressions evaluate), a variable read during the tf.function trace that creates it, a
second logical device, and resource handles in the Debug Console and Copy Value."""

from __future__ import annotations

import re

import pytest

from ..conftest import start_stopped
from .test_tensors import PYDEVD_GROUPS, walk

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def s():
    # TF_DEBUG_REPR_EAGER=0 keeps the tf.function compiled, so the first stop is inside the
    # trace that creates a variable (as in a Dataset.map function); without it the function
    # holding the breakpoint runs eagerly (tests/e2e/test_compiled_breakpoints.py).
    session = start_stopped(
        "variables.py",
        markers=["BREAKPOINT in first trace", "BREAKPOINT ready"],
        env={"TF_DEBUG_REPR_EAGER": "0"},
    )
    yield session
    session.client.close()


def unplaced(summary: str) -> str:
    return re.sub(r"CPU:\d", "CPU", summary)


def evaluates_to_each_child(s, name: str) -> int:
    """Every child's expression, evaluated in the frame, gives what the child shows."""
    checked = 0
    for child in walk(s, s.locals()[name], 2):
        assert "<error" not in child.value, (name, child.name, child.value)
        assert child.evaluate_name, (name, child.name)
        result = s.evaluate(child.evaluate_name, "watch")["result"]
        if child.type in ("Note", "str"):
            assert unplaced(result.strip("'\"")) == unplaced(child.value.strip("'\"")), (
                child.evaluate_name,
                result,
            )
        elif child.type in ("float32", "float", "int", "bool"):
            assert result.removeprefix("‼ ").split()[0] == child.value, (child.evaluate_name,)
        elif child.type == "EagerTensor":
            # Evaluated in the frame, an op lands in the user's ``with tf.device`` scope:
            # the values must agree, the device may not.
            assert unplaced(result) == unplaced(child.value), (child.evaluate_name, result)
        checked += 1
    return checked


def test_variable_created_in_its_first_trace_is_not_shown_empty(s):
    fresh = s.locals()["fresh"]
    assert fresh.value.startswith("float32[2] not initialized yet")
    assert fresh.value.endswith(" Variable 'made'")
    assert "empty" not in fresh.value and "float32[0]" not in fresh.value
    children = s.child_map(fresh)
    assert children["note"].value.startswith("not initialized yet: created while a tf.function")
    assert children["shape"].value == "(2,)"
    assert evaluates_to_each_child(s, "fresh") >= 4
    # TF traces the function again once its variables exist; then the program goes on.
    s.resume_to_next_stop()
    fresh = s.locals()["fresh"]
    assert fresh.value.startswith("float32[2] x∈[3, 3]") and "Variable 'made'" in fresh.value
    if "scale" not in s.locals():
        s.resume_to_next_stop()


def test_one_naming_rule_and_every_expression_evaluates(s):
    local = s.locals()
    assert local["scale"].value.startswith("2.0 float32 ")
    assert local["scale"].value.endswith(" Variable 'scale'")
    assert local["kernel"].value.startswith("float32[2, 2] x∈[-2, 4]")
    assert local["kernel"].value.endswith(" Variable 'kernel'")
    layer = s.child_map(local["layer"]) if local["layer"].reference else {}
    assert layer is not None
    dense_kernel = s.evaluate("layer.kernel", "watch")["result"]
    assert dense_kernel.startswith("float32[3, 2] ") and " Variable 'dense/kernel'" in dense_kernel
    for name in ("scale", "kernel", "far_variable", "fresh"):
        assert evaluates_to_each_child(s, name) >= 5, name
    kernel = s.child_map(local["kernel"])
    assert kernel["dtype"].evaluate_name == "kernel.dtype"
    assert s.evaluate(kernel["dtype"].evaluate_name)["result"] == "'float32'"
    assert kernel["device"].value.endswith("CPU:0")
    assert s.evaluate(kernel["device"].evaluate_name)["result"].strip("'") == kernel["device"].value


def test_long_summary_keeps_the_flags_and_the_gradient_mark(s):
    value = s.locals()["long_named"].value
    assert len(value) <= 300 and "‼ NaN×1" in value, value
    assert "∇‖g‖=2.828@call #1 at variables.py:38 " in value, value
    assert value.startswith("float32[2] ‼ NaN×1 x∈[1, 1]"), "the name, not the range, makes room"
    assert " Variable 'a/very/long/scope/a/very" in value and value.endswith("…"), value


def test_elements_stay_on_the_second_logical_device(s):
    local = s.locals()
    assert local["far"].value.endswith("n=300 CPU:1")
    for name in ("far", "far_variable"):
        for child in walk(s, local[name], 3):
            if child.type == "EagerTensor" or child.type == "AxisRange":
                assert child.value.split(" CPU:")[-1].startswith("1"), (
                    name,
                    child.name,
                    child.value,
                )
            if child.name == "device":
                assert child.value.endswith("CPU:1")
    first_range = s.child_map(local["far"])["[100:150]"]
    row = s.child_map(first_range)["[120]"]
    assert row.value.endswith("CPU:1 [240., 241.]")


def test_handles_in_console_and_clipboard(s):
    for context in ("watch", "repl", "clipboard"):
        text = s.evaluate("handle", context)["result"]
        assert "<error" not in text and "Cannot convert" not in text, (context, text)
        assert "a handle: no values to show" in text
    assert s.evaluate("handle", "repl")["result"].startswith("resource[] CPU:0")
    children = [c for c in s.children(s.locals()["handle"]) if c.name not in PYDEVD_GROUPS]
    assert [c.name for c in children] == ["shape", "dtype", "device"]
