"""Breakpoints inside compiled code (TF_DEBUG_REPR_EAGER unset: "auto"), through a real
debugpy adapter: the tf.function holding the breakpoint runs eagerly, only it, and stops
with values; the rest stays compiled; runs without such a breakpoint are bit-identical."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

from ..conftest import program_path

pytestmark = pytest.mark.e2e

EAGER_NOTE = "now runs eagerly, as Python"


def py(s, expression: str) -> str:
    """What the Debug Console prints for a plain Python value the program computes."""
    return s.evaluate(expression, "repl")["result"]


def line(s) -> int:
    return s.client.top_frame(s.thread_id)["line"]


def notes(s) -> list[str]:
    return [o for o in s.client.output if EAGER_NOTE in o]


def test_breakpoint_in_tf_function_stops_with_values_on_every_call(debug_session):
    s = debug_session("compiled_breakpoint.py", markers=["STEP_BREAKPOINT", "END"])
    for i in range(3):
        local = s.locals()
        # Eager values, call after call: x is ones + i, y = x @ w + 1 (the tensor `if`).
        assert local["x"].value.startswith("float32[1, 2]"), local["x"].value
        assert py(s, "x.numpy().tolist()") == repr([[1.0 + i, 1.0 + i]])
        assert py(s, "y.numpy().tolist()") == repr([[5.0 + 4 * i, 7.0 + 6 * i]])
        assert "symbolic" not in local["y"].value
        s.resume_to_next_stop()
    assert line(s) == line_of(program_path("compiled_breakpoint.py"), "END")
    assert py(s, "traced_step") == "0"  # never traced: it ran as Python each time
    assert py(s, "traced_other") == "1"  # compiled, as without the debugger
    assert py(s, "str([r.numpy().tolist() for r in results])") == repr(
        str([[[10.0, 14.0]], [[18.0, 26.0]], [[26.0, 38.0]]])
    )
    told = notes(s)
    assert len(told) == 1 and "tf.function 'step'" in told[0], told
    assert "compiled_breakpoint.py:" in told[0] and "TF_DEBUG_REPR_EAGER=0" in told[0]


def test_breakpoint_in_a_helper_stops_from_the_first_call_and_goes_when_removed(debug_session):
    path = program_path("compiled_breakpoint.py")
    s = debug_session("compiled_breakpoint.py", markers=["HELPER_BREAKPOINT", "END"])
    # Call 1 traced `step` (AutoGraph's converted copy of `scale`: no stop), learned that
    # it runs `scale`, and so ran as Python: it stops in `scale` with values.
    assert py(s, "x.numpy().tolist()") == repr([[5.0, 7.0]])
    frames = s.client.request("stackTrace", {"threadId": s.thread_id})["stackFrames"]
    assert [f["name"] for f in frames[:2]] == ["scale", "step"]
    # The breakpoint goes: calls 2 and 3 run the graph traced at call 1.
    s.client.request(
        "setBreakpoints",
        {"source": {"path": path}, "breakpoints": [{"line": line_of(path, "END")}]},
    )
    s.resume_to_next_stop()
    assert line(s) == line_of(path, "END")
    assert py(s, "traced_step") == "1"
    assert py(s, "str([r.numpy().tolist() for r in results])") == repr(
        str([[[10.0, 14.0]], [[18.0, 26.0]], [[26.0, 38.0]]])
    )


def test_breakpoint_in_keras_train_step_under_compiled_fit(debug_session):
    s = debug_session("compiled_train_step.py", markers=["TRAIN_STEP_BREAKPOINT", "END"])
    losses = []
    for _ in range(3):  # 48 samples / 16: three steps, each stopped with values
        local = s.locals()
        assert local["x"].value.startswith("float32[16, 4]"), local["x"].value
        assert "symbolic" not in local["loss"].value, local["loss"].value
        losses.append(float(py(s, "float(loss)")))
        # The tape's gradients are real and recorded on the weights.
        assert "∇‖g‖=" in local["self"].value, local["self"].value
        s.resume_to_next_stop()
    assert line(s) == line_of(program_path("compiled_train_step.py"), "END")
    assert len(set(losses)) == 3, losses
    told = notes(s)
    assert len(told) == 1 and "'multi_step_on_iterator'" in told[0], told


@pytest.mark.parametrize("mode", ["auto", "1", "0"])
def test_restored_saved_model_function_runs_in_every_mode(debug_session, mode):
    s = debug_session("compiled_restored.py", markers=["END"], env={"TF_DEBUG_REPR_EAGER": mode})
    assert py(s, "total") == "9.0"


def test_a_breakpoint_in_a_helper_of_a_dataset_map_function_stops_at_each_element(
    debug_session,
):
    path = program_path("compiled_breakpoint.py")
    s = debug_session("compiled_breakpoint.py", markers=["MAP_BREAKPOINT", "AFTER_MAP"])
    # tf.data traced the lambda and `jitter` (AutoGraph's converted copies: no stop), the
    # trace showed the breakpoint in `jitter`, so the dataset runs the lambda as Python.
    for i in range(3):
        if i:
            s.resume_to_next_stop()
        assert line(s) == line_of(path, "MAP_BREAKPOINT"), i
        assert py(s, "float(value)") == str(float(i))
    s.resume_to_next_stop()
    assert line(s) == line_of(path, "AFTER_MAP")
    assert py(s, "mapped") == "[1.0, 2.0, 3.0]"
    told = [o for o in s.client.output if "Dataset.map(<lambda>) function" in o]
    assert len(told) == 1, s.client.output
    assert "compiled_breakpoint.py:" in told[0] and "runs as Python for each element" in told[0]
    assert not any("traced into a graph outside" in o for o in s.client.output)


# --------------------------------------------------------------------------- every shape
# One session per program: every stop is read in order, then the program runs to its end;
# stock debugpy runs the same program with the same breakpoints, and the plain run gives
# the output both must print.

STOCK = {"TF_DEBUG_REPR_DISABLE": "1"}


def run_key(*parts: object, env: dict[str, str]) -> tuple:
    """What a plain run's output depends on: its program, arguments and environment (less
    pytest's own ``PYTEST_…`` variables, which name the test that asks)."""
    kept = tuple(sorted((k, v) for k, v in env.items() if not k.startswith("PYTEST_")))
    return (*parts, kept)


# A plain run's output per run_key, for this pytest process: the tests of a file that
# compare with the same plain run (test_compiled_datasets.py's four) run it once.
_PLAIN_OUTPUTS: dict[tuple, list[str]] = {}


def plain_output(name: str) -> list[str]:
    """The RESULT and UNTOUCHED lines of ``name`` run with no debugger (once per program and
    environment in a pytest process; each caller gets its own copy)."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    key = run_key(name, env=env)
    if key not in _PLAIN_OUTPUTS:
        run = subprocess.run(
            [sys.executable, program_path(name)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        lines = run.stdout.splitlines()
        _PLAIN_OUTPUTS[key] = [r for r in lines if r.startswith(("RESULT", "UNTOUCHED"))]
    return list(_PLAIN_OUTPUTS[key])


def printed(s) -> list[str]:
    return [
        r for r in "".join(s.client.stdout).splitlines() if r.startswith(("RESULT", "UNTOUCHED"))
    ]


def next_event(s) -> dict:
    """Continue; the next stop (and the session follows it) or the exit."""
    s.client.resume(s.thread_id)
    while True:
        event = s.client.events.get(timeout=120)
        if event["event"] == "stopped":
            s.thread_id = event["body"]["threadId"]
            s.frame_id = s.client.top_frame(s.thread_id)["id"]
            return event
        if event["event"] in ("exited", "terminated", "_closed"):
            return event


def run_to_end(s) -> int | None:
    """Continue through every stop to the program's exit: its exit code and the stops."""
    while True:
        event = next_event(s)
        if event["event"] == "exited":
            return event["body"]["exitCode"]
        if event["event"] != "stopped":
            return None


def thread_name(s) -> str:
    threads = s.client.request("threads")["threads"]
    return next(t["name"] for t in threads if t["id"] == s.thread_id)


def check_stop(s, path: str, marker: str, local: str, expected: object) -> None:
    """Stopped on ``marker``'s line, ``local`` reads as numbers in Variables, and its
    values are ``expected`` (None: checked as numbers only)."""
    where = (line(s), s.client.top_frame(s.thread_id)["name"])
    assert where[0] == line_of(path, marker), (marker, where)
    row = s.locals()[local].value
    assert "symbolic" not in row and "tracing" not in row, (marker, row)
    assert row.startswith(("float32", "[float32")) or row[0].isdigit(), (marker, row)
    assert py(s, f"type({local}).__name__") == "'EagerTensor'", marker
    if expected is not None:
        got = py(s, f"str({local}.numpy().tolist())")  # str: the console abbreviates nesting
        assert got == repr(str(expected)), (marker, row)


def walk(s, path: str, expected_stops: list[tuple[str, str, object]]) -> None:
    for i, (marker, local, expected) in enumerate(expected_stops):
        if i:
            assert next_event(s)["event"] == "stopped", (i, marker)
        check_stop(s, path, marker, local, expected)


def stock_run(name: str, markers: list[str]) -> tuple[int | None, list[str], int]:
    """Stock debugpy (the plugin off), the same breakpoints, continued through every stop:
    the exit code, the output and how many stops."""
    path = program_path(name)
    client = DapClient(python=sys.executable)
    try:
        config = launch_config(path, env={"TF_CPP_MIN_LOG_LEVEL": "2", **STOCK})
        client.configure(config, {path: [line_of(path, m) for m in markers]})
        stops, code = 0, None
        while True:
            event = client.events.get(timeout=300)
            if event["event"] == "stopped":
                stops += 1
                client.resume(event["body"]["threadId"])
            elif event["event"] == "exited":
                code = event["body"]["exitCode"]
            elif event["event"] in ("terminated", "_closed"):
                break
        output = [
            r for r in "".join(client.stdout).splitlines() if r.startswith(("RESULT", "UNTOUCHED"))
        ]
        return code, output, stops
    finally:
        client.close()


METHOD_MARKERS = [
    "MODULE_CALL",
    "DREAM_STEP",
    "RETRACING",
    "XLA_METHOD",
    "LAYER_CALL",
    "MODEL_METHOD",
    "LATE_CLASS",
    "LATE_INSTANCE",
]


def test_breakpoints_in_tf_function_methods_of_every_shape(debug_session):
    """#26: a tf.Module's compiled method (the SavedModel guide's, DeepDream's with an
    input_signature), reduce_retracing, jit_compile, a Keras layer's and a model's compiled
    method, methods decorated after the class was made, one called from another
    tf.function, and a restored SavedModel's wrapper (no Python: runs as under stock)."""
    name = "compiled_methods.py"
    path = program_path(name)
    plain = plain_output(name)
    assert len(plain) == 21, plain
    stock_code, stock_out, stock_stops = stock_run(name, METHOD_MARKERS)
    assert (stock_code, stock_out, stock_stops) == (0, plain, 0)

    s = debug_session(name, markers=METHOD_MARKERS)
    gradients = [[[0.5, 0.25, 0.125]] * 2] * 2
    stops = []
    for i in range(2):  # two calls of each, the first included, with eager values
        v = 2.0 if i == 0 else 3.0  # `mutate` sets 3, then 4, after each direct call
        x = [1.0 + i, 2.0 + i]
        stops += [
            ("MODULE_CALL", "y", [a * v for a in x]),
            ("DREAM_STEP", "gradients", gradients),  # steps=2: twice per call
            ("DREAM_STEP", "gradients", gradients),
            ("RETRACING", "s", 2.0 + i),  # another shape each call
            ("XLA_METHOD", "z", [3.0 * a for a in x]),
            ("LAYER_CALL", "doubled", [2.0 * a for a in x]),
            ("MODEL_METHOD", "out", [[sum(x)]]),
            ("LATE_CLASS", "shifted", [a + 10.0 for a in x]),
            ("LATE_INSTANCE", "scaled", [a * 10.0 for a in x]),
            ("MODULE_CALL", "y", [a * (v + 1.0) for a in x]),  # through `through`
        ]
    walk(s, path, stops)
    assert py(s, "type(self).__name__") == "'CustomModule'"  # the instance, not TF's target
    assert run_to_end(s) == 0  # the restored module's call did not stop
    assert printed(s) == plain
    told = notes(s)
    for function in ("__call__", "total", "fused", "call", "score", "shift", "scale", "through"):
        assert any(f"tf.function {function!r}" in t for t in told), (function, told)


CALLEE_MARKERS = [
    "HELPER",
    "XLA_HELPER",
    "MODULE_METHOD",
    "COND_BRANCH",
    "WHILE_BODY",
    "MAP_FN",
    "INNER_FUNCTION",
    "SIGNATURE_HELPER",
    "RETRACING_HELPER",
    "ADD_BREAKPOINTS",
]


def test_breakpoints_in_code_compiled_functions_run_stop_from_the_first_call(debug_session):
    """#32: helpers at any depth (with jit_compile too), a tf.Module's method its compiled
    __call__ calls, tf.cond/tf.while_loop/tf.map_fn bodies, a tf.function inside another,
    input_signature and reduce_retracing: every call stops, the first included, with eager
    values; a breakpoint set mid-run stops at the next call, one removed stops no more; a
    function with no breakpoint in code it runs stays compiled."""
    name = "compiled_callees.py"
    path = program_path(name)
    plain = plain_output(name)
    assert plain[-1] == "UNTOUCHED runs 1 traces 1", plain
    stock_code, stock_out, _ = stock_run(name, CALLEE_MARKERS)
    assert (stock_code, stock_out) == (0, plain)

    s = debug_session(name, markers=CALLEE_MARKERS)
    for i in range(2):
        x = [1.0 + i, 2.0 + i, 3.0 + i]
        hidden = 0.5 * sum(x)
        stops = [
            ("HELPER", "scaled", [2.0 * a for a in x]),
            ("XLA_HELPER", "cubed", [a**3 for a in x]),
            ("MODULE_METHOD", "y", [[hidden] * 3]),  # dense_1
            ("MODULE_METHOD", "y", [[1.5 * hidden] * 2]),  # dense_2
            ("COND_BRANCH", "doubled", [2.0 * a for a in x[:2]]),
            ("WHILE_BODY", "acc", 0.0),
            ("WHILE_BODY", "acc", 1.0),
            ("MAP_FN", "squared", x[0] ** 2),
            ("MAP_FN", "squared", x[1] ** 2),
            ("INNER_FUNCTION", "plus", [a + 1.0 for a in x]),
            ("SIGNATURE_HELPER", "n", sum(a * a for a in x[: 2 + i])),
            ("RETRACING_HELPER", "m", sum(x[: 2 + i]) / (2 + i)),
        ]
        # tf.while_loop runs its body's own lines in the first call's trace (stock stops
        # there, symbolic): that stop is passed (TF_DEBUG_REPR_TRACE_STOPS), the call then
        # runs as Python and stops with values.
        if i > 0:
            assert next_event(s)["event"] == "stopped"
        walk(s, path, stops)
    assert next_event(s)["event"] == "stopped"
    assert line(s) == line_of(path, "ADD_BREAKPOINTS")
    # Mid-run: the breakpoints above go, one in `late` (compiled twice already) comes.
    s.client.request(
        "setBreakpoints",
        {
            "source": {"path": path},
            "breakpoints": [{"line": line_of(path, m)} for m in ("LATE_HELPER", "END")],
        },
    )
    for value in (1.0, 2.0):
        assert next_event(s)["event"] == "stopped"
        check_stop(s, path, "LATE_HELPER", "x", [value])
    assert next_event(s)["event"] == "stopped"  # `step` called again: no stop
    assert line(s) == line_of(path, "END")
    assert py(s, "len(untouched_runs)") == "1"  # `plain` ran its graph
    assert run_to_end(s) == 0
    assert printed(s) == plain
    told = notes(s)
    for function in ("step", "xla_step", "__call__", "control", "outer", "with_signature"):
        assert any(f"tf.function {function!r}" in t for t in told), (function, told)
    assert any("tf.function 'retracing'" in t for t in told), told
    assert any("tf.function 'late_step'" in t for t in told), told
    assert not any("tf.function 'plain'" in t for t in told), told


def test_breakpoint_in_a_replica_step_stops_at_each_replica(debug_session):
    """TF's custom training loop with tf.distribute: the step given to strategy.run inside
    a @tf.function stops at every call's every replica, with values; under MirroredStrategy
    (two logical CPUs) each replica's thread is named for it."""
    name = "compiled_distribute.py"
    path = program_path(name)
    plain = plain_output(name)
    stock_code, stock_out, stock_stops = stock_run(name, ["REPLICA_STEP"])
    assert (stock_code, stock_out, stock_stops) == (0, plain, 0)  # stock never stops there

    s = debug_session(name, markers=["REPLICA_STEP"])
    seen = []
    for i in range(6):  # OneDevice: 2 calls x 1 replica; Mirrored: 2 calls x 2 replicas
        if i:
            assert next_event(s)["event"] == "stopped", i
        check_stop(s, path, "REPLICA_STEP", "loss", None)
        assert py(s, "predictions.shape.as_list()") == ("[8, 1]" if i < 2 else "[4, 1]")
        seen.append(thread_name(s))
    assert seen[:2] == ["MainThread", "MainThread"], seen  # one replica: the caller's thread
    replicas = ["replica 0 of 2 (CPU:0)", "replica 1 of 2 (CPU:1)"]
    assert sorted(seen[2:4]) == sorted(seen[4:6]) == replicas, seen  # both, at each step
    assert run_to_end(s) == 0
    assert printed(s) == plain
    assert len(notes(s)) == 2, notes(s)  # each strategy's distributed_train_step


def test_breakpoint_in_a_vectorized_map_body(debug_session):
    """`tf.vectorized_map`'s body inside a `@tf.function`: pfor never runs the body per
    element (it traces it once into a graph of its own, a tf.function TF makes that must
    stay compiled: run as Python, pfor's graph-mode assertion killed the program). While a
    breakpoint lies in the body, the calling function runs as Python and the body runs once
    per element, eagerly: it stops at each element of each call, the first included, with
    that element's values, and the program ends with the plain run's results; the console
    says so once."""
    name = "compiled_vectorized.py"
    path = program_path(name)
    plain = plain_output(name)
    stock_code, stock_out, _ = stock_run(name, ["VECTORIZED_BODY"])
    assert (stock_code, stock_out) == (0, plain)
    s = debug_session(name, markers=["VECTORIZED_BODY", "END"])
    seen = []
    while line(s) == line_of(path, "VECTORIZED_BODY"):
        assert "float32" in s.locals()["squared"].value  # a value, not a trace's symbol
        seen.append((py(s, "v.numpy().item()"), py(s, "squared.numpy().item()")))
        assert next_event(s)["event"] == "stopped"
    assert line(s) == line_of(path, "END")
    elements = [1.0, 2.0, 3.0, 2.0, 2.0, 3.0]  # [1 + i, 2, 3] for calls i = 0, 1
    assert seen == [(repr(e), repr(e * e)) for e in elements], seen
    told = [o for o in s.client.output if "tf.vectorized_map body runs once per element" in o]
    assert len(told) == 1 and "compiled_vectorized.py:" in told[0], told
    assert run_to_end(s) == 0
    assert printed(s) == plain
