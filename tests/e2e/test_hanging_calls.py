"""End to end (issue 16 items 8 and 11): in a real debugpy session, values whose showing
calls code that never returns (a variable on a dead remote worker, a metric's result(),
a schedule, an overridden ``layers`` property, a ``__repr__``) each answer within a
bound, their rows say they timed out, the hanging code's own breakpoint is never hit by
the debugger's reads, and the session goes on to the next stop
(tests/programs/hanging_calls.py). Before, each of them hung the session for good."""

from __future__ import annotations

import queue
import time

import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

from ..conftest import program_path, start_stopped

pytestmark = pytest.mark.e2e

PROGRAM = "hanging_calls.py"
REQUEST_SECONDS = 3.0  # a Variables request: pydevd resumes other threads after 3 s


@pytest.fixture(scope="module")
def s():
    path = program_path(PROGRAM)
    markers = ["READY_BREAKPOINT", "HANG_BREAKPOINT", "END_BREAKPOINT"]
    # subProcess off: the short-lived worker is no program of the user's to debug
    session = start_stopped(PROGRAM, markers=markers, subProcess=False)
    assert session.client.top_frame(session.thread_id)["line"] == line_of(path, "READY_BREAKPOINT")
    yield session
    session.client.close()


def timed(fn, *args):
    start = time.perf_counter()
    found = fn(*args)
    return found, time.perf_counter() - start


def test_each_value_answers_within_the_bound_and_says_it_timed_out(s):
    local, seconds = timed(s.locals)
    # five hanging values: the first waits the bound, the others a quarter of it
    assert seconds < REQUEST_SECONDS, seconds
    # TF either gives up on the dead worker at once (UnavailableError) or waits on it for
    # good: which one depends on when the read comes; past the bound the row says so
    remote = local["remote"].value
    assert remote.startswith("ResourceVariable float32[3] <"), remote
    assert "<timed out: reading a value on /job:worker/" in remote or "Unavailable" in remote
    assert "result <timed out: SlowMean.result() did not return" in local["metric"].value
    assert "lr=<timed out> (SlowSchedule)" in local["optimizer"].value, local["optimizer"].value
    assert "layers <timed out: reading .layers" in local["model"].value, local["model"].value
    assert local["mixed"].value.endswith(", Loud (repr timed out)]"), local["mixed"].value
    for name in ("remote", "metric", "optimizer", "model"):
        rows, seconds = timed(s.children, local[name])
        assert seconds < REQUEST_SECONDS, (name, seconds)
        assert rows, name
    # the dead worker's values are refused at once for a while: no wait per row
    again, seconds = timed(s.evaluate, "remote")
    assert seconds < REQUEST_SECONDS and "remote" not in again["result"][:20], (seconds, again)


def test_no_stop_in_the_hanging_code_and_the_session_goes_on(s):
    s.locals()
    events = []
    while True:  # everything the debuggee said so far: no second stop
        try:
            events.append(s.client.events.get_nowait())
        except queue.Empty:
            break
    assert not [e for e in events if e.get("event") == "stopped"], events
    assert s.evaluate("1 + 1", "repl")["result"] == "2"
    s.resume_to_next_stop()
    path = program_path(PROGRAM)
    assert s.client.top_frame(s.thread_id)["line"] == line_of(path, "END_BREAKPOINT")
