"""The JupyterLab Variable Inspector's own kernel script, taken from the installed
``lckr_jupyterlab_variableinspector`` package, run in a real ipykernel before and after
``%load_ext tf_debug_repr``: its query (the panel's rows) and its grid command, parsed as the
Inspector's front end parses them."""

from __future__ import annotations

import ast
import glob
import json
import os
import re
import sys

import pytest

pytestmark = pytest.mark.e2e
tf = pytest.importorskip("tensorflow")
pytest.importorskip("lckr_jupyterlab_variableinspector")

QUERY = "_jupyterlab_variableinspector_dict_list()"
MATRIX = "_jupyterlab_variableinspector_getmatrixcontent({}, 100000)"


def inspector_script() -> str:
    """The Python the Inspector injects (its ``py_script``), from its JupyterLab bundle."""
    static = os.path.join(
        sys.prefix, "share/jupyter/labextensions/@lckr/jupyterlab_variableinspector/static"
    )
    for path in glob.glob(os.path.join(static, "*.js")):
        with open(path, encoding="utf-8") as f:
            source = f.read()
        found = re.search(r"py_script='((?:[^'\\]|\\.)*)'", source)
        if found:
            return ast.literal_eval("'" + found.group(1) + "'")  # JS escapes are Python's here
    raise AssertionError(f"no py_script in {static}")


def front_end_json(text: str) -> object:
    """What the Inspector's front end does with the execute_result's text/plain."""
    if text[:1] in "'\"":
        text = text[1:-1].replace('\\"', '"').replace("\\'", "'")
    return json.loads(text)


def matrix_json(text: str) -> object:
    """performMatrixInspection's parsing (it differs from the query's)."""
    text = re.sub(r"^'|'$", "", text).replace('\\"', '"').replace("\\'", "\\\\'")
    return json.loads(text)


def execute(kernel, code: str, silent: bool = False) -> tuple[str | None, str | None]:
    """(the execute_result's text/plain, the error's name) of ``code``."""
    result = error = None
    for kind, content in kernel.messages(code, silent=silent):
        if kind == "execute_result":
            result = content["data"]["text/plain"]
        elif kind == "error":
            error = content["ename"]
    return result, error


def rows(kernel) -> dict[str, dict]:
    text, error = execute(kernel, QUERY)
    assert error is None and text is not None, error
    return {row["varName"]: row for row in front_end_json(text)}


def grid(kernel, name: str) -> dict:
    text, error = execute(kernel, MATRIX.format(name))
    assert error is None and text is not None, (name, error)
    return matrix_json(text)


SETUP = """\
import json
import numpy as np
import pandas as pd
import tensorflow as tf
import keras

t = tf.reshape(tf.range(24.0), (2, 3, 4))
v = tf.Variable([[1.0, float("nan")], [3.0, 4.0]], name="weights")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
optimizer = keras.optimizers.Adam(0.01)
metric = keras.metrics.Mean()
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(tf.ones((2, 4))))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
metric.update_state(loss)
w = model.layers[0].kernel
a = np.arange(6.0).reshape(2, 3)
df = pd.DataFrame({"x": [1, 2]})
n = 5
s = "text"
numbers = [1, 2, 3]
"""
OTHERS = ("a", "df", "n", "s", "numbers")


def test_inspector_rows_and_grids_for_tf_values_whichever_comes_first(kernel):
    execute(kernel, SETUP)
    script = inspector_script()
    assert "def _jupyterlab_variableinspector_dict_list" in script
    execute(kernel, script, silent=True)  # the panel opens

    stock = rows(kernel)
    assert stock["t"]["varSize"] != "96" and "model" not in stock and "w" not in stock
    assert stock["v"]["varSize"] == "?"
    assert execute(kernel, MATRIX.format("t"))[1] is not None  # the stock grid raises
    stock_grid = grid(kernel, "a")

    execute(kernel, "%load_ext tf_debug_repr")
    ours = rows(kernel)
    for name in OTHERS:  # nothing else changes
        assert ours[name] == stock[name], name

    t = ours["t"]
    assert (t["varType"], t["varSize"], t["varShape"]) == ("EagerTensor", "96", "2 x 3 x 4")
    assert t["varContent"].startswith("float32[2, 3, 4]") and "n=24" in t["varContent"]
    assert t["isMatrix"] is True
    v = ours["v"]
    assert (v["varSize"], v["varShape"]) == ("16", "2 x 2")
    assert v["varContent"].startswith("float32[2, 2] ‼ NaN×1")
    assert v["varContent"].endswith(" Variable 'weights'")
    w = ours["w"]
    assert (w["varType"], w["varSize"], w["varShape"]) == ("Variable", "48", "4 x 3")
    assert "float32[4, 3]" in w["varContent"] and w["isMatrix"] is True
    m = ours["model"]
    assert (m["varType"], m["varSize"], m["varShape"]) == ("Sequential", "60", "15 parameters")
    assert m["isMatrix"] is True and m["varContent"]
    assert ours["optimizer"]["varType"] == "Adam"
    assert ours["optimizer"]["varShape"].endswith("variables")
    assert int(ours["optimizer"]["varSize"]) >= 2 * 60  # two slots per weight
    assert ours["metric"]["varType"] == "Mean"
    g = ours["grads"]
    assert (g["varSize"], g["varShape"]) == ("60", "2 items")
    assert g["varContent"].startswith("[float32[4, 3]")

    # the grid: a 2-D slice of a 3-D tensor, named as it is cut
    table = grid(kernel, "t")
    fields = [f["name"] for f in table["schema"]["fields"]]
    assert fields == ["[0, :, :]", "0", "1", "2", "3"]
    assert [[r[c] for c in fields[1:]] for r in table["data"]] == [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [8, 9, 10, 11],
    ]
    table = grid(kernel, "v")
    assert [[r["0"], r["1"]] for r in table["data"]] == [[1, "NaN"], [3, 4]]
    table = grid(kernel, "w")
    kernel_values = json.loads(execute(kernel, "json.dumps(w.numpy().tolist())")[0][1:-1])
    assert len(table["data"]) == 4
    for row, expected in zip(table["data"], kernel_values, strict=True):
        assert [row[str(c)] for c in range(3)] == pytest.approx(expected, rel=1e-6)
    table = grid(kernel, "model")
    assert [r["shape"] for r in table["data"]] == ["4 x 3", "3"]
    assert [r["bytes"] for r in table["data"]] == [48, 12]
    assert table["data"][0]["name"].endswith("kernel")
    assert [r["shape"] for r in grid(kernel, "grads")["data"]] == ["4 x 3", "3"]
    assert grid(kernel, "a") == stock_grid

    # the panel reopened (or the kernel restarted): the script runs again, rows stay ours
    execute(kernel, script, silent=True)
    assert rows(kernel)["model"]["varSize"] == "60"

    # unloaded: the Inspector's own answers again
    execute(kernel, "%unload_ext tf_debug_repr")
    assert rows(kernel) == stock

    # the extension first, then the Inspector's script
    execute(kernel, "%load_ext tf_debug_repr")
    execute(kernel, script, silent=True)
    again = rows(kernel)
    assert again["t"]["varSize"] == "96" and again["model"]["varShape"] == "15 parameters"
    assert grid(kernel, "v")["data"][1] == {"[:, :]": 1, "0": 3, "1": 4}


CONTAINERS = """\
import json
import tensorflow as tf
%load_ext tf_debug_repr

w = tf.Variable([[1.5, -2.0], [0.25, 4.0], [8.0, 3.0]], name="w")
b = tf.Variable([0.5, -0.5], name="b")
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.ones((1, 3)) @ w + b)
grads = tape.gradient(loss, [w, b])
named = {"dense/kernel": w, "odd'key": b}
tensors = [tf.fill((4,), float(i)) for i in range(2000)]
by_name = {f"t{i}": t for i, t in enumerate(tensors)}
many = [tensors[0]] * 25_000
"""


def test_items_of_a_list_of_tensors_open_in_the_grid_and_big_containers_keep_their_rows(kernel):
    execute(kernel, CONTAINERS)
    execute(kernel, inspector_script(), silent=True)
    found = rows(kernel)
    names = list(found)
    # each tensor of grads gets a row right after it, named as the expression that reads it
    at = names.index("grads")
    assert names[at : at + 3] == ["grads", "grads[0]", "grads[1]"]
    assert (found["grads[0]"]["varShape"], found["grads[0]"]["isMatrix"]) == ("3 x 2", True)
    assert found["grads[0]"]["varContent"].startswith("float32[3, 2]")
    # a safe key is written in double quotes; a key with a quote gets no row (it would be code)
    assert found['named["dense/kernel"]']["varType"] == "ResourceVariable"
    assert not [n for n in names if n.startswith("named[") and "odd" in n]
    # the Inspector's grid request for that row, as its front end sends it
    table = grid(kernel, "grads[0]")
    kernel_values = json.loads(execute(kernel, "json.dumps(grads[0].numpy().tolist())")[0][1:-1])
    assert [[r["0"], r["1"]] for r in table["data"]] == kernel_values == [[1, 1]] * 3
    assert [r["1"] for r in grid(kernel, 'named["dense/kernel"]')["data"]] == [-2, 4, 3]
    # a delete from the panel deletes what the row names
    text, error = execute(kernel, "_jupyterlab_variableinspector_deletevariable('grads[1]')")
    assert error is None and "grads[1]" not in rows(kernel)

    # 2,000 tensors in a list and in a dict: their bytes, their count, not the Inspector's row
    for name in ("tensors", "by_name"):
        row = found[name]
        assert (row["varSize"], row["varShape"], row["isMatrix"]) == ("32000", "2,000 items", True)
        assert row["varContent"].startswith("2,000 tensors, 31.2 KiB: "), row["varContent"]
        assert "… 1,992 more" in row["varContent"]
    assert "float32[4]" in found["tensors"]["varContent"]
    assert "'t0': float32[4]" in found["by_name"]["varContent"]
    item_rows = [found[n] for n in names if n.startswith("tensors[")]
    assert len(item_rows) == 32  # the first 32 get rows
    # 16 item rows a query get figures, the shortest containers' first (grads, named); the
    # rest read their metadata, and their grids their numbers
    figured = [n for n in names if "[" in n and "x∈" in found[n]["varContent"]]
    assert len(figured) == 16 and {"grads[0]", "grads[1]", 'named["dense/kernel"]'} <= set(figured)
    assert item_rows[31]["varContent"] == "float32[4] CPU:0 (figures: open its grid)"
    assert grid(kernel, "tensors[31]")["data"][0]["0"] == 31
    # past 10,000 items: read from a sample, and the row says so
    row = found["many"]
    assert (row["varSize"], row["varShape"]) == ("400000", "25,000 items")
    assert row["varContent"].startswith(
        "25,000 tensors, ~391 KiB (read from 1,000 items spread over them): [float32[4]"
    )
    # the container's own grid: one row per item, bounded
    table = grid(kernel, "tensors")
    assert len(table["data"]) == 1001 and table["data"][-1]["name"] == "… 1,000 more items"
    assert table["data"][7]["summary"].startswith("float32[4] x∈[7, 7] μ=7")
