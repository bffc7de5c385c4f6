"""Breakpoints inside compiled code (TF_DEBUG_REPR_EAGER unset: "auto"), through a real
debugpy adapter: the tf.function holding the breakpoint runs eagerly, only it, and stops
with values; the rest stays compiled; runs without such a breakpoint are bit-identical."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

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


def test_breakpoint_in_a_helper_stops_from_the_second_call_and_goes_when_removed(debug_session):
    path = program_path("compiled_breakpoint.py")
    s = debug_session("compiled_breakpoint.py", markers=["HELPER_BREAKPOINT", "END"])
    # Call 1 traced `step` (AutoGraph's converted copy of `scale`: no stop) and learned
    # that it runs `scale`; call 2 ran as Python and stops in `scale` with values.
    assert py(s, "x.numpy().tolist()") == repr([[9.0, 13.0]])
    frames = s.client.request("stackTrace", {"threadId": s.thread_id})["stackFrames"]
    assert [f["name"] for f in frames[:2]] == ["scale", "step"]
    # The breakpoint goes: call 3 runs the graph traced at call 1 again.
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


def _final_weights(tmp_path, name: str, debugger: bool) -> list[np.ndarray]:
    out = str(tmp_path / f"{name}.npz")
    env = {"TFDR_OUT": out, "TF_CPP_MIN_LOG_LEVEL": "2"}
    if debugger:
        from ..conftest import start_stopped

        s = start_stopped("compiled_identical.py", "END", env=env)
        s.client.close()
    else:
        subprocess.run(
            [sys.executable, program_path("compiled_identical.py")],
            env={**os.environ, **env},
            check=True,
            timeout=300,
        )
    with np.load(out) as saved:
        return [saved[k] for k in sorted(saved.files, key=lambda k: int(k.split("_")[1]))]


def test_compiled_training_is_bit_identical_under_the_debugger(tmp_path):
    plain = _final_weights(tmp_path, "plain", debugger=False)
    debugged = _final_weights(tmp_path, "debugged", debugger=True)
    assert len(plain) == len(debugged) == 12
    for a, b in zip(plain, debugged, strict=True):
        assert a.tobytes() == b.tobytes()


def test_a_breakpoint_in_a_dataset_map_function_is_explained(debug_session):
    s = debug_session("compiled_breakpoint.py", markers=["MAP_BREAKPOINT", "AFTER_MAP"])
    # tf.data traced `jitter` (AutoGraph's converted copy): no stop there, and it says why.
    assert line(s) == line_of(program_path("compiled_breakpoint.py"), "AFTER_MAP")
    assert py(s, "mapped") == "[1.0, 2.0, 3.0]"
    told = [o for o in s.client.output if "traced into a graph outside any tf.function" in o]
    assert len(told) == 1, s.client.output
    assert "compiled_breakpoint.py:" in told[0] and "TF_DEBUG_REPR_EAGER=1" in told[0]
