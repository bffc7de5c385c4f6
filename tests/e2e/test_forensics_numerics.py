"""End to end: TF_DEBUG_REPR_CHECK_NUMERICS=1 with VS Code's default exception breakpoint
stops in the user's frame at the line whose op first produced a NaN (``nan,inf``: or ±Inf)
and says what happened, and hands the op's tensors over; without the switch the program
runs as before; with it and no NaN, results are the same (eager: bit for bit)."""

from __future__ import annotations

import os
import re
import sys

import pytest

from tf_debug_repr.hosts.demo.dap_client import DapClient, attach_config, launch_config, line_of

from ..conftest import Stopped, listening_debuggee, program_path

pytestmark = pytest.mark.e2e

# debugpy's exceptionBreakpointFilters: only "uncaught" is on by default ("User Uncaught
# Exceptions", userUnhandled, is off), and the stops below need nothing else.
VS_CODE_DEFAULT_FILTERS = ["uncaught"]
SWITCH = {"TF_DEBUG_REPR_CHECK_NUMERICS": "1"}  # NaN stops
SWITCH_INF = {"TF_DEBUG_REPR_CHECK_NUMERICS": "nan,inf"}  # ±Inf too (forensics_nan.py makes ±Inf)


def run(
    name: str, env: dict, port: int | None = None, filters: list[str] = VS_CODE_DEFAULT_FILTERS
) -> tuple[DapClient, dict]:
    """Launch a program as VS Code does with its default exception breakpoints and no
    line breakpoints (or attach to it, listening on ``port``): (client, the first
    "stopped" or "terminated" event)."""
    path = program_path(name)
    if port is None:
        client = DapClient(python=sys.executable)
        config = launch_config(path, env={"TF_CPP_MIN_LOG_LEVEL": "2", **env})
    else:
        client = DapClient(connect=("127.0.0.1", port))
        config = attach_config(port)
    try:
        client.configure(config, {}, filters)
        while True:
            event = client.events.get(timeout=120)
            if event.get("event") in ("stopped", "terminated", "_closed"):
                return client, event
    except BaseException:
        client.close()
        raise


def test_eager_nan_stops_at_the_line_of_the_op_with_what_happened():
    client, event = run("forensics_nan.py", SWITCH_INF)
    try:
        assert event["event"] == "stopped", "".join(client.output)[-2000:]
        assert event["body"]["reason"] == "exception"
        s = Stopped(client, event["body"])
        top = client.top_frame(s.thread_id)
        assert top["name"] == "normalise"
        assert top["line"] == line_of(program_path("forensics_nan.py"), "NAN BORN HERE")
        info = client.request("exceptionInfo", {"threadId": s.thread_id})
        text = info["description"]
        assert info["exceptionId"].startswith("NumericsError"), info
        assert "op RealDiv" in text and "on CPU:0" in text, text
        assert "+Inf×1, -Inf×1 of 6, first at [2, 0]" in text, text
        assert "inputs (2):" in text and "0: float32[3, 2]" in text, text
        # the frame's values are there to look at, summarised by the plugin
        local = s.locals()
        assert local["scale"].value.startswith("float32[3, 1]"), local["scale"].value
        assert s.evaluate("float(scale[2, 0])", "repl")["result"] == "0.0"
    finally:
        client.close()


def test_without_the_switch_the_program_runs_as_before():
    client, event = run("forensics_nan.py", {})
    try:
        assert event["event"] == "terminated", event
        assert "finite total 4.0" in "".join(client.output)
    finally:
        client.close()


def test_inside_tf_function_it_names_the_op_and_the_line_that_created_it():
    client, event = run("forensics_nan_graph.py", SWITCH)
    try:
        assert event["event"] == "stopped", "".join(client.output)[-2000:]
        s = Stopped(client, event["body"])
        path = program_path("forensics_nan_graph.py")
        top = client.top_frame(s.thread_id)
        assert (top["name"], top["line"]) == ("main", line_of(path, "GRAPH CALL"))
        text = client.request("exceptionInfo", {"threadId": s.thread_id})["description"]
        assert "NaN/Inf produced by op Log in tf.function graph loss_of" in text, text
        created = f"created at {path}:{line_of(path, 'NAN OP CREATED HERE')} in loss_of"
        assert created in text, text
        assert "logs = tf.math.log(values)" in text
        # The counts and the first index, as the eager check gives them.
        assert "output 0 holds NaN: 1, +Inf: 0, -Inf: 0 of 3 elements, first at [2]" in text, text
        assert s.locals()["values"].value.startswith("float32[3]")
    finally:
        client.close()


def _outcome(env: dict) -> dict:
    """The identical-results program's digests (eager part; all) and its final weights."""
    client, event = run("forensics_numerics_identical.py", env)
    try:
        assert event["event"] == "terminated", event
        output = "".join(client.output)
        found = {
            key: re.search(pattern, output)
            for key, pattern in (
                ("eager", r"EAGER DIGEST ([0-9a-f]{64})"),
                ("all", r"\nDIGEST ([0-9a-f]{64})"),
                ("weights", r"WEIGHTS (\[.*\])"),
                ("checking", r"CHECKING (True|False)"),
            )
        }
        assert all(found.values()), output[-2000:]
        return {key: match.group(1) for key, match in found.items()}
    finally:
        client.close()


def test_with_the_switch_and_no_nan_results_are_the_same():
    """Eager code: bit-identical. Compiled code (Keras fit): the checks read intermediate
    outputs, which keeps Grappler's remapper from fusing ops (MatMul+BiasAdd+Tanh...), and
    fused kernels round differently: the weights agree to float32 rounding, and bit for bit
    once fusion is off in both runs, which shows fusion is the only difference."""
    import json

    import numpy as np

    checked, plain = _outcome(SWITCH), _outcome({})
    assert (checked["checking"], plain["checking"]) == ("True", "False")  # the check ran
    assert checked["eager"] == plain["eager"]
    a, b = (np.array(json.loads(o["weights"])) for o in (checked, plain))
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    no_fusion = {"TFDR_NO_REMAPPING": "1"}
    assert _outcome({**SWITCH, **no_fusion})["all"] == _outcome(no_fusion)["all"]


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reads Linux's socket table")
def test_attach_mode_stops_at_the_line_too_and_memory_reads_that_frame():
    """``python -m debugpy --listen … --wait-for-client`` with the switch in the
    program's environment, VS Code attaching with its default exception breakpoints."""
    path = program_path("forensics_nan.py")
    client = None
    with listening_debuggee(path, SWITCH_INF) as port:
        try:
            client, event = run("forensics_nan.py", {}, port=port)
            assert event["event"] == "stopped", event
            s = Stopped(client, event["body"])
            top = client.top_frame(s.thread_id)
            assert (top["name"], top["line"]) == ("normalise", line_of(path, "NAN BORN HERE"))
            text = client.request("exceptionInfo", {"threadId": s.thread_id})["description"]
            assert "op RealDiv" in text, text
            report = s.evaluate("__import__('tf_debug_repr').memory()", "repl")["result"]
            assert report.startswith("memory in normalise() line"), report
            assert "    batch " in report and "    scale " in report, report
        finally:
            if client is not None:
                client.close()


@pytest.mark.parametrize(
    ("eager_fit", "filters"),
    [
        ("1", VS_CODE_DEFAULT_FILTERS),
        ("1", ["uncaught", "userUnhandled"]),
        ("0", VS_CODE_DEFAULT_FILTERS),
    ],
)
def test_keras_fit_stops_in_the_layers_call_or_names_its_line(eager_fit, filters):
    """Keras calls the user's layer. Run eagerly, the stop is at the line of ``call()`` that
    ran the op, with VS Code's default "Uncaught Exceptions" alone (Keras re-raises the error
    as ``type(e)(node_def, op, message, error_code)`` with the original traceback: the
    rebuilt error keeps its facts) and with "User Uncaught Exceptions" ticked too (the stop
    comes earlier, where the exception leaves ``call()`` into Keras). Compiled, fit's one-batch
    step is re-run eagerly from the batch it was given: the same stop, the message saying so."""
    path = program_path("forensics_nan_fit.py")
    client, event = run(
        "forensics_nan_fit.py", {**SWITCH_INF, "EAGER_FIT": eager_fit}, filters=filters
    )
    try:
        assert event["event"] == "stopped", "".join(client.output)[-2000:]
        s = Stopped(client, event["body"])
        top = client.top_frame(s.thread_id)
        text = client.request("exceptionInfo", {"threadId": s.thread_id})["description"]
        nan_line = line_of(path, "NAN BORN HERE")
        assert text.startswith("NaN/Inf first produced by op RealDiv on CPU:0"), text[:300]
        assert "+Inf×16 of 32" in text, text
        assert f"ran at {path}:{nan_line} in call: return inputs / spread" in text, text
        assert (top["name"].split()[0], top["line"]) == ("call", nan_line)
        assert s.locals()["spread"].value.startswith("float32[8, 1]")
        rerun = "by re-running this call of one_step_on_data eagerly from the arguments"
        assert (rerun in text) is (eager_fit == "0"), text
        if eager_fit == "0":  # the compiled call's own sentence names the line too
            assert f"created at {path}:{nan_line} in call: return inputs / spread" in text, text
    finally:
        client.close()


def test_deliberate_infinities_pass_and_the_nan_stop_hands_its_tensors_over():
    """Issue 16 item 11 and issue 17 item 8: with ``=1`` an attention mask's -Inf and a log(0)
    pass, the NaN stops at its line; the message's expressions give the op's inputs and
    output in the Debug Console; the exception says what it is."""
    path = program_path("forensics_deliberate_inf.py")
    client, event = run("forensics_deliberate_inf.py", SWITCH)
    try:
        assert event["event"] == "stopped", "".join(client.output)[-2000:]
        s = Stopped(client, event["body"])
        top = client.top_frame(s.thread_id)
        assert (top["name"], top["line"]) == ("main", line_of(path, "NAN BORN HERE"))
        assert "masked weights" in "".join(client.output)  # the -Inf lines ran through
        info = client.request("exceptionInfo", {"threadId": s.thread_id})
        text = info["description"]
        assert "op RealDiv on CPU:0: output 0 of 1, float32[2] has NaN×2 of 2" in text, text
        assert "NaN and a division's Inf stop, other Inf and -Inf pass" in text, text
        # every expression the message gives evaluates, in the stopped frame, to the tensors
        given = [line.strip() for line in text.splitlines() if line.strip().startswith("__")]
        assert [g.rsplit(".", 1)[1] for g in given] == ["inputs", "output"], text
        inputs, output = (s.evaluate(g, "watch") for g in given)
        assert output["result"].startswith("float32[2] ‼ NaN×2"), output
        assert inputs["result"] == "[float32[2], float32[2]]", inputs
        assert int(inputs["variablesReference"]) > 0  # expandable, as in the Watch pane
        first = s.evaluate(f"{given[0]}[0]", "watch")["result"]
        assert first == local_summary(s, "spread"), (first, local_summary(s, "spread"))
        same = f"{given[0]}[0] is spread and {given[0]}[1] is spread"
        assert s.evaluate(same, "repl")["result"] == "True"
        shown = s.evaluate("repr(__import__('tf_debug_repr').numerics_stop())", "repl")["result"]
        assert shown.startswith("\"NumericsError('NaN/Inf first produced by op RealDiv"), shown
    finally:
        client.close()


def test_a_division_by_zero_stops_on_its_line_with_its_values_not_where_its_nan_comes():
    """Issue 26 item 6: ``ratio = h / scale`` (``scale`` 0) makes +Inf, the next line's
    ``inf - inf`` the NaN. With ``=1`` the stop was on the next line (its NaN), with that
    line's values; it is on the division's line, in its frame, with ``h`` and ``scale`` read
    there, and the message says why it stopped at an Inf."""
    path = program_path("forensics_nan_line.py")
    client, event = run("forensics_nan_line.py", SWITCH)
    try:
        assert event["event"] == "stopped", "".join(client.output)[-2000:]
        s = Stopped(client, event["body"])
        top = client.top_frame(s.thread_id)
        assert (top["name"], top["line"]) == ("step", line_of(path, "NAN BORN HERE"))
        text = client.request("exceptionInfo", {"threadId": s.thread_id})["description"]
        assert "op RealDiv on CPU:0: output 0 of 1, float32[3] has +Inf×3 of 3" in text, text
        assert "a division by zero: Inf made from finite inputs stops here" in text, text
        assert f"ran at {path}:{top['line']} in step: ratio = h / scale" in text, text
        local = s.locals()
        assert local["scale"].value.startswith("0.0 float32"), local["scale"].value
        assert local["h"].value.startswith("float32[3] x∈[1, 3]"), local["h"].value
        assert "ratio" not in local and "centred" not in local  # the division had not returned
        inputs = s.evaluate("__import__('tf_debug_repr').numerics_stop().inputs", "watch")
        assert inputs["result"] == "[float32[3], 0.0 float32]", inputs
    finally:
        client.close()


def local_summary(s: Stopped, name: str) -> str:
    return s.locals()[name].value


def test_deliberate_infinities_stop_when_asked():
    path = program_path("forensics_deliberate_inf.py")
    client, event = run("forensics_deliberate_inf.py", SWITCH_INF)
    try:
        assert event["event"] == "stopped", "".join(client.output)[-2000:]
        s = Stopped(client, event["body"])
        top = client.top_frame(s.thread_id)
        assert (top["name"], top["line"]) == ("attend", line_of(path, "MASK LINE"))
        text = client.request("exceptionInfo", {"threadId": s.thread_id})["description"]
        assert "op SelectV2 on CPU:0" in text and "-Inf×3 of 6" in text, text
        assert "=nan,inf: NaN, Inf and -Inf stop" in text, text
    finally:
        client.close()
