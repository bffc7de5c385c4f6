"""``%tf_activations`` and a displayed ``layer_output(...)`` in a real ipykernel
(jupyter_client): each layer's output in a compiled ``fit``'s last step as a cell's output,
its figures those of a recompute of the layer on that step's batch from the weights before
the step, its dead-ReLU and saturation counts, a small picture; debuggee text escaped."""

from __future__ import annotations

import html
import json
import re

import pytest

from .test_jupyter_history import messages, result

pytestmark = pytest.mark.e2e
tf = pytest.importorskip("tensorflow")

SETUP = """\
import numpy as np
import tensorflow as tf
import keras
import tf_debug_repr
%load_ext tf_debug_repr

# Grappler fuses MatMul+BiasAdd+Tanh in graphs, rounding unlike eager ops: off, the
# compiled step's outputs equal an eager recompute bit for bit
tf.config.optimizer.set_experimental_options({"remapping": False})
keras.utils.set_random_seed(3)
x = np.random.rand(64, 12).astype("float32")
y = np.random.rand(64, 1).astype("float32")
Odd = type("<i>Odd</i>", (keras.layers.Dense,), {})  # a class name that is markup


def build():
    return keras.Sequential([
        keras.Input((12,)),
        Odd(32, activation="relu", name="hidden"),
        keras.layers.Dense(16, activation="tanh", name="squash"),
        keras.layers.Dense(1, activation="sigmoid", name="out"),
    ])


class Keep(keras.callbacks.Callback):
    def on_train_batch_begin(self, batch, logs=None):
        self.before = [w.numpy() for w in self.model.weights]


model = build()
model.compile(optimizer="adam", loss="mse")
keep = Keep()
model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0, callbacks=[keep])

clone = build()
clone.set_weights(keep.before)
h = tf.constant(x[48:])
expected = []
for layer in clone.layers:
    h = layer(h)
    expected.append(h.numpy())
"""
TRUTH = """\
import json
print("TRUTH", json.dumps([
    [float(a.min()), float(a.max()), float(a.mean()), float(a.std()), int((a == 0).sum())]
    for a in expected
]))
print("SAME", [bool(np.array_equal(tf_debug_repr.layer_output(l).numpy(), e))
               for l, e in zip(model.layers, expected)])
"""


def _rows(page: str) -> list[list[str]]:
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        # a cell's text: its markup (ours) dropped, its escaped text read back
        rows.append([html.unescape(re.sub(r"<[^>]+>", "", c)) for c in cells[:8]] + cells[8:])
    return rows


def test_tf_activations_of_a_compiled_fit_step(kernel):
    messages(kernel, SETUP)
    out = "".join(c.get("text", "") for k, c in messages(kernel, TRUTH) if k == "stream")
    truths = json.loads(out.split("TRUTH", 1)[1].split("\n", 1)[0])
    # the values themselves, bit for bit what the layers produced in the last step
    assert "SAME [True, True, True]" in out, out

    data = result(kernel, "%tf_activations model")
    page = data["text/html"]
    assert "activations of sequential (Sequential): 3 of 3 layers kept" in html.unescape(page)
    rows = _rows(page)
    assert [r[0] for r in rows] == ["hidden (<i>Odd</i>)", "squash (Dense)", "out (Dense)"]
    # the debuggee's text is data: the class name is escaped, never markup
    assert "<i>Odd" not in page and "&lt;i&gt;Odd&lt;/i&gt;" in page
    for row, truth, shape in zip(rows, truths, ("[16, 32]", "[16, 16]", "[16, 1]"), strict=True):
        assert row[1] == "compiled step 'one_step_on_data'", row
        assert row[2] == f"float32{shape}", row
        shown = [float(v) for v in row[3:7]]  # min max mean std, 4 significant digits
        assert shown == pytest.approx(truth[:4], rel=1e-3, abs=1e-6), (row, truth)
        assert row[8].count("<img") == 1, row[8]  # its small picture: one PNG
    zeros = truths[0][4]
    assert rows[0][7].startswith(f"dead ReLU: {100 * zeros / (16 * 32):.0f}% zeros"), rows[0]
    assert rows[1][7].startswith("saturated ") and "|y|>0.99" in rows[1][7], rows[1]
    assert rows[2][7].startswith("saturated ") and "<0.01 or >0.99" in rows[2][7], rows[2]
    text = data["text/plain"]
    assert "hidden (<i>Odd</i>): float32[16, 32] (compiled step 'one_step_on_data')" in text, text

    # one layer's output as a cell's result: what it is, its counts, its picture
    data = result(kernel, "tf_debug_repr.layer_output(model.layers[0])")
    page = data["text/html"]
    assert "<b>hidden → output (compiled step &#x27;one_step_on_data&#x27;)</b>" in page, page
    assert f"dead ReLU: {100 * zeros / (16 * 32):.0f}% zeros" in page
    assert "<img" in page  # a [16, 32] value is drawn
    assert data["text/plain"].startswith("hidden → output (compiled step 'one_step_on_data')\n")

    # a layer no step ran: a line saying why, not a dataclass's repr
    data = result(kernel, "tf_debug_repr.layer_output(keras.layers.Dense(2))")
    assert data["text/plain"].startswith("no output kept: no step that ran this layer"), data
