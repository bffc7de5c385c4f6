"""A custom Keras training loop under a real debugpy session: gradient children equal the
program's own gradients, the history grows, the tape and the model tree, and the final
weights are bit-identical with capture on and off (and after inspecting everything)."""

from __future__ import annotations

import concurrent.futures
import os
import re
import subprocess
import sys
from importlib.metadata import version

import pytest

from ..conftest import program_path

pytestmark = pytest.mark.e2e

PROGRAM = "grad_custom_loop.py"
# Weights are named by path: Keras 3 "sequential/dense/kernel"; Keras 2 (scripts/test.sh runs
# this file under TF 2.15's Keras and tf_keras too) by name, "dense/kernel".
KERAS_2 = (
    int(version("tf_keras" if os.environ.get("TF_USE_LEGACY_KERAS") == "1" else "keras")[0]) < 3
)
MODEL = "" if KERAS_2 else "sequential/"
NP = "__import__('numpy')"


def _gradient_child(s, var):
    child = s.child_map(var)["∇ gradient"]
    assert child.evaluate_name, child
    return child


def _digest(s) -> str:
    return s.evaluate("digest", "watch")["result"].strip("'\"")


def _plain_run() -> subprocess.CompletedProcess:
    """The program run with no debugger at all."""
    return subprocess.run(
        [sys.executable, program_path(PROGRAM)],
        capture_output=True,
        text=True,
        env={
            "TF_CPP_MIN_LOG_LEVEL": "2",
            "PATH": "/usr/bin:/bin",
            # the same Keras as the session's (tf_keras comes by these two)
            **{k: os.environ[k] for k in ("TF_USE_LEGACY_KERAS", "PYTHONPATH") if k in os.environ},
        },
        timeout=300,
        check=True,
    )


def test_gradients_history_tape_model_and_identical_weights(debug_session):
    # The plain run (its digest read at the end) runs beside the session: it waits on nothing.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        plain_run = pool.submit(_plain_run)
        _history_tape_model_and_identical_weights(debug_session, plain_run)


def _history_tape_model_and_identical_weights(debug_session, plain_run) -> None:
    s = debug_session(PROGRAM, markers=["STOP_AFTER_GRADIENT", "STOP_AT_END"])
    assert s.client.top_frame(s.thread_id)["line"] > 0

    # Loop step 0: every trainable variable's ∇ gradient is the program's grads[i], exactly,
    # labelled by the optimizer's iteration (0, as the loop's own step), never "step 1".
    model = s.locals()["model"]
    weights = s.child_map(s.child_map(model)["all weights"])
    assert len(weights) == 4
    for i, var in enumerate(weights.values()):
        assert re.search(r"∇‖g‖=[0-9.e-]+@Adam iteration 0 Variable '[^']*'$", var.value), var.value
        child = _gradient_child(s, var)
        assert child.value.startswith("∇ Adam iteration 0 ‖g‖="), child.value
        parts = s.child_map(child)
        numpy_expr = parts["numpy"].evaluate_name
        same = s.evaluate(f"bool({NP}.array_equal({numpy_expr}, grads[{i}].numpy()))")["result"]
        assert same == "True", (var.name, numpy_expr)
        shown_norm = float(parts["‖g‖"].value)
        program_norm = float(
            s.evaluate(f"float({NP}.linalg.norm(grads[{i}].numpy().astype('float64')))")["result"]
        )
        assert shown_norm == pytest.approx(program_norm, rel=1e-6)
        assert "last 1 gradient " in parts["‖g‖ history"].value
        assert parts["tape call"].value == "1" and parts["iteration"].value == "0"
        it = s.evaluate(f"{parts['iteration'].evaluate_name} == int(optimizer.iterations) - 1")
        assert it["result"] == "True"
        assert parts["applied by"].value.startswith("Adam at iteration 0"), parts["applied by"]
        assert parts["target"].value.startswith("loss at grad_custom_loop.py:22")

    # The tape: used up (non-persistent), what it watched, what it returned.
    tape = s.locals()["tape"]
    # What it computed first; non-persistent is the default, so only "used up" says so.
    assert tape.value == "4 gradients of loss, used up, watches 4 variables, GradientTape"
    tape_parts = s.child_map(tape)
    assert tape_parts["persistent"].value == "False"
    watched = s.children(tape_parts["watched variables"])
    assert [w.name for w in watched][0].endswith(f"{MODEL}dense/kernel:0")
    returned = s.children(tape_parts["gradients returned last"])
    assert len(returned) == 4
    first = s.evaluate(
        f"bool({NP}.array_equal({returned[0].evaluate_name}.numpy(), grads[0].numpy()))"
    )
    assert first["result"] == "True"

    # The model tree: layers, weights with shapes and parameter counts, a global norm.
    assert re.match(
        r"49 params(?: → \[[^\]]*\])?, 2 layers, ∇‖g‖=[0-9.e-]+@Adam iteration 0, "
        r"Sequential 'sequential'$",
        model.value,
    ), model.value
    tree = s.child_map(model)
    dense = tree["dense (Dense)"]
    assert re.match(r"40 params(?: → \[[^\]]*\])?: kernel\[4, 8\] bias\[8\], ", dense.value)
    assert dense.value.endswith(", Dense 'dense'"), dense.value
    kernel = s.child_map(dense)["kernel"]
    assert s.evaluate(f"{kernel.evaluate_name} is model.trainable_variables[0]")["result"] == "True"
    assert "∇ gradient" in s.child_map(kernel)
    table = s.children(tree["∇ gradients"])  # named by weight; the figures in the value
    assert [row.name for row in table] == list(weights)
    assert all(row.value.startswith("∇ Adam iteration 0 ‖g‖=") for row in table), table

    # Loop step 1: the history has grown, the label moved on.
    s.resume_to_next_stop()
    kernel_var = s.child_map(s.child_map(s.locals()["model"])["all weights"])[
        f"{MODEL}dense/kernel"
    ]
    history = s.child_map(_gradient_child(s, kernel_var))["‖g‖ history"]
    assert "last 2 gradients" in history.value, history.value
    rows = s.children(history)
    assert [r.name for r in rows] == ["#2 Adam iteration 1", "#1 Adam iteration 0"]
    assert s.evaluate(f"{rows[1].evaluate_name} == {float(rows[1].value)!r}")["result"] == "True"
    assert s.locals()["step"].value == "1"  # the loop's own step, as the label says
    assert "@Adam iteration 1" in kernel_var.value, kernel_var.value

    for _ in range(3):  # steps 3 and 4, then the end
        s.resume_to_next_stop()
    inspected_digest = _digest(s)

    # Capture off: same program, same final weights, and no gradient shown.
    off = debug_session(PROGRAM, marker="STOP_AT_END", env={"TF_DEBUG_REPR_GRADIENTS": "0"})
    off_kernel = off.locals()["model"]
    assert "∇" not in off_kernel.value
    assert _digest(off) == inspected_digest

    # And the program run with no debugger at all agrees.
    plain = plain_run.result()
    assert plain.stdout.strip().splitlines()[-1] == inspected_digest


def test_over_the_memory_budget_the_figures_stay(debug_session):
    s = debug_session(
        PROGRAM,
        marker="STOP_AFTER_GRADIENT",
        env={"TF_DEBUG_REPR_GRADIENT_BUDGET_MB": str(100 / 2**20)},  # 100 bytes
    )
    weights = s.child_map(s.child_map(s.locals()["model"])["all weights"])
    kernel = weights[f"{MODEL}dense/kernel"]  # 4x8 float32: 128 bytes, over the budget
    assert re.search(r"∇‖g‖=[0-9.e-]+@Adam iteration 0 Variable '[^']*'$", kernel.value), (
        kernel.value
    )
    child = _gradient_child(s, kernel)
    assert "values not kept (memory budget)" in child.value and "n=32 x∈[" in child.value, (
        child.value
    )
    parts = s.child_map(child)
    assert "TF_DEBUG_REPR_GRADIENT_BUDGET_MB=" in parts["values"].value, parts["values"].value
    assert "value" not in parts and "numpy" not in parts
    shown_norm = float(parts["‖g‖"].value)
    program_norm = float(
        s.evaluate(f"float({NP}.linalg.norm(grads[0].numpy().astype('float64')))")["result"]
    )
    assert shown_norm == pytest.approx(program_norm, rel=1e-6)
    low = s.evaluate("float(grads[0].numpy().min())")["result"]
    assert f"x∈[{float(low):.4g}".replace("e-0", "e-") in child.value, (low, child.value)
    bias = _gradient_child(s, weights[f"{MODEL}dense/bias"])  # 8 floats: 32 bytes, kept
    assert "numpy" in s.child_map(bias), bias.value
