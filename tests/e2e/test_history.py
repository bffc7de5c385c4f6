"""End to end: a variable's history across stops (docs/history.md), in real debugpy
sessions: labelled by Keras fit's epoch and the optimizer's iterations, each figure the
value's own at that stop (computed by the program), exported to CSV, and looking at it
changes nothing in the program."""

from __future__ import annotations

import ast
import csv
import json
import math
import os
import re
import subprocess
import sys

import pytest

from ..conftest import program_path

pytestmark = pytest.mark.e2e

# The value's figures as the program itself computes them (float64 numpy), the ground truth.
TRUTH = (
    "__import__('json').dumps((lambda a, np: [float(a.min()), float(a.max()), float(a.mean()), "
    "float(a.std()), float(np.linalg.norm(a)), int(np.isnan(a).sum()), int(np.isinf(a).sum())])"
    "(({}).numpy().astype('float64'), __import__('numpy')))"
)
FIGURES = ("min", "max", "mean", "std", "norm", "nan", "inf")
HISTORY = "__import__('tf_debug_repr').history({})"


def _repl(s, expression: str):
    result = s.evaluate(expression, "repl")["result"]
    return json.loads(ast.literal_eval(result))


def _truth(s, expression: str) -> list[float]:
    return _repl(s, TRUTH.format(expression))


def _rows(s, expression: str) -> list[dict]:
    return _repl(s, f"__import__('json').dumps({HISTORY.format(expression)}.rows())")


def _same_figures(row: dict, truth: list[float]) -> None:
    for name, expected in zip(FIGURES, truth, strict=True):
        assert row[name] == pytest.approx(expected, rel=1e-9, abs=1e-12), (name, row, truth)


def _digest(s) -> str:
    s.client.resume(s.thread_id)
    s.client.wait_event("terminated", timeout=120)
    output = "".join(s.client.output)
    found = re.search(r"DIGEST ([0-9a-f]{64})", output)
    assert found, output[-2000:]
    return found.group(1)


def test_fit_history_by_epoch_equals_the_figures_at_each_stop(debug_session, tmp_path):
    s = debug_session("history_fit.py")
    bias = "self.model.get_layer('hidden').bias"
    # stop 1: the kernel in Watch, the bias hovered once: both kept from now on
    assert "Variable" in s.evaluate("kernel", "watch")["result"]
    assert "Variable" in s.evaluate(bias, "hover")["result"]
    truths = {"kernel": [], "bias": []}
    kernels = []
    steps = []
    for stop in range(1, 6):
        if stop > 1:
            s.resume_to_next_stop()
        # what the Variables pane shows at this stop: the kernel's row (the bias is not
        # asked about again: it is recorded with the first value shown at the stop)
        kernel_row = s.locals()["kernel"]
        truths["kernel"].append(_truth(s, "kernel"))
        kernels.append(_repl(s, "__import__('json').dumps(kernel.numpy().tolist())"))
        truths["bias"].append(_truth(s, bias))
        steps.append(_repl(s, "__import__('json').dumps(int(self.model.optimizer.iterations))"))
        spark = re.search(r"‖·‖([▁▂▃▄▅▆▇█ ]+) ", kernel_row.value)
        assert (spark is not None) == (stop >= 3), kernel_row.value
        if stop >= 3:
            assert len(spark.group(1)) == stop
        children = s.child_map(kernel_row)
        assert ("history" in children) == (stop >= 2), list(children)
    history_row = children["history"]
    assert history_row.evaluate_name == HISTORY.format("kernel")
    assert history_row.value.startswith("5 stops (step 4…20), ‖·‖ "), history_row.value
    entries = s.children(history_row)
    assert [e.name for e in entries[:5]] == [
        f"stop {n} · epoch {n - 1} · batch 3 · step {4 * n}" for n in range(1, 6)
    ]
    # the first stop against the last: the difference of the kernel's values (kept whole)
    assert entries[5].name == "compare stop 1 → 5", entries[5].name
    assert entries[5].evaluate_name == HISTORY.format("kernel") + ".compare(1, 5)"
    compared = s.child_map(entries[5])
    import numpy as np

    truth = np.array(kernels[-1], np.float64) - np.array(kernels[0], np.float64)
    assert float(compared["‖Δ‖"].value) == pytest.approx(np.linalg.norm(truth), rel=1e-12)
    assert (
        compared["difference"].value.startswith("array(")
        or "[4, 3]" in compared["difference"].value
    )
    assert s.evaluate(f"{compared['difference'].evaluate_name}.shape", "repl")["result"] == "(4, 3)"
    # the compiled step's gradient-norm ring: its 20 steps on the same axis
    assert entries[6].name == "∇‖g‖ by step (20)", entries[6].name
    assert s.evaluate(f"len({entries[6].evaluate_name}.series)", "repl")["result"] == "20"
    assert entries[6].value.startswith("…, 13: "), entries[6].value  # the last 8 steps
    assert s.evaluate(entries[6].evaluate_name)["result"] == entries[6].value
    norms = s.children(entries[6])
    assert [r.name for r in norms] == [f"step {k}" for k in range(1, 21)], norms
    assert s.evaluate(norms[-1].evaluate_name)["result"] == norms[-1].value
    # a row's expression gives that row again
    assert s.evaluate(entries[2].evaluate_name)["result"] == entries[2].value
    assert steps == [4, 8, 12, 16, 20]  # 4 batches an epoch

    for name, expression in (("kernel", "kernel"), ("bias", bias)):
        rows = _rows(s, expression)
        assert [r["epoch"] for r in rows] == [0, 1, 2, 3, 4], rows
        assert [r["step"] for r in rows] == steps
        assert [r["stop"] for r in rows] == [1, 2, 3, 4, 5]
        for row, truth in zip(rows, truths[name], strict=True):
            _same_figures(row, truth)
        assert len({r["norm"] for r in rows}) == 5  # the weights moved at every epoch
        assert all(r["grad_norm"] > 0 for r in rows), rows  # the gradient that made the step

    path = tmp_path / "kernel.csv"
    written = s.evaluate(f"{HISTORY.format('kernel')}.to_csv({str(path)!r})", "repl")["result"]
    assert "wrote 5 rows" in written, written
    with open(path, newline="") as f:
        table = list(csv.reader(f))
    header = table[0]
    for column in ("stop", "step", "epoch", *FIGURES):
        assert column in header
    assert len(table) == 6
    for line, truth, step in zip(table[1:], truths["kernel"], steps, strict=True):
        row = dict(zip(header, line, strict=True))
        assert int(row["step"]) == step
        _same_figures({k: float(row[k]) for k in FIGURES}, truth)
    npz = tmp_path / "kernel.npz"
    s.evaluate(f"{HISTORY.format('kernel')}.to_npz({str(npz)!r})", "repl")
    import numpy as np

    saved = np.load(npz)
    assert list(saved["epoch"]) == [0, 1, 2, 3, 4]
    assert saved["copies"].shape == (5, 12)  # a [4, 3] kernel: kept whole
    assert saved["norm"][-1] == pytest.approx(truths["kernel"][-1][4], rel=1e-9)

    looked = _digest(s)
    # the same program with nothing looked at: the same weights and losses, bit for bit
    quiet = debug_session("history_fit.py")
    for _ in range(4):
        quiet.resume_to_next_stop()
    assert _digest(quiet) == looked
    # and without a debugger at all
    plain = subprocess.run(
        [sys.executable, program_path("history_fit.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
        check=True,
    )
    assert f"DIGEST {looked}" in plain.stdout, (looked, plain.stdout[-500:])


def _watched_history_row(s, expression: str):
    """The ``history`` row under a Watch expression's tensor, or None."""
    found = s.evaluate(expression, "watch")
    assert found["variablesReference"], found
    rows = s.client.variables(found["variablesReference"])
    return next((r for r in rows if r.name == "history"), None)


def test_custom_loop_history_by_optimizer_iterations(debug_session):
    s = debug_session("history_loop.py")
    s.children(s.locals()["kernel"])  # expanded: kept from now on
    grads = []
    truths = []
    losses = []
    for stop in range(1, 5):
        if stop > 1:
            s.resume_to_next_stop()
        s.locals()
        watched = s.evaluate("loss", "watch")["result"]  # a new tensor at every stop
        assert bool(re.search("‖·‖[▁▂▃▄▅▆▇█]", watched)) == (stop >= 3), watched
        for expression in ("loss", "loss * 2"):  # a tensor kept by a name, and one that is not
            row = _watched_history_row(s, expression)
            assert (row is not None) == (stop >= 2), (stop, expression, row)
            if row is not None:
                assert row.value.startswith(f"{stop} stops (step 2…{2 * stop})"), row.value
                # the row's expression names the watch expression's record by its key
                file = program_path("history_loop.py")
                assert row.evaluate_name == (
                    f"__import__('tf_debug_repr').history(watch=({file!r}, '<module>', "
                    f"{expression!r}))"
                ), row.evaluate_name
                assert s.evaluate(row.evaluate_name)["result"] == row.value
        if stop == 1:  # the kernel as this stop saw it: the truth of the Compare below
            s.evaluate("__tfdr_first = kernel.numpy().astype('float64')", "repl")
        losses.append(float(s.evaluate("float(loss)", "repl")["result"]))
        truths.append(_truth(s, "kernel"))
        grads.append(
            float(
                s.evaluate(
                    "float(__import__('numpy').linalg.norm(__import__('tf_debug_repr')"
                    ".gradient_of(kernel).numpy().astype('float64')))",
                    "repl",
                )["result"]
            )
        )
    rows = _rows(s, "kernel")
    assert [r["step"] for r in rows] == [2, 4, 6, 8]
    assert [r["epoch"] for r in rows] == [None] * 4
    for row, truth in zip(rows, truths, strict=True):
        _same_figures(row, truth)
    # the compiled step's gradient-norm ring on the same step axis
    for row, grad in zip(rows, grads, strict=True):
        assert row["grad_norm"] == pytest.approx(grad, rel=1e-6), (row, grad)
    assert all(math.isfinite(r["grad_norm"]) for r in rows)
    summary = s.evaluate(HISTORY.format("kernel"))["result"]
    assert summary.startswith("4 stops (step 2…8)"), summary
    # the Watch expression `loss`: its tensors' history, stop by stop, by the same steps
    loss_rows = _rows(s, "loss")
    assert [r["step"] for r in loss_rows] == [2, 4, 6, 8]
    assert [r["mean"] for r in loss_rows] == pytest.approx(losses, rel=1e-7)
    assert [r["std"] for r in loss_rows] == [0.0] * 4
    assert s.evaluate(HISTORY.format("loss"))["result"].startswith("4 stops (step 2…8)")
    # what the tensor viewer fetches: the same history, on the step axis, with the ring
    from .test_viewer_payload import fetch

    found = fetch(s, "kernel")["history"]
    assert found["axis"] == "step" and found["x"] == [2, 4, 6, 8]
    series = dict(zip(found["figures"], found["series"], strict=True))
    assert series["norm"] == [r["norm"] for r in rows]
    assert series["grad_norm"] == [r["grad_norm"] for r in rows]
    assert found["grad_step"] == list(range(1, 9))  # every step's gradient, on the same axis
    # the History tab's Compare: the first stop against the last, by default (the kernel is
    # small: kept whole, in its own shape), and any two stops the page asks for, as VS Code
    # evaluates them
    from .test_viewer_payload import decode

    compare = found["compare"]
    stops = [r["stop"] for r in rows]
    assert (compare["a"], compare["b"]) == (stops[0], stops[-1])
    assert (compare["rows"], compare["cols"], compare["exact"]) == (5, 2, True)
    truth = s.evaluate(
        "__import__('json').dumps((kernel.numpy().astype('float64') - __tfdr_first).ravel()"
        ".tolist())",
        "repl",
    )["result"]
    assert compare["values"] == pytest.approx(json.loads(ast.literal_eval(truth)), abs=1e-7)
    asked = decode(
        s.evaluate(
            f"__import__('tf_debug_repr').view_history_compare((kernel), {stops[1]}, {stops[2]})",
            "clipboard",
        )["result"]
    )
    assert asked["error"] is None and (asked["compare"]["a"], asked["compare"]["b"]) == (
        stops[1],
        stops[2],
    )
    norm = next(r["norm"] for r in rows if r["stop"] == stops[2])
    assert asked["compare"]["changes"][asked["compare"]["figures"].index("norm")] == (
        pytest.approx(norm - rows[1]["norm"])
    )
