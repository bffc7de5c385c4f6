"""``%tf_table`` in a real ipykernel (jupyter_client): the table as a cell's result, then
live: one display that a post_run_cell hook updates after each cell (update_display_data
messages), with what changed since the previous cell."""

from __future__ import annotations

import html
import re

import pytest

pytestmark = pytest.mark.e2e
tf = pytest.importorskip("tensorflow")

SETUP = """\
import numpy as np
import tensorflow as tf
import keras
import tf_debug_repr
%load_ext tf_debug_repr
tf_debug_repr.set_gradient_capture(True)

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
optimizer = keras.optimizers.SGD(0.1)
bad = tf.constant([[1.0, float("nan")], [3.0, float("inf")]])
scale = tf.Variable(tf.ones((3, 4)), name="scale")
plain = np.zeros(3)

def step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(tf.ones((2, 4))) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return grads

grads = step()
"""


def messages(kernel, code: str) -> list[tuple[str, dict]]:
    """(msg_type, content) of the iopub messages of ``code``, up to idle."""
    found = kernel.messages(code)
    for kind, content in found:
        if kind == "error":
            raise AssertionError("\n".join(content["traceback"]))
    return found


def table_rows(page: str) -> dict[str, list[str]]:
    """name -> the row's shown cells, read from the HTML."""
    rows = {}
    for body in re.findall(r"<tr>(.*?)</tr>", page):
        texts = [html.unescape(t) for t in re.findall(r"<td[^>]*>(.*?)</td>", body)]
        if texts:  # the head row has <th> cells
            rows[texts[0]] = texts
    return rows


def test_table_of_tf_values_then_live_updates_after_each_cell(kernel):
    messages(kernel, SETUP)
    (result,) = [c for k, c in messages(kernel, "%tf_table") if k == "execute_result"]
    rows = table_rows(result["data"]["text/html"])
    assert set(rows) == {"model", "optimizer", "bad", "scale", "grads[0]", "grads[1]"}
    assert rows["bad"][1:8] == [
        "eager tensor",
        "float32",
        "[2, 2]",
        "CPU:0",
        "16 B",
        "[1, 3]",
        "NaN×1 +Inf×1",
    ]
    assert rows["scale"][5] == "48 B" and rows["scale"][6] == "[1, 1]"
    assert rows["model"][1] == "Sequential" and rows["model"][3] == "15 params"
    assert rows["model"][8].endswith("@SGD iteration 0") and float(rows["model"][8].split()[0]) > 0
    assert rows["grads[0]"][3] == "[4, 3]"
    assert all(r[9] == "new" for r in rows.values())
    assert result["data"]["text/plain"].splitlines()[0].startswith("name ")
    sorted_rows = messages(kernel, "%tf_table --sort bytes")[-1][1]["data"]["text/html"]
    # largest first, ties in the names' order: 60, 48, 48, 16, 12, 12 bytes
    assert list(table_rows(sorted_rows)) == [
        "model",
        "grads[0]",
        "scale",
        "bad",
        "grads[1]",
        "optimizer",
    ]

    shown = messages(kernel, "%tf_table live")
    (display,) = [c for k, c in shown if k == "display_data"]
    display_id = display["transient"]["display_id"]
    assert all(r[9] == "same" for r in table_rows(display["data"]["text/html"]).values())

    updates = [
        c
        for k, c in messages(kernel, "grads = step(); scale.assign_add(tf.ones((3, 4)))")
        if k == "update_display_data"
    ]
    assert len(updates) == 1 and updates[0]["transient"]["display_id"] == display_id
    rows = table_rows(updates[0]["data"]["text/html"])
    assert rows["scale"][6] == "[2, 2]" and rows["scale"][9] == "changed, Δμ=1"
    assert rows["model"][9] == "2 of 2 weights changed"
    assert rows["model"][8].endswith("@SGD iteration 1")
    assert rows["bad"][9] == "same"

    messages(kernel, "%tf_table off")
    assert not [k for k, _ in messages(kernel, "x = 1") if k == "update_display_data"]


INSPECTED = """\
import numpy as np
import tensorflow as tf
import keras
%load_ext tf_debug_repr

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(2)])
model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
features = np.random.default_rng(0).normal(size=(16, 4)).astype("float32")
targets = np.random.default_rng(1).normal(size=(16, 2)).astype("float32")
w = tf.Variable(tf.ones((2, 3)))
x = tf.constant([2.0, 6.0])
"""
TRAIN = """\
history = model.fit(features, targets, epochs=1, verbose=0)
w.assign_add(0.25 * tf.ones((2, 3)))
x = x * 2
"""


def shown(found: list[tuple[str, dict]]) -> dict[str, list[str]] | None:
    """The rows of the last update of the live table among ``found``, None without one."""
    updates = [c for k, c in found if k == "update_display_data"]
    return table_rows(updates[-1]["data"]["text/html"]) if updates else None


def test_live_table_counts_changes_between_the_users_cells_across_inspector_queries(kernel):
    from .test_jupyter_inspector import MATRIX, QUERY, inspector_script

    def inspector(code: str) -> list[tuple[str, dict]]:
        # what the Inspector's front end sends after each cell: not silent, no history
        return messages_of(kernel, code, store_history=False)

    messages(kernel, INSPECTED)
    inspector(inspector_script())
    messages(kernel, "%tf_table live")
    assert shown(inspector(QUERY)) is None  # the query leaves the table as it is

    after_cell = shown(messages(kernel, TRAIN))
    assert after_cell is not None
    later = inspector(QUERY) + inspector(MATRIX.format("w")) + inspector(QUERY)
    assert shown(later) is None  # no refresh, no second look: the cell's table stands
    kernel.client.complete("x.sha", 5)  # a completion is no cell at all
    # JupyterLab's debugger, attached, asks for the variables and renders one (no stop)
    from .test_jupyter import JUPYTERLAB

    kernel.debug("initialize", {**JUPYTERLAB, "pathFormat": "path", "linesStartAt1": True})
    kernel.debug("attach")
    kernel.debug("debugInfo")
    kernel.debug("configurationDone")
    assert "w" in [v["name"] for v in kernel.debug("inspectVariables")["variables"]]
    rich = kernel.debug("richInspectVariables", {"variableName": "w"})
    assert rich["data"]["text/plain"].startswith("float32[2, 3]")
    assert not stray_updates(kernel)
    assert after_cell["x"][3] == "[2]" and after_cell["x"][9] == "changed, Δμ=4"
    assert after_cell["w"][9] == "changed, Δμ=0.25"
    assert after_cell["model"][9] == "4 of 4 weights changed"

    # the next cell changes nothing: every row reads "same", compared with TRAIN's look
    quiet = shown(messages(kernel, "n = 1"))
    assert quiet is not None and {r[9] for r in quiet.values()} == {"same"}
    inspector(QUERY)
    again = shown(messages(kernel, "x = x + 1"))
    assert again is not None and again["x"][9] == "changed, Δμ=1" and again["w"][9] == "same"


def stray_updates(kernel, seconds: float = 2.0) -> list[dict]:
    """update_display_data messages arriving on iopub within ``seconds``, whoever caused them."""
    import queue
    import time

    found, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            msg = kernel.client.get_iopub_msg(timeout=0.2)
        except queue.Empty:
            continue
        if msg["msg_type"] == "update_display_data":
            found.append(msg["content"])
    return found


def messages_of(kernel, code: str, store_history: bool) -> list[tuple[str, dict]]:
    found = kernel.messages(code, store_history=store_history)
    for kind, content in found:
        if kind == "error":
            raise AssertionError("\n".join(content["traceback"]))
    return found


ARTICLE = """\
import tensorflow as tf
import keras

model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
optimizer = keras.optimizers.Adam(0.01)
w = tf.Variable([[0.5, -1.0], [2.0, 1.5]], name="w")
data = tf.constant([[1.0, 2.0, 3.0]])

def train():
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(data) @ w)
    grads = tape.gradient(loss, model.trainable_variables + [w])
    optimizer.apply_gradients(zip(grads, model.trainable_variables + [w]))
    return grads

grads = train()  # before %load_ext: nobody asked for capture yet
"""
CAPTURE = "__import__('tf_debug_repr.gradients.capture').gradients.capture"


def test_load_ext_is_consent_to_capture_gradients_and_unload_stops_it(kernel):
    messages(kernel, ARTICLE)
    probe = {"on": f"{CAPTURE}.enabled()", "records": f"{CAPTURE}.live_records()"}
    assert kernel.execute("", {"n": f"{CAPTURE}.live_records()"})["n"] == "0"

    messages(kernel, "%load_ext tf_debug_repr")
    (result,) = [c for k, c in messages(kernel, "%tf_table") if k == "execute_result"]
    page = result["data"]["text/html"]
    assert all(r[8] == "" for r in table_rows(page).values())  # computed before consent
    assert "‖∇‖ shows gradients computed since %load_ext tf_debug_repr: run the training" in (
        html.unescape(page)
    )

    messages(kernel, "grads = train()")
    (result,) = [c for k, c in messages(kernel, "%tf_table") if k == "execute_result"]
    page = html.unescape(result["data"]["text/html"])
    rows = table_rows(result["data"]["text/html"])
    assert float(rows["w"][8].split()[0]) > 0 and rows["w"][8].endswith("@Adam iteration 1")
    assert float(rows["model"][8].split()[0]) > 0
    assert "‖∇‖" not in page.split("</table>")[1]  # no note under a filled column
    norm = kernel.execute("", {"n": "float(tf.linalg.global_norm(grads[2:]))"})["n"]
    assert rows["w"][8].split()[0] == kernel.execute(
        "", {"t": f"__import__('tf_debug_repr.core.formatting').core.formatting.number({norm})"}
    )["t"].strip("'")

    messages(kernel, "%unload_ext tf_debug_repr")
    assert kernel.execute("", probe)["on"] == "False"
    latest = {"l": f"str({CAPTURE}.record_of(w).latest.label)"}
    assert kernel.execute("", latest)["l"] == "'Adam iteration 1'"
    messages(kernel, "grads = train()")
    assert kernel.execute("", latest)["l"] == "'Adam iteration 1'"  # nothing new recorded
    messages(kernel, "%load_ext tf_debug_repr\ngrads = train()")
    assert kernel.execute("", latest)["l"] == "'Adam iteration 3'"  # consent again
