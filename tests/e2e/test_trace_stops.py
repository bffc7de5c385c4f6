"""End to end (issue 32 item 2): the first stop has values. keras-io's text classification
transformer under a compiled ``fit``, a breakpoint in ``TransformerBlock.call``: Keras's
build pass and fit's first trace run that ``call`` on symbolic tensors, and the plugin
then runs the step as Python. By default those stops (nothing to read) are passed, said
once in the console, and the first stop in ``call`` has values; a layer's ``build()``,
which runs once, in the build pass, still stops. So with ``TF_DEBUG_REPR_EAGER=1``.
``TF_DEBUG_REPR_TRACE_STOPS=1`` brings the symbolic stops back."""

from __future__ import annotations

import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

from ..conftest import program_path

pytestmark = pytest.mark.e2e

PROGRAM = program_path("compiled_transformer_fit.py")


def _stops_until_values(s, limit: int = 8) -> list[tuple[int, str]]:
    """(line, type of ``inputs`` or "") of each stop up to the first in call() with an
    EagerTensor ``inputs``, that one included."""
    seen = []
    for _ in range(limit):
        frame = s.client.top_frame(s.thread_id)
        local = s.locals()
        kind = local["inputs"].type if "inputs" in local else ""
        seen.append((frame["line"], kind))
        if kind == "EagerTensor":
            return seen
        s.resume_to_next_stop()
    raise AssertionError(f"no stop with values in {limit}: {seen}")


def test_first_stop_in_call_has_values_and_build_still_stops(debug_session):
    build, call = line_of(PROGRAM, "# BUILD"), line_of(PROGRAM, "# BREAKPOINT")
    s = debug_session("compiled_transformer_fit.py", markers=["# BUILD", "# BREAKPOINT"])
    seen = _stops_until_values(s)
    assert seen == [(build, ""), (call, "EagerTensor")], seen
    value = s.evaluate("inputs")["result"]
    assert "symbolic" not in value and "float32" in value, value
    output = "".join(s.client.output)
    assert output.count("Keras's build pass ran layers' call() on symbolic tensors") == 1
    assert "Its first call was traced without stopping" in output
    # The next step stops again, with values.
    s.resume_to_next_stop()
    assert s.client.top_frame(s.thread_id)["line"] == call
    assert s.locals()["inputs"].type == "EagerTensor"


def test_eager_mode_passes_the_build_pass_too(debug_session):
    # TF_DEBUG_REPR_EAGER=1: fit runs its step eagerly (no trace), and Keras's build pass
    # still runs call() on symbolic tensors first: passed, said once, as in auto mode.
    build, call = line_of(PROGRAM, "# BUILD"), line_of(PROGRAM, "# BREAKPOINT")
    s = debug_session(
        "compiled_transformer_fit.py",
        markers=["# BUILD", "# BREAKPOINT"],
        env={"TF_DEBUG_REPR_EAGER": "1"},
    )
    seen = _stops_until_values(s)
    assert seen == [(build, ""), (call, "EagerTensor")], seen
    output = "".join(s.client.output)
    assert output.count("Keras's build pass ran layers' call() on symbolic tensors") == 1
    s.resume_to_next_stop()
    assert s.client.top_frame(s.thread_id)["line"] == call
    assert s.locals()["inputs"].type == "EagerTensor"


def test_trace_stops_switch_brings_the_symbolic_stops_back(debug_session):
    build, call = line_of(PROGRAM, "# BUILD"), line_of(PROGRAM, "# BREAKPOINT")
    s = debug_session(
        "compiled_transformer_fit.py",
        markers=["# BUILD", "# BREAKPOINT"],
        env={"TF_DEBUG_REPR_TRACE_STOPS": "1"},
    )
    seen = _stops_until_values(s)
    assert seen[0][0] == build
    symbolic = [kind for line, kind in seen if line == call and kind != "EagerTensor"]
    assert len(symbolic) >= 2, seen  # the build pass and the trace, as before
    assert seen[-1] == (call, "EagerTensor")
