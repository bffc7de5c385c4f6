"""End to end: TCP_NODELAY is set on the debuggee's socket to the adapter (the ~40 ms
Nagle/delayed-ACK floor on every request goes), in launch and attach mode, and
``TF_DEBUG_REPR_NODELAY=0`` leaves debugpy's socket as it was."""

from __future__ import annotations

import os
import statistics
import time

import pytest

from ..conftest import Stopped, attach_stopped, listening_debuggee, program_path, start_stopped

pytestmark = pytest.mark.e2e

# Read in the debuggee: the option on the socket pydevd writes its DAP messages to.
NODELAY = (
    "__import__('sys').modules['_pydevd_bundle.pydevd_constants'].get_global_debugger()"
    ".writer.sock.getsockopt(__import__('socket').IPPROTO_TCP, __import__('socket').TCP_NODELAY)"
)


def locals_ms(s: Stopped, repeat: int = 15) -> float:
    reference = s.client.locals_reference(s.frame_id)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        s.client.variables(reference)
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def test_launch_sets_nodelay_and_the_switch_turns_it_off():
    figures = {}
    for switch in ("1", "0"):
        s = start_stopped("no_tensorflow.py", env={"TF_DEBUG_REPR_NODELAY": switch})
        try:
            assert s.evaluate(NODELAY)["result"] == switch
            figures[switch] = locals_ms(s)
        finally:
            s.client.close()
    # The floor is a delayed ACK (~40 ms on Linux); without it a tiny frame takes ~1 ms.
    assert figures["1"] < figures["0"] / 2, figures


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reads Linux's socket table")
@pytest.mark.parametrize("switch", ["1", "0"])
def test_attach_sets_nodelay_unless_switched_off(switch):
    program = program_path("no_tensorflow.py")
    with listening_debuggee(program, {"TF_DEBUG_REPR_NODELAY": switch}) as port:
        s = attach_stopped(program, port)
        try:
            assert s.evaluate(NODELAY)["result"] == switch
        finally:
            s.client.close()
