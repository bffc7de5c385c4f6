"""End to end: the kinds of values beside tensors (optimizers, schedules, metrics, losses,
shapes, specs, TensorArrays, lists of symbolic tensors) as VS Code gets them, every
child's expression evaluated in the program's frame."""

from __future__ import annotations

import ast
import math
import subprocess
import sys

import pytest

from ..conftest import Stopped, program_path, start_stopped

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def s():
    session = start_stopped("kinds_training.py")
    yield session
    session.client.close()


def real_float(s: Stopped, expression: str) -> float:
    """A number computed by the program itself."""
    return float(s.value_of(f"float({expression})").strip("'"))


def _same(shown: str, evaluated: str) -> bool:
    if shown == evaluated or shown == _unquoted(evaluated):
        return True
    try:  # a float32 leaf shows its short text, float() of it the long one
        return math.isclose(float(shown), float(evaluated), rel_tol=1e-6)
    except ValueError:
        return False


def _unquoted(text: str) -> str:
    """A str result's text without its quotes (its repr, read back): stripping quote
    characters would also eat a quote the text itself ends with."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return value if isinstance(value, str) else text


def assert_expressions_evaluate(s: Stopped, parent, depth: int = 1) -> int:
    """Every child's evaluateName, sent as Add to Watch does, gives what the child shows."""
    checked = 0
    for child in s.children(parent):
        if child.name.endswith(" variables") or child.value.startswith("<error"):
            assert not child.value.startswith("<error"), (child.name, child.value)
            continue
        if child.evaluate_name is None:
            continue
        if child.type == "Weights":  # a list of the same variables, shown as a list
            count = s.evaluate(f"len({child.evaluate_name})")["result"]
            assert child.value.startswith(f"{count} "), (child.evaluate_name, child.value)
            checked += 1
            continue
        result = s.evaluate(child.evaluate_name)
        assert _same(child.value, result["result"]), (child.evaluate_name, child.value, result)
        checked += 1
        if depth > 1 and child.reference:
            checked += assert_expressions_evaluate(s, child, depth - 1)
    return checked


def test_optimizer_shows_lr_schedule_iterations_clipping(s):
    optimizer = s.locals()["optimizer"]
    expected_lr = real_float(s, "optimizer.learning_rate")
    assert optimizer.value.startswith(
        f"Adam 'adam' lr={expected_lr:.4g} (ExponentialDecay) iterations=2 clipnorm=1 "
    )
    assert optimizer.value.endswith("slots momentum, velocity for 4 weights")
    children = s.child_map(optimizer)
    assert math.isclose(float(children["learning_rate"].value), expected_lr, rel_tol=1e-6)
    assert children["iterations"].value == "2" and children["iterations"].type == "int"
    assert children["clipnorm"].value == "1.0"
    schedule = children["schedule"]
    assert schedule.value == (
        "ExponentialDecay(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5, "
        "staircase=False, name='ExponentialDecay')"
    )
    assert s.child_map(schedule)["decay_rate"].value == "0.5"
    assert assert_expressions_evaluate(s, optimizer, depth=2) >= 10


def test_optimizer_slots_are_grouped_by_weight(s):
    children = s.child_map(s.locals()["optimizer"])
    slots = children["slots by weight"]
    assert slots.value == "4 weights × momentum, velocity"
    by_weight = s.child_map(slots)
    assert list(by_weight) == [
        "sequential/hidden/kernel",
        "sequential/hidden/bias",
        "sequential/out/kernel",
        "sequential/out/bias",
    ]
    kernel = s.child_map(by_weight["sequential/hidden/kernel"])
    assert list(kernel) == ["momentum", "velocity", "weight"]
    assert kernel["momentum"].value.startswith("float32[4, 8] ")
    assert kernel["momentum"].value.endswith(
        "Variable 'adam/sequential_hidden_kernel_momentum' non-trainable"
    )
    assert kernel["weight"].value.endswith("Variable 'sequential/hidden/kernel'")
    # The slot's expression is the very variable the optimizer holds.
    same = s.evaluate(f"{kernel['velocity'].evaluate_name} is optimizer.variables[2]")
    assert same["result"] == "True"
    assert assert_expressions_evaluate(s, by_weight["sequential/out/bias"]) == 3


def test_loss_scale_optimizer(s):
    scaled = s.locals()["scaled"]
    assert scaled.value.startswith(
        "LossScaleOptimizer 'loss_scale_optimizer' loss scale=3.277e4 over SGD lr=0.01 iterations=1"
    )
    children = s.child_map(scaled)
    assert children["loss scale"].value == "32768.0"
    assert children["inner_optimizer"].value.startswith("SGD 'sgd' lr=0.01 iterations=1")
    assert s.child_map(children["slots by weight"])["sequential/out/kernel"].value == (
        "momentum of sequential/out/kernel[8, 3]"
    )
    assert assert_expressions_evaluate(s, scaled) >= 6


def test_metrics_show_result_and_state(s):
    local = s.locals()
    expected = real_float(s, "mean_loss.result()")
    assert local["mean_loss"].value == (
        f"Mean 'mean_loss' result={expected:.4g} (state: total, count)"
    )
    children = s.child_map(local["mean_loss"])
    assert list(children)[:3] == ["result", "total", "count"]
    assert children["count"].value.startswith("2.0 float32 ")
    assert children["count"].value.endswith("Variable 'mean_loss/count' non-trainable")
    # then the attributes stock shows (name, dtype), the private ones one expansion away
    assert list(children)[3:] == ["name", "dtype", "private attributes"]
    assert assert_expressions_evaluate(s, local["mean_loss"]) == 6
    accuracy = real_float(s, "accuracy.result()")
    assert local["accuracy"].value.startswith(
        f"SparseCategoricalAccuracy 'sparse_categorical_accuracy' result={accuracy:.4g}"
    )


def test_loss_shows_name_reduction_config(s):
    loss_fn = s.locals()["loss_fn"]
    assert loss_fn.value == (
        "SparseCategoricalCrossentropy 'sparse_categorical_crossentropy' "
        "reduction=sum_over_batch_size from_logits=True ignore_class=None"
    )
    children = s.child_map(loss_fn)
    assert children["fn"].value == "sparse_categorical_crossentropy"
    # the attributes stock shows after the loss's own rows
    assert {"dtype", "from_logits", "ignore_class", "private attributes"} <= set(children)
    assert assert_expressions_evaluate(s, loss_fn) == 9


def test_tensor_shape_has_dims_and_rank(s):
    local = s.locals()
    shape = local["image_shape"]
    assert shape.value == "TensorShape [None, 28, 28, 1] rank 4"
    children = s.child_map(shape)
    assert [children[f"[{i}]"].value for i in range(4)] == ["None", "28", "28", "1"]
    assert children["rank"].value == "4"
    assert assert_expressions_evaluate(s, shape) == 7
    assert local["unknown_shape"].value == "TensorShape <unknown rank>"


def test_specs(s):
    local = s.locals()
    assert local["spec"].value == "TensorSpec float32[None, 4] 'features'"
    children = s.child_map(local["spec"])
    assert children["shape"].value == "TensorShape [None, 4] rank 2"
    assert children["name"].value == "'features'"
    assert assert_expressions_evaluate(s, local["spec"], depth=2) >= 8
    assert local["ragged_spec"].value == "RaggedTensorSpec int32[None, None] ragged_rank=1"


def test_tensor_array_elements_without_reading_them(s):
    squares = s.locals()["squares"]
    assert squares.value == "TensorArray float32 size=3 element_shape=[2], 2 of 3 written"
    children = s.child_map(squares)
    assert children["[0]"].value.startswith("float32[2] x∈[1, 2] μ=1.5 σ=0.5 n=2 CPU:0")
    assert children["[1]"].value == "not written (or cleared after a read)"
    assert children["[2]"].value.startswith("float32[2] x∈[9, 16] μ=12.5 σ=3.5 n=2 CPU:0")
    assert assert_expressions_evaluate(s, squares) == 7


def test_list_of_symbolic_tensors_says_symbolic(s):
    assert s.locals()["symbolic_tensors"].value == (
        "[symbolic float32[32, 4], symbolic float32[32, 6]]"
    )


_ENDED: list[str] = []


def run_to_end(s: Stopped, timeout: float) -> str:
    """Continue the shared session to the program's end, once (the two tests below that
    read what it printed after the stop ask for it): everything it printed."""
    if not _ENDED:
        s.client.resume(s.thread_id)
        s.client.wait_event("terminated", timeout=timeout)
        _ENDED.append("".join(s.client.output))
    return _ENDED[0]


WARNINGS = ("PYDEV DEBUGGER WARNING", "sys.settrace()")


def test_looking_at_big_values_prints_no_debugger_warning(s):
    """Issue 32 item 4: a session that looks at big values (a Keras model, its optimizer and
    metrics, whose rows read the program's properties through the plugin's bounded calls,
    and a tensor of a million elements) prints no line that a plain run of the program
    lacks: pydevd's ``PYDEV DEBUGGER WARNING: sys.settrace() should not be used`` came from
    the bounded calls' worker thread, which replaced the debugger's trace function. (Its own
    session of kinds_training.py before, in test_no_debugger_warnings.py: it now looks last
    at this file's stop, after the tests above, and then lets the program end.)"""
    plain = subprocess.run(
        [sys.executable, program_path("kinds_training.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin"},
    )
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert not [w for w in WARNINGS if w in plain.stdout + plain.stderr]

    local = s.locals()
    for name in ("model", "optimizer", "mean_loss", "accuracy", "scaled", "loss_fn"):
        for row in s.children(local[name]):  # each row's kept attributes: bounded reads
            if row.reference and row.name in ("layers", "hidden", "out", "variables"):
                s.children(row)
    big = s.evaluate("tf.reshape(tf.range(1_000_000, dtype=tf.float32), [1000, 1000])")
    assert big["result"].startswith("float32[1000, 1000]"), big
    assert s.client.variables(int(big["variablesReference"]))  # its rows, read
    # the bounded calls ran on their worker thread (the warning's source before)
    workers = "len(__import__('tf_debug_repr.core.bounded', fromlist=['_workers'])._workers)"
    assert int(s.evaluate(workers, "repl")["result"]) >= 1
    output = run_to_end(s, timeout=120)
    assert "after 2.0 9.0" in output, output[-2000:]
    assert not [w for w in WARNINGS if w in output], output[-3000:]


def test_program_reads_its_tensor_array_afterwards(s):
    """Looking at the TensorArray read nothing: with clear_after_read, a read by the
    debugger would have emptied the elements the program reads next."""
    assert "after 2.0 9.0" in run_to_end(s, timeout=60)
