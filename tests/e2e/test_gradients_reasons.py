"""Why a gradient is None, one program line per reason, in a real debugpy session; also
a NaN/Inf gradient, a watched plain tensor, and a tape inspected while it records."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e

# variable -> words its "why None" must contain (each produced by grad_none_reasons.py)
REASONS = {
    "frozen": "not trainable (trainable=False)",
    "counter": "int32 is not differentiable",
    "early": "not read while the tape was recording",
    "unwatched": "watch_accessed_variables=False",
    "plain": "a plain tensor is watched only after tape.watch(x)",
    "via_numpy": "No source got a gradient",
    "stopped": "tf.stop_gradient",
    "ranked": "non-differentiable op (argmax",
}


def test_none_reasons_bad_values_and_a_recording_tape(debug_session):
    s = debug_session("grad_none_reasons.py", markers=["STOP_INSIDE_TAPE", "STOP_AT_END"])

    # Stopped inside a recording persistent tape: its state, and looking changes nothing.
    scope = s.locals()
    live = scope["live"]
    assert live.value.startswith("recording, persistent, watches 1 variable,"), live.value
    parts = s.child_map(live)
    assert parts["recording"].value == "True"
    assert [v.name for v in s.children(parts["watched variables"])] == ["[0] w:0"]
    for name in ("bystander", "w"):  # expand them, as a user would
        s.children(scope[name])

    s.resume_to_next_stop()
    scope = s.locals()
    assert scope["untouched"].value == "True"  # the tape did not start watching bystander
    assert s.evaluate("live_grads[1] is None")["result"] == "True"

    for name, words in REASONS.items():
        var = scope[name]
        assert "∇None@call #1 at grad_none_reasons.py:" in var.value, (name, var.value)
        child = s.child_map(var)["∇ gradient"]
        assert re.match(r"∇ call #1 at grad_none_reasons\.py:\d+ None: ", child.value), (
            name,
            child.value,
        )
        why = s.child_map(child)["why None"]
        assert words in why.value, (name, why.value)
        assert s.evaluate(f"{why.evaluate_name} == {why.value!r}")["result"] == "True"

    # The ones that did get a gradient are not blamed.
    assert "∇‖g‖=1@call #1 at grad_none_reasons.py:44" in scope["used"].value
    watched = scope["watched_x"]
    assert "∇‖g‖=" in watched.value
    grad = s.child_map(watched)["∇ gradient"]
    numpy_expr = s.child_map(grad)["numpy"].evaluate_name
    assert (
        s.evaluate(f"{numpy_expr}.tolist() == grads_tensors[1].numpy().tolist()")["result"]
        == "True"
    )

    # An Inf in a gradient stands out on the variable and in the gradient.
    exploding = scope["exploding"]
    assert "∇‼‖g‖=+Inf@call #1 at grad_none_reasons.py:49" in exploding.value, exploding.value
    bad = s.child_map(exploding)["∇ gradient"]
    assert bad.value.startswith("‼ ∇ call #1 at grad_none_reasons.py:49 ‖g‖=+Inf"), bad.value
    assert "+Inf×1" in bad.value, bad.value
    assert any(name.startswith("‼ first NaN/Inf at [0]") for name in s.child_map(bad))
