"""End to end: TF_DEBUG_REPR_CHECK_NUMERICS=1 on a training step that makes a NaN, forward
or backward, run eagerly, as a tf.function and with XLA (issue 32 item 5). In every mode the
stop comes, bounded; Locals, Globals and an evaluate answer within seconds after it; the
message's first sentence says where the NaN was made (for a backward NaN: the forward line
whose gradient made it); nothing on stderr that the plain run does not print (TF's
``local_rendezvous … aborting`` and Grappler's ``Skipping loop optimization`` lines were)."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

from ..conftest import Stopped, program_path

pytestmark = pytest.mark.e2e

PROGRAM = "forensics_nan_compiled.py"
STOP_WITHIN_S = 150  # the first stop: TF's import and a trace on a loaded machine
ANSWER_WITHIN_S = 20  # Locals, Globals, an evaluate at the stop (they never came: 120 s+)
# A line TF (absl) logs at WARNING or ERROR: "W0000 00:00:… file.cc:123] …"
TF_WARNING = re.compile(r"^[WE]\d{4} \d\d:\d\d:[\d.]+ +\d+ [\w.]+:\d+\]", re.M)


def _session(mode: str, kind: str, env: dict) -> tuple[DapClient, dict, float]:
    """Launch the program as VS Code does with its default exception breakpoint: (client,
    the first stopped/terminated event, seconds it took)."""
    path = program_path(PROGRAM)
    client = DapClient(python=sys.executable)
    started = time.monotonic()
    try:
        client.configure(
            launch_config(path, env=env, args=[mode, kind]), {}, ["uncaught"], timeout=120
        )
        while True:
            event = client.events.get(timeout=STOP_WITHIN_S)
            if event.get("event") in ("stopped", "terminated", "_closed"):
                return client, event, time.monotonic() - started
    except BaseException:
        client.close()
        raise


def answers_quickly(
    client: DapClient, s: Stopped, expression: str = "int(steps.numpy())", result: str = "1"
) -> dict[str, str]:
    """Locals, Globals and an evaluate of ``expression`` (which must give ``result``), each
    within ANSWER_WITHIN_S: the locals' values."""
    scopes = client.request("scopes", {"frameId": s.frame_id}, timeout=ANSWER_WITHIN_S)["scopes"]
    seen: dict[str, str] = {}
    for scope in scopes:
        started = time.monotonic()
        body = client.request(
            "variables",
            {"variablesReference": scope["variablesReference"]},
            timeout=ANSWER_WITHIN_S,
        )
        assert time.monotonic() - started < ANSWER_WITHIN_S
        if scope["name"].lower().startswith("locals"):
            seen = {v["name"]: v["value"] for v in body["variables"]}
    reply = client.request(
        "evaluate",
        {"expression": expression, "frameId": s.frame_id, "context": "repl"},
        timeout=ANSWER_WITHIN_S,
    )
    assert reply["result"] == result, reply
    return seen


CASES = [(mode, kind) for mode in ("eager", "graph", "xla") for kind in ("forward", "backward")]
# Every case with the plugin's eager switch on auto (the default); off and on, one case.
SESSIONS = [(*case, "auto") for case in CASES] + [
    ("graph", "backward", "0"),
    ("graph", "backward", "1"),
]


@pytest.mark.parametrize(("mode", "kind", "eager_switch"), SESSIONS)
def test_a_nan_stops_on_its_line_bounded_and_the_session_answers(mode, kind, eager_switch):
    """Compiled calls are re-run eagerly from the variables' values before them, so every
    mode stops in the step, on the line whose op made the NaN (backward: the tape.gradient
    line, the message naming the forward line), with that line's locals; the variables
    are then as the compiled call left them (the plain run's NaN kernel)."""
    env = {"TF_DEBUG_REPR_CHECK_NUMERICS": "1", "TF_DEBUG_REPR_EAGER": eager_switch}
    client, event, took = _session(mode, kind, env)
    try:
        output = "".join(client.output)
        assert event["event"] == "stopped", output[-3000:]
        assert took < STOP_WITHIN_S
        s = Stopped(client, event["body"])
        path = program_path(PROGRAM)
        stop_marker = "FORWARD NAN" if kind == "forward" else "GRADIENT LINE"
        top = client.top_frame(s.thread_id)
        assert (top["name"], top["line"]) == ("step", line_of(path, stop_marker)), top
        info = client.request("exceptionInfo", {"threadId": s.thread_id}, timeout=30)
        assert info["exceptionId"].startswith("NumericsError"), info
        text = info["description"]
        first = text.split("\n", 1)[0]
        if kind == "backward":
            made = f"{path}:{line_of(path, 'BACKWARD NAN')} in step: spread = tf.norm(d)"
            assert first.startswith(f"NaN/Inf made in the gradient of Sqrt at {made}"), first
        else:
            assert first.startswith("NaN/Inf first produced by op Sqrt on CPU:0"), first
            made = f"{path}:{line_of(path, 'FORWARD NAN')} in step: spread = tf.sqrt(d - 1.0)"
            assert f"ran at {made}" in text, text
        compiled = mode != "eager" and eager_switch != "1"
        assert ("by re-running this call of step eagerly" in text) is compiled, text
        local = answers_quickly(client, s)
        assert local["x"].startswith("float32[2, 2]"), local
        assert local["d"].startswith("float32[2, 2] x∈[0, 0]"), local  # the line's values
        kernel = s.evaluate(
            "bool(tf.reduce_all(tf.math.is_finite(model.trainable_variables[0])))", "repl"
        )["result"]
        # eagerly the stop comes before the update; a compiled call applied its NaN
        assert kernel == str(not compiled), kernel
        assert not TF_WARNING.findall(output), TF_WARNING.findall(output)
        assert "failed" not in output and "RecursionError" not in output, output[-3000:]
    finally:
        client.close()


def test_the_plain_run_prints_no_tf_warning_either():
    """The stderr check above means something: the plain run's stderr, same program."""
    done = subprocess.run(
        [sys.executable, program_path(PROGRAM), "graph", "backward"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "kernel finite False" in done.stdout  # the NaN went into the weights
    assert not TF_WARNING.findall(done.stderr), done.stderr[-2000:]
