"""TensorFlow's import runs without pydevd's trace function where nothing in it could stop
(``hosts/pydevd/quiet_import.py``: seconds of every session's start), and traced, as under
stock debugpy, where something could: a line breakpoint in TF's own code, a "step into"
on the import line. The program (tests/programs/quiet_import.py) records, from an audit
hook, whether its thread was traced while ``tensorflow.python`` was imported."""

from __future__ import annotations

import ast
import importlib.util
import os

import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

from ..conftest import Stopped, program_path, start_stopped

pytestmark = pytest.mark.e2e

PROGRAM = "quiet_import.py"
STEPS = 60  # "step into"s from the import line to TF's own code, at most


def _tf_init_first_line() -> tuple[str, int]:
    """tensorflow/__init__.py and the line of its first statement after the docstring:
    run by every ``import tensorflow`` (found without importing TF here)."""
    spec = importlib.util.find_spec("tensorflow")
    assert spec is not None and spec.origin, "TensorFlow is not installed"
    with open(spec.origin, encoding="utf-8") as source:
        body = ast.parse(source.read()).body
    first = next(n for n in body if not isinstance(n, ast.Expr))
    return spec.origin, first.lineno


def _value(s: Stopped, expression: str) -> str:
    return s.evaluate(f"repr({expression})", "repl")["result"].strip("'")


def _at(s: Stopped) -> tuple[str, int]:
    frame = s.client.top_frame(s.thread_id)
    return os.path.realpath(frame["source"]["path"]), frame["line"]


def test_the_import_runs_untraced_and_the_breakpoint_after_it_stops():
    s = start_stopped(PROGRAM, markers=["BREAKPOINT", "AFTER"])
    try:
        path = program_path(PROGRAM)
        assert _at(s) == (os.path.realpath(path), line_of(path, "BREAKPOINT"))
        assert _value(s, "traced_during_import") == "[False]"
        assert _value(s, "traced_after") == "True", "the thread must be traced again"
        assert _value(s, "x.numpy().tolist()") == "[1.0, 2.0]"
        s.resume_to_next_stop()  # a later breakpoint of the same frame still stops
        assert _at(s)[1] == line_of(path, "AFTER")
    finally:
        s.client.close()


def test_a_breakpoint_in_tensorflows_own_code_stops_as_under_stock():
    """justMyCode off and a line breakpoint in tensorflow/__init__.py: the import is traced
    (pydevd stops there, as stock does), and the program's own breakpoint stops after."""
    tf_init, tf_line = _tf_init_first_line()
    path = program_path(PROGRAM)
    s = start_stopped(PROGRAM, elsewhere={tf_init: [tf_line]}, justMyCode=False)
    try:
        assert _at(s) == (os.path.realpath(tf_init), tf_line)
        s.resume_to_next_stop()
        assert _at(s) == (os.path.realpath(path), line_of(path, "BREAKPOINT"))
        assert _value(s, "traced_during_import") == "[True]"
    finally:
        s.client.close()


def test_step_into_the_import_line_goes_into_tensorflow_as_under_stock():
    """A "step into" from ``import tensorflow`` (justMyCode off), again and again: the thread
    is stepping when TF's module code starts, so it runs traced and a step stops in it
    (the first steps stop in the import system's own finders, as under stock)."""
    path = program_path(PROGRAM)
    tf_dir = os.path.dirname(os.path.realpath(_tf_init_first_line()[0]))
    s = start_stopped(PROGRAM, "IMPORT_LINE", justMyCode=False)
    try:
        assert _at(s)[1] == line_of(path, "IMPORT_LINE")
        visited = []
        for _ in range(STEPS):
            s.client.request("stepIn", {"threadId": s.thread_id})
            s.thread_id = s.client.wait_event("stopped")["threadId"]
            visited.append(_at(s))
            if visited[-1][0].startswith(tf_dir + os.sep):
                break
        assert visited[-1][0].startswith(tf_dir + os.sep), visited
    finally:
        s.client.close()
