"""The test client's ``resume`` under pydevd's second ``stopped`` for one stop.

When a variable's children take over 3 s to list, pydevd lets the other threads run and then
suspends them again, sending ``continued`` and a second ``stopped`` for the stop the client is
still at (stock debugpy alike). A client that takes that event for a new stop continues a
running thread, and waits for the answer until the next resume, which never comes while the
program sits at its next breakpoint: a real-program run under load failed so in CI.
"""

from __future__ import annotations

import sys
import time

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

from ..conftest import program_path

PROGRAM = program_path("slow_children.py")


def _events_so_far(client: DapClient) -> list[str]:
    with client.events.mutex:
        return [e["event"] for e in client.events.queue if e["event"] != "output"]


def test_a_stop_sent_twice_is_left_once() -> None:
    first, second = line_of(PROGRAM, "FIRST_BREAKPOINT"), line_of(PROGRAM, "SECOND_BREAKPOINT")
    client = DapClient(python=sys.executable)
    try:
        client.configure(
            launch_config(PROGRAM, env={"TF_DEBUG_REPR_DISABLE": "1"}),
            {PROGRAM: [first, second]},
        )
        thread = client.wait_event("stopped", 60)["threadId"]
        frame = client.top_frame(thread)
        assert frame["line"] == first
        rows = {v.name: v for v in client.variables(client.locals_reference(frame["id"]))}
        slow = [v.name for v in client.variables(rows["held"].reference)]
        assert "slow" in slow
        time.sleep(0.3)  # the second stopped event is sent once the listing is done
        assert _events_so_far(client)[-2:] == ["continued", "stopped"], _events_so_far(client)

        client.resume(thread, timeout=60)
        thread = client.wait_event("stopped", 60)["threadId"]
        assert client.top_frame(thread)["line"] == second
        client.resume(thread, timeout=60)
        assert client.wait_event("exited", 60)["exitCode"] == 0
        assert "ended 3" in "".join(client.output)
    finally:
        client.close()
