"""End to end (issue 32 item 3): stepping through a compiled function stays in the user's
code, as for a plain Python function, with the package installed (editable) and bundled
(a copy of ``src/`` on PYTHONPATH, as the VS Code extension ships it, which debugpy's
``justMyCode`` would take for the user's code).

From the breakpoint on the compiled step's call, Step Into lands on the step's first
line; from its last line, Step Over lands on the caller's next line; every stop on the
way is in the user's program; no frame of the plugin (or of AutoGraph's generated copy)
is shown as the user's; a Watch of a local reads while paused in the step."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

from ..conftest import program_path

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = program_path("compiled_stepping.py")
MAX_PRESSES = 25


def _bundle(work: Path) -> tuple[dict, Path]:
    """A copy of the package and of its pydevd plugin module on PYTHONPATH, as vscode-ext's
    bundle puts them there: PYTHONPATH comes before site-packages, so the debuggee imports
    the copy, not the editable install."""
    lib = work / "lib"
    for name in ("tf_debug_repr", "pydevd_plugins"):
        shutil.copytree(
            ROOT / "src" / name, lib / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    return {"PYTHONPATH": str(lib)}, lib / "tf_debug_repr"


def _step(client: DapClient, thread_id: int, command: str) -> dict:
    client.request(command, {"threadId": thread_id})
    stop = client.wait_event("stopped")
    return client.top_frame(stop["threadId"])


def _steps_to(client: DapClient, thread_id: int, command: str, line: int) -> list[dict]:
    """Press ``command`` until the program's own ``line`` is the top frame: each stop."""
    stops = []
    for _ in range(MAX_PRESSES):
        frame = _step(client, thread_id, command)
        stops.append(frame)
        if frame["source"].get("path") == PROGRAM and frame["line"] == line:
            return stops
    raise AssertionError(f"{command}: not at line {line} after {MAX_PRESSES} presses: {stops}")


@pytest.mark.parametrize("copy", ["installed", "bundled"])
def test_step_into_and_over_a_compiled_step(copy: str, tmp_path: Path) -> None:
    env = {"TF_CPP_MIN_LOG_LEVEL": "2"}
    package = ROOT / "src" / "tf_debug_repr"
    if copy == "bundled":
        extra, package = _bundle(tmp_path)
        env.update(extra)
    call, first, last, following = (
        line_of(PROGRAM, marker) for marker in ("# CALL", "# FIRST", "# LAST", "# NEXT")
    )
    client = DapClient(python=sys.executable)
    try:
        stop = client.start(launch_config(PROGRAM, env=env), {PROGRAM: [call, last]})
        thread_id = stop["threadId"]
        frame = client.top_frame(thread_id)
        assert frame["line"] == call
        loaded = client.evaluate("__import__('tf_debug_repr').__file__", frame["id"], "repl")
        assert str(package) in loaded["result"], loaded  # the copy under test is the one running

        into = _steps_to(client, thread_id, "stepIn", first)
        over = _steps_to(client, thread_id, "next", following)
        # The second call, from its breakpoint on the last line: Step Out lands in the caller.
        client.resume(thread_id)
        stop = client.wait_event("stopped")
        frame = client.top_frame(stop["threadId"])
        assert (frame["line"], frame["name"]) == (call, "<module>")
        client.resume(thread_id)
        stop = client.wait_event("stopped")
        frame = client.top_frame(stop["threadId"])
        assert (frame["line"], frame["name"]) == (last, "train_step")
        watch = client.evaluate("loss", frame["id"], "watch")
        assert "NameError" not in watch["result"] and "float32" in watch["result"], watch
        stack = client.request("stackTrace", {"threadId": thread_id})["stackFrames"]
        out = _steps_to(client, thread_id, "stepOut", call)
        print(f"{copy}: Step Into {len(into)}, Step Over {len(over)}, Step Out {len(out)}")
    finally:
        client.close()

    for stop in into + over + out:
        assert stop["source"].get("path") == PROGRAM, stop
    assert [s["line"] for s in into] == [first]  # Step Into the call: its first line
    # Step Over the step's lines (first, then two more), then out to the caller's next line.
    assert [s["line"] for s in over] == [first + 1, last, following], over
    assert [s["line"] for s in out] == [call]
    shown = [f for f in stack if f.get("presentationHint") not in ("subtle", "deemphasize")]
    assert [f["name"] for f in shown] == ["train_step", "<module>"], stack
    for f in stack:
        path = f.get("source", {}).get("path", "")
        assert str(package) not in path and "__autograph_generated" not in path, f
