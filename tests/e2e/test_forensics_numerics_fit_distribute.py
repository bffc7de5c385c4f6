"""End to end: TF_DEBUG_REPR_CHECK_NUMERICS=1 where the NaN is made inside Keras's compiled
``model.fit`` step (a layer's ``call``, a loss of the user's; graph and XLA) and inside the
replica step of a ``tf.distribute`` MirroredStrategy (one and two logical CPUs), the leftovers
of issue 32 item 5. The stop comes, bounded, on the user's line that made the NaN, with that
line's locals readable as numbers; Locals, Globals and the Debug Console answer after it;
the exception text starts with the sentence that says where; no TF warning line on stderr
that the plain run does not print; continued, the program ends. Stock debugpy, side by side,
runs the same program to its end with the plain run's results (it has no NaN stop)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

from ..conftest import Stopped, program_path
from .test_compiled_breakpoints import run_key
from .test_forensics_numerics_compiled import ANSWER_WITHIN_S, answers_quickly

pytestmark = pytest.mark.e2e

STOP_WITHIN_S = 150  # the first stop: TF's import and a trace on a loaded machine
END_WITHIN_S = 120  # continued after the stop, the program ends
SWITCH = {"TF_DEBUG_REPR_CHECK_NUMERICS": "1"}
STOCK = {"TF_DEBUG_REPR_DISABLE": "1"}
# A line TF logs at WARNING or ERROR: C++ (absl) "W0000 00:00:… 123 file.cc:123] …" -> file.cc:123;
# Python "WARNING:tensorflow:Using MirroredStrategy eagerly …" -> its first words
TF_WARNING = re.compile(
    r"^(?:[WE]\d{4} \d\d:\d\d:[\d.]+ +\d+ ([\w.]+:\d+)\]|(?:WARNING|ERROR):tensorflow:(.{0,40}))",
    re.M,
)
# What the NaN check itself would say on stderr when it could not do its part
NUMERICS_COMPLAINTS = ("re-run:", "graph checks:", "a check was not added", "RecursionError")

FIT = "forensics_nan_fit_compiled.py"
DISTRIBUTE = "forensics_nan_distribute.py"


def _launch(program: str, args: list[str], env: dict) -> tuple[DapClient, dict, float]:
    """Launched as VS Code does with its default exception breakpoint ("Uncaught
    Exceptions"): (client, the first stopped/terminated event, seconds it took)."""
    client = DapClient(python=sys.executable)
    started = time.monotonic()
    try:
        client.configure(
            launch_config(program_path(program), env=env, args=args), {}, ["uncaught"], timeout=120
        )
        while True:
            event = client.events.get(timeout=STOP_WITHIN_S)
            if event.get("event") in ("stopped", "terminated", "exited", "_closed"):
                return client, event, time.monotonic() - started
    except BaseException:
        client.close()
        raise


# The plain runs' outcomes per run_key, for this pytest process: FIT's layer-graph run and
# DISTRIBUTE's two-CPU run are each compared with by two tests, and run once.
_PLAIN_RUNS: dict[tuple, tuple[list[str], set[str]]] = {}


def _plain(program: str, args: list[str]) -> tuple[list[str], set[str]]:
    """The plain run (no debugger): its RESULT lines and the TF warnings it logs (once per
    program, arguments and environment in a pytest process)."""
    env = {**os.environ, **SWITCH}
    key = run_key(program, *args, env=env)
    if key not in _PLAIN_RUNS:
        done = subprocess.run(
            [sys.executable, program_path(program), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        results = [r for r in done.stdout.splitlines() if r.startswith("RESULT")]
        _PLAIN_RUNS[key] = (results, set(TF_WARNING.findall(done.stderr)))
    results, warnings = _PLAIN_RUNS[key]
    return list(results), set(warnings)


def _answers(client: DapClient, s: Stopped) -> dict[str, str]:
    return answers_quickly(client, s, "1 + 1", "2")


def _console(client: DapClient, s: Stopped, expression: str) -> str:
    return client.request(
        "evaluate",
        {"expression": expression, "frameId": s.frame_id, "context": "repl"},
        timeout=ANSWER_WITHIN_S,
    )["result"]


def _ends(client: DapClient, s: Stopped) -> None:
    """Continued, the program ends (the uncaught error ends it, as it would without the
    debugger's stop), within END_WITHIN_S."""
    client.resume(s.thread_id)
    deadline = time.monotonic() + END_WITHIN_S
    while time.monotonic() < deadline:
        event = client.events.get(timeout=END_WITHIN_S)
        if event.get("event") in ("exited", "terminated", "_closed"):
            return
        if event.get("event") == "stopped":  # the same error, higher up: go on
            client.resume(event["body"]["threadId"])
    raise AssertionError("the program did not end after the stop")


def _quiet_then_ends(client: DapClient, s: Stopped, plain_warnings: set[str]) -> None:
    """No TF warning line that the plain run lacks and none of the check's own complaints in
    the output so far; then, continued, the program ends."""
    output = "".join(client.output)
    extra = set(TF_WARNING.findall(output)) - plain_warnings
    assert not extra, extra
    assert not [c for c in NUMERICS_COMPLAINTS if c in output], output[-3000:]
    _ends(client, s)


def _stock(program: str, args: list[str]) -> tuple[int | None, list[str]]:
    """Stock debugpy (the plugin off) with the switch set: no stop; exit code and results."""
    client, event, _ = _launch(program, args, {**SWITCH, **STOCK})
    try:
        code = event["body"]["exitCode"] if event.get("event") == "exited" else None
        assert event.get("event") != "stopped", "stock stopped"
        while event.get("event") not in ("terminated", "_closed"):
            event = client.events.get(timeout=END_WITHIN_S)
            if event.get("event") == "exited":
                code = event["body"]["exitCode"]
        output = "".join(client.output).splitlines()
        return code, [r for r in output if r.startswith("RESULT")]
    finally:
        client.close()


FIT_CASES = [("layer", "graph"), ("loss", "graph"), ("layer", "xla")]


@pytest.mark.parametrize(("where", "mode"), FIT_CASES)
def test_a_nan_in_compiled_fit_stops_on_the_users_line(where, mode):
    """fit's compiled step takes an iterator, so it is not re-run itself: the step it calls
    (one batch) is, eagerly, from the batch it was given and the variables' values before
    it, and the stop is on the line of the layer's ``call`` or of the loss that made the
    NaN, with that batch's values."""
    path = program_path(FIT)
    _, plain_warnings = _plain(FIT, [where, mode])
    client, event, took = _launch(FIT, [where, mode], SWITCH)
    try:
        output = "".join(client.output)
        assert event["event"] == "stopped", output[-3000:]
        assert took < STOP_WITHIN_S
        s = Stopped(client, event["body"])
        top = client.top_frame(s.thread_id)
        marker, function = ("LAYER NAN", "call") if where == "layer" else ("LOSS NAN", "root_error")
        assert (top["name"].split()[0], top["line"]) == (function, line_of(path, marker)), top
        info = client.request("exceptionInfo", {"threadId": s.thread_id}, timeout=30)
        assert info["exceptionId"].startswith("NumericsError"), info
        text = info["description"]
        op = "RealDiv" if where == "layer" else "Sqrt"
        assert text.startswith(f"NaN/Inf first produced by op {op} on CPU:0"), text[:400]
        source = "return (inputs - mean) / scale" if where == "layer" else "root = tf.sqrt(y_true)"
        assert f"ran at {path}:{line_of(path, marker)} in {function}: {source}" in text, text
        assert "by re-running this call of one_step_on_data eagerly" in text, text
        local = _answers(client, s)
        if where == "layer":
            assert local["variance"].startswith("float32[4]"), local
            assert _console(client, s, "float(variance[2])") == "0.0"
            assert _console(client, s, "type(inputs).__name__") == "'EagerTensor'"
        else:
            assert local["y_true"].startswith("float32[8, 1]"), local
            assert _console(client, s, "float(tf.reduce_max(y_true))") == "-1.5333333015441895"
        # the second batch made it; the variables are as the compiled call left them
        iterations = _console(client, s, "int(model.optimizer.iterations.numpy())")
        assert iterations == "2", iterations
        _quiet_then_ends(client, s, plain_warnings)
    finally:
        client.close()


def test_where_fit_cannot_be_re_run_it_says_so_and_stops_at_fit():
    """``steps_per_execution=2``: fit's function of the iterator calls the one-batch step in
    a loop, so the batch that made the NaN is not kept. The console says so, once, and the
    error comes at ``fit``, its first sentence naming the line that created the op."""
    path = program_path(FIT)
    client, event, _ = _launch(FIT, ["layer", "loop"], SWITCH)
    try:
        output = "".join(client.output)
        assert event["event"] == "stopped", output[-3000:]
        s = Stopped(client, event["body"])
        assert client.top_frame(s.thread_id)["line"] == line_of(path, "FIT LINE")
        text = client.request("exceptionInfo", {"threadId": s.thread_id}, timeout=30)["description"]
        layer_line = f"{path}:{line_of(path, 'LAYER NAN')} in call:"
        assert text.startswith("NaN/Inf produced by op RealDiv"), text[:400]
        assert f"created at {layer_line}" in text.split("\n", 1)[0], text[:400]
        said = [
            line
            for line in "".join(client.output).splitlines()
            if line.startswith("tf-debug-repr: re-run:")
        ]
        assert said == [
            "tf-debug-repr: re-run: the NaN was made in one_step_on_data, not re-run to stop "
            "on its line because it is called in a loop (Keras: steps_per_execution > 1); the "
            "error comes at the call"
        ], said
        _answers(client, s)
        _ends(client, s)
    finally:
        client.close()


@pytest.mark.parametrize("devices", ["1", "2"])
def test_a_nan_in_a_replica_step_stops_on_the_users_line(devices):
    """``strategy.run``'s replica step inside a ``tf.function``, a MirroredStrategy of one or
    two logical CPUs: the call is re-run eagerly (each replica eagerly, as the strategy runs
    them) from the variables' values before it, and the stop is on the replica step's line
    that made the NaN, with that replica's values."""
    path = program_path(DISTRIBUTE)
    _, plain_warnings = _plain(DISTRIBUTE, [devices])
    client, event, took = _launch(DISTRIBUTE, [devices], SWITCH)
    try:
        output = "".join(client.output)
        assert event["event"] == "stopped", output[-3000:]
        assert took < STOP_WITHIN_S
        s = Stopped(client, event["body"])
        top = client.top_frame(s.thread_id)
        line = line_of(path, "REPLICA NAN")
        assert (top["name"], top["line"]) == ("train_step", line), top
        info = client.request("exceptionInfo", {"threadId": s.thread_id}, timeout=30)
        assert info["exceptionId"].startswith("NumericsError"), info
        text = info["description"]
        assert text.startswith("NaN/Inf first produced by op RealDiv on CPU:"), text[:400]
        assert f"ran at {path}:{line} in train_step:" in text, text
        assert "by re-running this call of distributed_train_step eagerly" in text, text
        local = _answers(client, s)
        rows = 8 // int(devices)
        assert local["spread"].startswith("float32[2]"), local
        assert local["x"].startswith(f"float32[{rows}, 2]"), local
        assert _console(client, s, "float(spread[1])") == "0.0"
        if devices == "2":  # which replica: either may be the first to meet it
            assert re.search(r"\n  in replica [01] of 2 \(MirroredStrategy\)\n", text), text
        else:
            assert "in replica" not in text, text
        _quiet_then_ends(client, s, plain_warnings)
    finally:
        client.close()


@pytest.mark.parametrize(("program", "args"), [(FIT, ["layer", "graph"]), (DISTRIBUTE, ["2"])])
def test_stock_debugpy_runs_them_to_the_plain_runs_end(program, args):
    """Side by side: stock debugpy has no NaN stop; the program ends with the plain run's
    results (NaN in the loss and the weights)."""
    plain, _ = _plain(program, args)
    code, results = _stock(program, args)
    assert code == 0
    assert results == plain and "RESULT kernel finite False" in results, (results, plain)
