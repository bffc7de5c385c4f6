"""``%tf_history`` in a real ipykernel (jupyter_client): a variable's figures recorded at
each cell that asks, as an HTML table and SVG line plots, the variable's name escaped."""

from __future__ import annotations

import html
import json
import re

import pytest

pytestmark = pytest.mark.e2e
tf = pytest.importorskip("tensorflow")

SETUP = """\
import numpy as np
import tensorflow as tf
import keras
%load_ext tf_debug_repr

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
optimizer = keras.optimizers.SGD(0.01)
marked = tf.Variable([1.0, 2.0], name="<script>alert(1)</script>")

def step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(tf.ones((2, 4))) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
"""
TRUTH = (
    "import json; a = model.layers[0].kernel.numpy().astype('float64'); "
    "print('TRUTH', json.dumps([float(a.min()), float(a.max()), float(a.mean()), "
    "float(a.std()), float(np.linalg.norm(a))]))"
)


def messages(kernel, code: str) -> list[tuple[str, dict]]:
    found = kernel.messages(code)
    for kind, content in found:
        if kind == "error":
            raise AssertionError("\n".join(content["traceback"]))
    return found


def result(kernel, code: str) -> dict:
    (found,) = [c for k, c in messages(kernel, code) if k == "execute_result"]
    return found["data"]


def truth(kernel) -> list[float]:
    out = "".join(c.get("text", "") for k, c in messages(kernel, TRUTH) if k == "stream")
    return json.loads(out.split("TRUTH", 1)[1])


def test_tf_history_table_and_plots_over_cells(kernel):
    messages(kernel, SETUP)
    truths = []
    for _ in range(3):
        messages(kernel, "step()")
        truths.append(truth(kernel))
        data = result(kernel, "%tf_history model.layers[0].kernel")
    page = data["text/html"]
    assert "history of sequential/dense/kernel: 3 stops (step 1…3)" in html.unescape(page), page
    rows = [
        [html.unescape(t) for t in re.findall(r"<td[^>]*>(.*?)</td>", body)]
        for body in re.findall(r"<tr>(.*?)</tr>", page)
    ]
    rows = [r for r in rows if r]
    assert [r[1] for r in rows] == ["1", "2", "3"]  # the optimizer's iterations
    for row, expected in zip(rows, truths, strict=True):
        shown = [float(v) for v in row[4:9]]  # min max mean std norm, 6 significant digits
        assert shown == pytest.approx(expected, rel=1e-5)
    # min max mean std norm, and the norm of the gradient that made each step (gradient
    # capture is on once the extension is loaded)
    assert page.count("<svg") == 6 and page.count("<polyline") == 6
    assert all(float(r[-1]) > 0 for r in rows), rows
    assert "step" in data["text/plain"] and "norm" in data["text/plain"]

    # the debuggee's text is data: the name is escaped, never markup
    page = result(kernel, "%tf_history marked")["text/html"]
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
