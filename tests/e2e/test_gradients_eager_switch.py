"""TF_DEBUG_REPR_EAGER=1: breakpoints inside a Dataset.map function and a @tf.function
are hit, and the gradient computed inside the function is a real value."""

from __future__ import annotations

import pytest

from ..conftest import program_path

pytestmark = pytest.mark.e2e

PROGRAM = "grad_eager_switch.py"


def _line(s) -> int:
    return s.client.top_frame(s.thread_id)["line"]


def test_eager_switch_hits_breakpoints_in_functions(debug_session):
    from tf_debug_repr.hosts.demo.dap_client import line_of

    path = program_path(PROGRAM)
    s = debug_session(
        PROGRAM, markers=["STOP_IN_MAP", "STOP_IN_FUNCTION"], env={"TF_DEBUG_REPR_EAGER": "1"}
    )
    assert _line(s) == line_of(path, "STOP_IN_MAP")
    doubled = s.locals()["doubled"]
    assert doubled.value.startswith("2.0 float32"), doubled.value  # a value, not a symbolic tensor

    s.resume_to_next_stop()
    if _line(s) == line_of(path, "STOP_IN_MAP"):  # the second element
        s.resume_to_next_stop()
    assert _line(s) == line_of(path, "STOP_IN_FUNCTION")
    scope = s.locals()
    assert scope["g"].value.startswith("float32[2]") and "[3., 4.]" in scope["g"].value, scope[
        "g"
    ].value
    v = s.evaluate("v")["result"]
    assert "∇‖g‖=5@call #1 at grad_eager_switch.py:22" in v, v


def test_eager_switch_keeps_autograph_in_a_tf_function_that_tf_data_traces(debug_session):
    # TF's pix2pix: a @tf.function with a tensor `if`, called by a Dataset.map function.
    # tf.data still traces that map function once: there the nested tf.function must be
    # traced with AutoGraph, not run as plain Python (OperatorNotAllowedInGraphError).
    from tf_debug_repr.hosts.demo.dap_client import line_of

    name = "eager_switch_autograph.py"
    path = program_path(name)
    s = debug_session(name, markers=["STOP_IN_JITTER", "DONE"], env={"TF_DEBUG_REPR_EAGER": "1"})
    assert _line(s) == line_of(path, "STOP_IN_JITTER")
    flipped = s.locals()["flipped"]
    assert flipped.type == "EagerTensor" and flipped.value.startswith("float32[4, 4, 3]")
    for _ in range(2):  # the second element, then the end
        s.resume_to_next_stop()
        if _line(s) == line_of(path, "DONE"):
            break
    assert _line(s) == line_of(path, "DONE")
    assert s.evaluate("len(items)")["result"] == "2"
