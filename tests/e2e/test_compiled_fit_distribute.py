"""Keras's compiled `model.fit` under a `tf.distribute.MirroredStrategy` of one and two
logical CPUs (as test_forensics_numerics_fit_distribute.py sets them up): a breakpoint in
a layer's `call` stops at each replica of each step with that replica's part of the batch,
the stop's thread saying which replica; the NaN check stops on the layer's line. Stock
debugpy, side by side, never stops there; the programs end with the plain run's outputs."""

from __future__ import annotations

import ast
import json
import re

import numpy as np
import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

from ..conftest import Stopped, program_path
from .test_compiled_breakpoints import (
    line,
    next_event,
    plain_output,
    printed,
    py,
    stock_run,
    thread_name,
)

pytestmark = pytest.mark.e2e

NAME = "fit_distribute.py"
FEATURES = np.linspace(-1.0, 1.0, 32, dtype="float32").reshape(16, 2)


@pytest.mark.parametrize("devices", [1, 2])
def test_a_breakpoint_in_a_layers_call_under_fit_stops_at_each_replica(
    debug_session, monkeypatch, devices
):
    monkeypatch.setenv("FIT_DEVICES", str(devices))
    monkeypatch.setenv("FIT_MODE", "clean")
    path = program_path(NAME)
    plain = plain_output(NAME)
    assert len(plain) == 2, plain
    # Stock debugpy stops there only while Keras builds the model and traces the step
    # (symbolic tensors, no batch); it ends with the plain run's output.
    stock_code, stock_out, _ = stock_run(NAME, ["LAYER LINE"])
    assert (stock_code, stock_out) == (0, plain)

    s = debug_session(NAME, marker="LAYER LINE")
    seen = []
    rows = 8 // devices
    while True:
        assert line(s) == line_of(path, "LAYER LINE")
        name = thread_name(s)
        seen.append(name)
        assert py(s, "type(inputs).__name__") == "'EagerTensor'"
        assert s.locals()["inputs"].value.startswith(f"float32[{rows}, 2]")
        got = np.array(
            json.loads(ast.literal_eval(py(s, "__import__('json').dumps(inputs.numpy().tolist())")))
        )
        step = (len(seen) - 1) // devices
        match = re.match(r"replica (\d) of 2 \(CPU:\d\)", name)
        replica = int(match.group(1)) if devices == 2 and match else 0
        start = step * 8 + replica * rows
        np.testing.assert_array_equal(got.astype("float32"), FEATURES[start : start + rows])
        event = next_event(s)
        if event["event"] != "stopped":
            break
    assert len(seen) == 2 * devices, seen  # each step, each replica
    if devices == 2:
        assert (
            sorted(seen[:2])
            == sorted(seen[2:])
            == [
                "replica 0 of 2 (CPU:0)",
                "replica 1 of 2 (CPU:1)",
            ]
        ), seen
    assert printed(s) == plain


@pytest.mark.parametrize("devices", [1, 2])
def test_a_nan_in_a_layers_call_under_distributed_fit_stops_on_its_line(monkeypatch, devices):
    """TF_DEBUG_REPR_CHECK_NUMERICS=1, the second batch makes 0 / 0 in the layer's `call`:
    the stop is on that line, in `call`, with that replica's values; stock debugpy ends
    with the plain run's outputs (NaN)."""
    from .test_forensics_numerics_fit_distribute import (
        SWITCH,
        _answers,
        _console,
        _launch,
        _plain,
        _quiet_then_ends,
        _stock,
    )

    monkeypatch.setenv("FIT_DEVICES", str(devices))
    monkeypatch.setenv("FIT_MODE", "nan")
    path = program_path(NAME)
    plain, plain_warnings = _plain(NAME, [])
    assert plain == ["RESULT loss ['nan']", "RESULT kernel ['nan', 'nan']"], plain
    assert _stock(NAME, []) == (0, plain)
    client, event, _ = _launch(NAME, [], SWITCH)
    try:
        assert event["event"] == "stopped", "".join(client.output)[-3000:]
        s = Stopped(client, event["body"])
        top = client.top_frame(s.thread_id)
        assert (top["name"].split()[0], top["line"]) == ("call", line_of(path, "LAYER LINE"))
        text = client.request("exceptionInfo", {"threadId": s.thread_id}, timeout=30)["description"]
        assert text.startswith("NaN/Inf first produced by op RealDiv on CPU:"), text[:400]
        assert f"ran at {path}:{line_of(path, 'LAYER LINE')} in call:" in text, text
        if devices == 2:
            assert re.search(r"\n  in replica [01] of 2 \(MirroredStrategy\)\n", text), text
        local = _answers(client, s)
        assert local["inputs"].startswith(f"float32[{8 // devices}, 2]"), local
        assert _console(client, s, "float(scale[1])") == "0.0"
        _quiet_then_ends(client, s, plain_warnings)
    finally:
        client.close()


def _weights(out: str) -> list[np.ndarray]:
    with np.load(out) as saved:
        return [saved[k] for k in sorted(saved.files, key=lambda k: int(k.split("_")[1]))]


def test_layer_outputs_and_the_batch_of_distributed_fit_per_replica(debug_session, tmp_path):
    """Each layer's ``→ output`` under 2 replicas: a child per replica (``[0] CPU:0``), each
    that replica's output bit for bit (its part of the batch through the layer from the
    weights before the step); the ``last step`` group's rows per replica too; and the trained
    weights equal a run without the debugger, bit for bit."""
    import os
    import subprocess
    import sys

    program = "activations_distribute.py"
    plain_out = str(tmp_path / "plain.npz")
    subprocess.run(
        [sys.executable, program_path(program)],
        env={**os.environ, "TFDR_OUT": plain_out, "TF_CPP_MIN_LOG_LEVEL": "2"},
        check=True,
        timeout=300,
    )
    out = str(tmp_path / "debugged.npz")
    s = debug_session(program, "CALLBACK_BREAKPOINT", env={"TFDR_OUT": out})
    s.evaluate("__tfdr_expected = [recompute(keep.before, r) for r in (0, 1)]", "repl")
    # Keras 2 (scripts/test.sh runs this test under TF 2.15 and tf_keras too) compiles its
    # step as train_function, Keras 3 as one_step_on_data
    keras_2 = s.evaluate("not hasattr(keras, 'ops')", "repl")["result"] == "True"
    step = "train_function" if keras_2 else "one_step_on_data"
    found = s.evaluate("model")
    model = {v.name: v for v in s.client.variables(found["variablesReference"])}
    for index, (name, shape) in enumerate(
        (("hidden (Dense)", "[8, 8]"), ("out (Dense)", "[8, 1]"))
    ):
        rows = [c for c in s.children(model[name]) if c.name.startswith("→ output")]
        assert [r.name for r in rows] == [f"→ output (in compiled step '{step}', 2 replicas)"], rows
        assert rows[0].value.startswith("2 replicas (CPU:0, CPU:1)"), rows[0].value
        assert s.evaluate(rows[0].evaluate_name)["result"] == rows[0].value
        replicas = s.children(rows[0])
        assert [r.name for r in replicas] == ["[0] CPU:0", "[1] CPU:1"], replicas
        for replica, row in enumerate(replicas):
            assert f"float32{shape}" in row.value, row.value
            if index == 0:
                assert "dead ReLU" in row.value, row.value
            same = (
                f"__import__('numpy').array_equal(({row.evaluate_name}).numpy(), "
                f"__tfdr_expected[{replica}][{index}])"
            )
            assert s.evaluate(same, "repl")["result"] == "True", (name, row.name)
    group = next(c for c in s.children(_model_row(s)) if c.name.startswith("last step"))
    assert "each of its 2 replicas its part" in group.value, group.value
    parts = s.child_map(group)
    assert set(parts) == {"inputs", "targets"}, parts
    for role, index in (("inputs", 0), ("targets", 1)):
        replicas = s.children(parts[role])
        assert [r.name for r in replicas] == ["[0] CPU:0", "[1] CPU:1"], replicas
        for replica, row in enumerate(replicas):
            same = (
                f"__import__('numpy').array_equal(({row.evaluate_name}).numpy(), "
                f"part({replica})[{index}])"
            )
            assert s.evaluate(same, "repl")["result"] == "True", (role, row.name)
    s.client.resume(s.thread_id)
    s.client.wait_event("terminated", timeout=120)
    plain, debugged = _weights(plain_out), _weights(out)
    assert len(plain) == len(debugged) == 4
    for a, b in zip(plain, debugged, strict=True):
        assert a.tobytes() == b.tobytes()


def _model_row(s):
    from tf_debug_repr.hosts.demo.dap_client import Variable

    found = s.evaluate("model")
    return Variable("model", found["result"], "", found["variablesReference"], "model", found)
