"""While TensorFlow makes an op in a trace, pydevd's trace function is lifted where nothing
could stop there (``hosts/pydevd/quiet_import.py``'s ``lift_op``, called by
``eager/breakpoints.py``'s op-making wrappers), and put back the moment the op is made. What
could stop still does, as under stock: the program's own conversion function run inside
TF's op making, the function's body after an op, a line breakpoint in TF's op-making code
(justMyCode off), a "step into" from a line that makes an op (tests/programs/quiet_ops.py)."""

from __future__ import annotations

import ast
import importlib.util
import os

import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

from ..conftest import Stopped, program_path, start_stopped

pytestmark = pytest.mark.e2e

PROGRAM = "quiet_ops.py"
PATH = os.path.realpath(program_path(PROGRAM))
# run at a stop, on the stopped thread: is TF's op making below the frame?
STACK = "'_apply_op_helper' in [f.name for f in __import__('traceback').extract_stack()]"
STEPS = 150  # "step into"s from the op's line to TF's op making, at most


def _op_def_library() -> tuple[str, int]:
    """tensorflow/python/framework/op_def_library.py and the line of the first statement
    of ``_apply_op_helper`` (after its docstring): run for each op a trace makes."""
    spec = importlib.util.find_spec("tensorflow")
    assert spec is not None and spec.origin, "TensorFlow is not installed"
    path = os.path.join(os.path.dirname(spec.origin), "python", "framework", "op_def_library.py")
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    helper = next(
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_apply_op_helper"
    )
    first = next(n for n in helper.body if not isinstance(n, ast.Expr))
    return os.path.realpath(path), first.lineno


def _at(s: Stopped) -> tuple[str, int]:
    frame = s.client.top_frame(s.thread_id)
    return os.path.realpath(frame["source"]["path"]), frame["line"]


def _value(s: Stopped, expression: str) -> str:
    return s.evaluate(f"repr({expression})", "repl")["result"].strip("'")


def _stack_names(s: Stopped) -> list[str]:
    body = s.client.request("stackTrace", {"threadId": s.thread_id, "levels": 60})
    return [frame["name"] for frame in body["stackFrames"]]


def test_the_programs_conversion_inside_op_making_and_the_body_stop():
    """The program's own conversion function, called by TF's op making in the trace (an
    input of the program's own type: not lifted), stops; the body's line after two ops
    stops (each op put the trace function back); so does the line after the trace."""
    s = start_stopped(PROGRAM, markers=["CONVERT", "BODY", "END"])
    try:
        assert _at(s) == (PATH, line_of(PATH, "CONVERT"))
        assert _value(s, "eager") == "False", "the conversion runs in the trace"
        assert _value(s, STACK) == "True", "called by TF's op making"
        s.resume_to_next_stop()
        assert _at(s) == (PATH, line_of(PATH, "BODY"))
        assert _value(s, "traced") == "True"
        s.resume_to_next_stop()
        assert _at(s) == (PATH, line_of(PATH, "END"))
        assert _value(s, "float(result)") == "12.5"
        assert _value(s, "traced_in_op_making") == "[False, False, False]", "cool's 3 ops untraced"
        # after each of the two traces, the thread went back to pydevd's SetTrace once
        assert _value(s, "set_traces") == "[True, True]"
        assert _value(s, "sys.gettrace() is not None") == "True"
    finally:
        s.client.close()


def test_a_breakpoint_in_tensorflows_op_making_stops_as_under_stock():
    """justMyCode off and a line breakpoint in ``_apply_op_helper``: op making is traced
    (pydevd stops there, in the trace, as stock does); with it removed the program's own
    breakpoint after the trace stops."""
    library, line = _op_def_library()
    s = start_stopped(PROGRAM, "END", elsewhere={library: [line]}, justMyCode=False)
    try:
        assert _at(s) == (library, line)
        assert "func_graph_from_py_func" in _stack_names(s)
        assert _value(s, "op_type_name == 'Mul'") == "True"  # cool's first op
        s.client.request("setBreakpoints", {"source": {"path": library}, "breakpoints": []})
        s.resume_to_next_stop()
        assert _at(s) == (PATH, line_of(PATH, "END"))
        # Mul traced (the breakpoint there), the next two not: the verdict followed the removal
        assert _value(s, "traced_in_op_making") == "[True, False, False]"
    finally:
        s.client.close()


def test_step_into_a_line_that_makes_an_op_goes_into_op_making_as_under_stock():
    """A "step into" from ``tf.raw_ops.Mul(...)`` in the trace (justMyCode off), again and
    again: the thread is stepping when TF's op making starts, so it runs traced and a step
    stops in ``_apply_op_helper`` before the steps come back to the program's file."""
    library, _ = _op_def_library()
    s = start_stopped(PROGRAM, "MUL_LINE", justMyCode=False)
    try:
        assert _at(s) == (PATH, line_of(PATH, "MUL_LINE"))
        visited = []
        for _ in range(STEPS):
            s.client.request("stepIn", {"threadId": s.thread_id})
            s.thread_id = s.client.wait_event("stopped")["threadId"]
            visited.append(_at(s))
            if visited[-1][0] in (library, PATH):
                break
        assert visited[-1][0] == library, [f"{os.path.basename(f)}:{n}" for f, n in visited]
    finally:
        s.client.close()


def test_the_switch_keeps_op_making_traced():
    s = start_stopped(PROGRAM, "END", env={"TF_DEBUG_REPR_TRACE_OPS": "1"})
    try:
        assert _value(s, "traced_in_op_making") == "[True, True, True]"
        assert _value(s, "set_traces") == "[]"
        assert _value(s, "float(result)") == "12.5"
    finally:
        s.client.close()
