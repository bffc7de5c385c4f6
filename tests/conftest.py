"""Shared fixtures: real debugpy sessions on real TensorFlow programs."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tf_debug_repr.hosts.demo.dap_client import (
    DapClient,
    Variable,
    attach_config,
    launch_config,
    line_of,
)

PROGRAMS = Path(__file__).parent / "programs"
# benchmarks/stock_nodelay/: stock debugpy (the plugin off) with TCP_NODELAY on the
# debuggee's socket, as debugpy's own fix sets it. What stock shows and calls is its own; only
# the ~40 ms that each request waits for a delayed ACK goes (docs/performance.md). The walks
# that record what stock shows (names, probe reads) use it: a request per row.
STOCK_NODELAY = Path(__file__).parent.parent / "benchmarks" / "stock_nodelay"


def stock_env() -> dict[str, str]:
    """A debuggee's environment for stock debugpy, with ``TCP_NODELAY`` on its socket; the
    ``PYTHONPATH`` this process runs with (tf_keras's folder, say) is kept after it."""
    path = os.pathsep.join([str(STOCK_NODELAY), os.environ.get("PYTHONPATH", "")])
    return {"TF_DEBUG_REPR_DISABLE": "1", "PYTHONPATH": path.rstrip(os.pathsep)}


# pytest-xdist hands out work units ("scopes": a file, or a class where a file has classes)
# to its 2 workers as each one runs dry, in the order below (scripts/test.sh: --dist
# loadscope; the scheduler is ``pytest_xdist_make_scheduler`` below): the longest first, so
# that none is started last while the other worker has nothing left to do. xdist's own
# order (scopes with the most tests first) would hand out test_keras_io_walk.py (one test,
# minutes) last. The order: CI's slowest tests of the run before issue 30's work (the first
# test of each real program's class pays for its runs), then the files known to take
# minutes; a scope not listed comes after these, in collection order.
LONG_SCOPES = (
    "test_keras_io_walk.py",
    "test_real_programs.py::TestReal_cyclegan",
    "test_real_programs.py::TestReal_transformer_attention",
    "test_real_programs.py::TestReal_pix2pix",
    "test_real_programs.py::TestReal_seq2seq_teacher",
    "test_real_programs.py::TestReal_mixed_precision",
    "test_real_programs.py::TestReal_dcgan_tutorial",
    "test_real_programs.py::TestReal_text_generation",
    "test_forensics_numerics.py",
    "test_real_programs.py::TestReal_actor_critic",
    "test_real_programs.py::TestReal_quickstart_expert",
    "test_real_programs.py::TestReal_image_classification",
    "test_real_programs.py::TestReal_advanced_autodiff",
    "test_real_programs.py::TestReal_word2vec",
    "test_real_programs.py::TestReal_oxford_pets_segmentation",
    "test_real_programs.py::TestReal_saved_module",
    "test_real_programs.py::TestReal_keras_io_walk",
    "test_real_programs.py::TestReal_vae_sampling",
    "test_real_programs.py",
    "test_wheel.py",
    "test_pydevd_xml.py",
    "test_compiled_breakpoints.py",
)
# Files whose tests share no session (each starts its own, or reads the real-program
# suite's session-wide records): each test is a work unit of its own, so that the two
# workers share them. A file whose tests share a module-scoped fixture must not be here.
PER_TEST_FILES = ("test_real_programs.py", "test_compiled_breakpoints.py")


def work_unit(nodeid: str) -> str:
    """The scope a test is handed out with: its class, else its file; a test of
    ``PER_TEST_FILES`` outside a class, alone."""
    path, _, rest = nodeid.partition("::")
    if "::" not in rest and path.rsplit("/", 1)[-1] in PER_TEST_FILES:
        return nodeid
    return nodeid.rsplit("::", 1)[0]


def _rank(unit: str) -> int:
    tail = unit.rsplit("/", 1)[-1]
    for n, long in enumerate(LONG_SCOPES):
        if tail == long or tail.startswith(long + "::"):
            return n
    return len(LONG_SCOPES)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: _rank(work_unit(item.nodeid)))  # stable: the rest keeps order


@pytest.hookimpl(optionalhook=True)  # xdist's hook: the Keras 2 and Python 3.9 envs lack xdist
def pytest_xdist_make_scheduler(config, log):  # noqa: ANN001, ANN201 (xdist's hook)
    """``--dist loadscope`` with ``work_unit``'s scopes, handed out in collection order
    (``LONG_SCOPES`` first) instead of by their number of tests."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class LongestFirst(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    config.option.loadscopereorder = False
    return LongestFirst(config, log)


class Stopped:
    """A debug session stopped at a breakpoint, with helpers to read what VS Code reads."""

    def __init__(self, client: DapClient, stop: dict) -> None:
        self.client = client
        self.thread_id = stop["threadId"]
        self.frame_id = client.top_frame(self.thread_id)["id"]

    def locals(self) -> dict[str, Variable]:
        return {
            v.name: v for v in self.client.variables(self.client.locals_reference(self.frame_id))
        }

    def children(self, var: Variable) -> list[Variable]:
        assert var.reference, f"{var.name} is not expandable: {var.value}"
        return self.client.variables(var.reference)

    def child_map(self, var: Variable) -> dict[str, Variable]:
        return {c.name: c for c in self.children(var)}

    def evaluate(self, expression: str, context: str = "watch") -> dict:
        return self.client.evaluate(expression, self.frame_id, context)

    def value_of(self, expression: str) -> str:
        """The repr of ``expression`` computed by the program itself (a ground truth)."""
        return self.evaluate(f"repr({expression})", "repl")["result"]

    def resume_to_next_stop(self) -> None:
        self.client.resume(self.thread_id)
        stop = self.client.wait_event("stopped")
        self.thread_id = stop["threadId"]
        self.frame_id = self.client.top_frame(self.thread_id)["id"]


def program_path(name: str) -> str:
    return str(PROGRAMS / name)


def start_stopped(
    name: str,
    marker: str = "BREAKPOINT",
    env: dict | None = None,
    markers: list[str] | None = None,
    elsewhere: dict[str, list[int]] | None = None,
    **config,
) -> Stopped:
    """Launch tests/programs/<name> under a real debugpy adapter, stopped at ``marker``
    (or at the first of ``markers``, or of ``elsewhere``'s lines: other files' breakpoints).
    The caller closes it (``s.client.close()``)."""
    path = name if os.path.isabs(name) else program_path(name)
    lines = [line_of(path, m) for m in (markers or [marker])]
    client = DapClient(python=sys.executable)
    launch_env = {"TF_CPP_MIN_LOG_LEVEL": "2", **(env or {})}
    try:
        stop = client.start(
            launch_config(path, env=launch_env, **config), {**(elsewhere or {}), path: lines}
        )
        return Stopped(client, stop)
    except BaseException:
        client.close()
        raise


@pytest.fixture
def debug_session() -> Iterator:
    """``debug_session("prog.py", marker="BREAKPOINT", env={...})`` -> Stopped."""
    sessions: list[Stopped] = []

    def start(
        name: str,
        marker: str = "BREAKPOINT",
        env: dict | None = None,
        markers: list[str] | None = None,
        **config,
    ) -> Stopped:
        session = start_stopped(name, marker, env, markers, **config)
        sessions.append(session)
        return session

    yield start
    for session in sessions:
        session.client.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def is_listening(port: int) -> bool:
    with open("/proc/net/tcp") as table:
        rows = [line.split() for line in table.readlines()[1:]]
    return any(row[1].endswith(f":{port:04X}") and row[3] == "0A" for row in rows)


@contextlib.contextmanager
def listening_debuggee(program: str, env: dict[str, str] | None = None) -> Iterator[int]:
    """``python -m debugpy --listen 127.0.0.1:PORT --wait-for-client program`` (the attach
    case), yielding PORT once it listens; killed on exit. It is waited for without
    connecting: debugpy's server takes the first connection for the adapter's."""
    port = free_port()
    debuggee = subprocess.Popen(
        [sys.executable, "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--wait-for-client"]
        + [program],
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not is_listening(port):
            assert time.monotonic() < deadline and debuggee.poll() is None, "never listened"
            time.sleep(0.2)
        yield port
    finally:
        debuggee.kill()
        debuggee.wait(timeout=30)


def attach_stopped(program: str, port: int, marker: str = "BREAKPOINT") -> Stopped:
    """Attach as VS Code does ("connect") to ``program`` listening on ``port``, stopped at
    ``marker``. The caller closes it (``s.client.close()``)."""
    # The adapter runs inside the debuggee: DAP goes straight to it.
    client = DapClient(connect=("127.0.0.1", port))
    try:
        stop = client.start(attach_config(port), {program: [line_of(program, marker)]})
        return Stopped(client, stop)
    except BaseException:
        client.close()
        raise
