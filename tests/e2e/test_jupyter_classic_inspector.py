"""The classic Notebook's Variable Inspector (``jupyter_contrib_nbextensions``' varInspector):
its own kernel code (``varInspector/var_list.py``, read from the installed package) run in a
real ipykernel as its panel runs it (the script when the panel opens, then
``print(var_dic_list())`` after every cell, ``store_history=False``), before and after
``%load_ext tf_debug_repr``; the printed text parsed as its front end parses it
(``JSON.parse`` of the stream's text)."""

from __future__ import annotations

import importlib.util
import json
import os
from typing import Any

import pytest

pytestmark = pytest.mark.e2e
tf = pytest.importorskip("tensorflow")

REFRESH = "print(var_dic_list())"


def classic_script() -> str:
    """The Python the panel sends when it opens: ``var_list.py`` from the installed package
    (its ``lenName``/``lenType``/``lenVar`` replaced as main.js does; they do not occur)."""
    spec = importlib.util.find_spec("jupyter_contrib_nbextensions")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("jupyter_contrib_nbextensions is not installed")
    (where,) = spec.submodule_search_locations
    path = os.path.join(where, "nbextensions", "varInspector", "var_list.py")
    with open(path, encoding="utf-8") as f:
        return f.read()


def run(kernel, code: str) -> tuple[str, str | None, str | None]:
    """(stdout, the error's name, its value) of ``code`` sent as the panel sends it."""
    out, error, value = "", None, None
    for kind, content in kernel.messages(code, store_history=False):
        if kind == "stream" and content["name"] == "stdout":
            out += content["text"]
        elif kind == "error":
            error, value = content["ename"], content["evalue"]
    return out, error, value


def panel(kernel, code: str = REFRESH) -> list[dict[str, Any]]:
    text, error, value = run(kernel, code)
    assert error is None, (error, value)
    return json.loads(text)  # the front end: JSON.parse(String(msg.content['text']))


SETUP = """\
import numpy as np
import tensorflow as tf
from tensorflow import keras

# the seed article's example
w = tf.Variable(tf.random.normal((3, 2), seed=1), name="w")
b = tf.Variable(tf.zeros(2), name="b")
x = tf.constant([[1.0, 2.0, 3.0]])
with tf.GradientTape() as tape:
    y = x @ w + b
    loss = tf.reduce_mean(y ** 2)
grads = tape.gradient(loss, [w, b])

model = keras.Sequential([keras.layers.Dense(4, input_shape=(3,), name="hidden"),
                          keras.layers.Dense(1, name="out")])
layer = model.layers[0]
bad = tf.constant([1.0, float("nan"), float("nan"), 2.0])
long = tf.range(200)
a = np.arange(6.0).reshape(2, 3)
s = "<b>not markup</b>"
numbers = [1, 2, 3]
n = 5
"""
OTHERS = ("a", "numbers", "n")


def test_classic_inspector_rows_for_tf_values_and_no_error_for_any_value(kernel):
    kernel.messages(SETUP)
    script = classic_script()
    assert "def var_dic_list():" in script and "def _getcontentof(x):" in script

    # as it is: its own refresh raises on a short value (a tensor, a string), the panel empty
    text, error, value = run(kernel, script)
    assert error == "UnboundLocalError" and "content" in str(value), (error, value)
    assert run(kernel, REFRESH)[1] == "UnboundLocalError"

    kernel.messages("%load_ext tf_debug_repr")
    # the panel opens again: the script's own last line now prints our table
    opened = panel(kernel, script)
    rows = {r["varName"]: r for r in panel(kernel)}
    assert [r["varName"] for r in opened] == list(rows)
    for r in rows.values():  # the five fields the front end reads, all strings
        assert set(r) == {"varName", "varType", "varSize", "varShape", "varContent"}, r
        assert all(isinstance(v, str) for v in r.values()), r

    x = rows["x"]
    assert (x["varType"], x["varSize"], x["varShape"]) == ("EagerTensor", "12", "1 x 3")
    assert x["varContent"].startswith("float32[1, 3] x∈[1, 3]"), x["varContent"]
    wr = rows["w"]
    assert (wr["varSize"], wr["varShape"]) == ("24", "3 x 2")
    assert wr["varContent"].startswith("float32[3, 2]") and "Variable 'w'" in wr["varContent"]
    # the gradients beside their variables: grads, then grads[0] and grads[1]
    names = [r["varName"] for r in panel(kernel)]
    at = names.index("grads")
    assert names[at : at + 3] == ["grads", "grads[0]", "grads[1]"]
    assert (rows["grads"]["varSize"], rows["grads"]["varShape"]) == ("32", "2 items")
    assert rows["grads[0]"]["varContent"].startswith("float32[3, 2]")
    assert rows["grads[1]"]["varShape"] == "2"
    m = rows["model"]
    assert (m["varType"], m["varSize"], m["varShape"]) == ("Sequential", "84", "21 parameters")
    assert m["varContent"]
    assert (rows["layer"]["varType"], rows["layer"]["varShape"]) == ("Dense", "16 parameters")
    assert rows["bad"]["varContent"].startswith("float32[4] ‼ NaN×2"), rows["bad"]["varContent"]
    # longer than 150: its row, not str(x[:150]) (an op on the tensor)
    assert (rows["long"]["varSize"], rows["long"]["varShape"]) == ("800", "200")
    assert rows["long"]["varContent"].startswith("int32[200]")
    assert rows["loss"]["varShape"] == "" and rows["loss"]["varContent"].endswith(" float32 CPU:0")
    # the device, as the plugin says it
    assert run(kernel, "print(x.device)")[0].strip().endswith("CPU:0")
    assert " CPU:0" in x["varContent"] and " CPU:0" in wr["varContent"]
    # other values: the Inspector's own row; a short string no longer raises and is text
    assert rows["s"]["varContent"] == "&lt;b&gt;not markup&lt;/b&gt;"
    assert rows["numbers"]["varContent"] == "[1, 2, 3]"
    assert rows["a"]["varSize"] == "48" and rows["a"]["varShape"] == "(2, 3)"

    # unchanged since the last refresh: the same rows
    assert panel(kernel) == panel(kernel)
    # a changed variable reads its new values; a new tensor under an old name its own row
    kernel.messages('w.assign(tf.fill((3, 2), float("nan")))\nx = tf.ones((5, 7))')
    again = {r["varName"]: r for r in panel(kernel)}
    assert again["w"]["varContent"].startswith("float32[3, 2] ‼ NaN×6"), again["w"]
    assert (again["x"]["varSize"], again["x"]["varShape"]) == ("140", "5 x 7")

    # a model's row is kept between refreshes (its counts, its gradient's mark), and made
    # again after a training step (the mark) and after its structure changed (the counts)
    before = again["model"]["varContent"]
    assert panel(kernel) == panel(kernel)
    step = (
        "with tf.GradientTape() as t:\n"
        "    l = tf.reduce_mean(model(tf.ones((2, 3))) ** 2)\n"
        "opt.apply_gradients(zip(t.gradient(l, model.trainable_variables), "
        "model.trainable_variables))"
    )
    kernel.messages("opt = keras.optimizers.Adam()\n" + step)
    first = {r["varName"]: r for r in panel(kernel)}["model"]["varContent"]
    assert first != before and "∇" in first, (before, first)
    kernel.messages(step)
    second = {r["varName"]: r for r in panel(kernel)}["model"]["varContent"]
    assert second != first and "∇" in second, (first, second)
    kernel.messages("model.add(keras.layers.Dense(2, name='more'))\n_ = model(tf.ones((1, 3)))")
    grown = {r["varName"]: r for r in panel(kernel)}["model"]
    assert grown["varShape"] == "25 parameters", grown

    # unloaded: the Inspector's own code again (and its error)
    kernel.messages("%unload_ext tf_debug_repr")
    assert run(kernel, script)[1] == "UnboundLocalError"
