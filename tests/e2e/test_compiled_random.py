"""End to end (issue 26 item 7): a breakpoint in compiled code runs that function eagerly,
and the Debug Console says what that changes in the program's results. A VAE-like step
(tests/programs/compiled_random.py), compiled, with a breakpoint in it, against the plain
run of the same program (no debugger):

- noise from a ``tf.random.Generator``: the same draws bit for bit, and the weights, losses
  and the program's later eager draw agree to float32 rounding;
- noise from stateful ``tf.random.normal`` under ``tf.random.set_seed(0)``: other draws, and
  the program's later eager draw shifts too, as the console says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from tf_debug_repr.eager import breakpoints

from ..conftest import program_path, start_stopped

pytestmark = pytest.mark.e2e

PROGRAM = "compiled_random.py"
# The largest difference in weights and losses allowed between the eager and the compiled
# run: float32 rounding of a few ops over 3 steps (measured: 7.5e-9 in weights, losses equal).
TOLERANCE = 1e-6


def plain_run(rng: str) -> dict:
    env = {**os.environ, "RNG": rng, "TF_CPP_MIN_LOG_LEVEL": "2"}
    done = subprocess.run(
        [sys.executable, program_path(PROGRAM)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return _result(done.stdout)


def _result(output: str) -> dict:
    line = next(row for row in output.splitlines() if row.startswith("RESULT "))
    return json.loads(line[len("RESULT ") :])


def debugged_run(rng: str) -> tuple[dict, str, int]:
    """Under the debugger with a breakpoint in the compiled step: (the result, the
    console's output, how many stops the step made). Each stop reads the step's noise as
    a user would: looking changes nothing."""
    s = start_stopped(PROGRAM, env={"RNG": rng})
    stops = 0
    try:
        while True:
            stops += 1
            assert s.client.top_frame(s.thread_id)["name"] == "train_step"
            eps = s.locals()["eps"].value
            assert eps.startswith("float32[16, 2]") and "symbolic" not in eps, eps
            s.client.resume(s.thread_id)
            event = s.client.events.get(timeout=120)
            while event.get("event") not in ("stopped", "terminated", "_closed"):
                event = s.client.events.get(timeout=120)
            if event["event"] != "stopped":
                break
            s.thread_id = event["body"]["threadId"]
            s.frame_id = s.client.top_frame(s.thread_id)["id"]
        deadline = time.monotonic() + 30
        while "RESULT " not in "".join(s.client.output) and time.monotonic() < deadline:
            time.sleep(0.2)
        output = "".join(s.client.output)
    finally:
        s.client.close()
    return _result(output), output, stops


def test_generator_noise_agrees_with_the_compiled_run_to_rounding():
    plain = plain_run("generator")
    eager, output, stops = debugged_run("generator")
    assert stops == 3  # the step ran eagerly at every call, the first included
    assert [s["eps"] for s in eager["steps"]] == [s["eps"] for s in plain["steps"]]
    for key in ("encoder", "decoder"):
        np.testing.assert_allclose(eager[key], plain[key], rtol=0, atol=TOLERANCE)
    losses = [[s["loss"] for s in run["steps"]] for run in (eager, plain)]
    np.testing.assert_allclose(losses[0], losses[1], rtol=TOLERANCE, atol=0)
    assert eager["later"] == plain["later"]  # the program's own draws are untouched
    assert breakpoints.EAGER_DIFFERENCES in output.replace("\n", " ")


def test_stateful_noise_differs_and_the_console_says_so():
    plain = plain_run("stateful")
    eager, output, stops = debugged_run("stateful")
    assert stops == 3
    told = output.replace("\n", " ")
    assert "tf.function 'train_step' now runs eagerly" in told, output[-3000:]
    assert breakpoints.EAGER_DIFFERENCES in told
    assert "tf.random.normal" in breakpoints.EAGER_DIFFERENCES
    assert "shift the program's later eager draws" in breakpoints.EAGER_DIFFERENCES
    # the difference it names: other draws in the step, and after it
    for e, p in zip(eager["steps"], plain["steps"], strict=True):
        assert np.abs(np.array(e["eps"]) - np.array(p["eps"])).max() > 0.01
    assert eager["later"] != plain["later"]
