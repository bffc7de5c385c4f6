"""End to end in a real ipykernel, driven through jupyter_client as JupyterLab drives it.

ipykernel imports debugpy (so pydevd, so this plugin) in every kernel. Without a debugger
client the plugin must install nothing: TF's own ``GradientTape.gradient`` and Keras's
``apply``, no records. Once JupyterLab's debugger attaches (``debug_request`` messages on
the control channel), gradients are captured as in VS Code and the adapter socket has
TCP_NODELAY (``debugpy.listen()`` path)."""

from __future__ import annotations

import os
import queue
import time

import pytest

pytestmark = pytest.mark.e2e

jupyter_client = pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

TIMEOUT = 60

SETUP = """\
import numpy as np
import tensorflow as tf
import keras

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
optimizer = keras.optimizers.SGD(0.1)
features = tf.constant(np.random.default_rng(0).normal(size=(8, 4)), tf.float32)
labels = tf.constant([0, 1, 2, 0, 1, 2, 0, 1])

def train_step():
    with tf.GradientTape() as tape:
        loss = keras.losses.sparse_categorical_crossentropy(
            labels, model(features), from_logits=True)
        loss = tf.reduce_mean(loss)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss

train_step()
"""

# What the no-client kernel must show: TF's and Keras's own functions, nothing recorded.
PROBES = {
    "plugin_loaded": "'tf_debug_repr.activation.startup' in __import__('sys').modules",
    "views_loaded": "sorted({'tf_debug_repr.views', 'tf_debug_repr.views.gradients'}"
    " & set(__import__('sys').modules))",
    "tape_hooked": "getattr(tf.GradientTape.gradient, '_tf_debug_repr', False)",
    "tape_module": "tf.GradientTape.gradient.__module__",
    "apply_hooked": "getattr(type(optimizer).apply, '_tf_debug_repr', False)",
    "records": "__import__('tf_debug_repr.gradients.capture').gradients.capture.live_records()",
}

STEP_CELL = """\
loss = train_step()
kernel = model.layers[0].kernel
edges = tf.constant([1.0, -np.inf, np.nan, 0.5])
ids = tf.constant([2**62 + 1, 3], tf.int64)
dense = model.layers[0]
stop_here = 1
"""

NODELAY = (
    "__import__('sys').modules['_pydevd_bundle.pydevd_constants'].get_global_debugger()"
    ".writer.sock.getsockopt(__import__('socket').IPPROTO_TCP, __import__('socket').TCP_NODELAY)"
)


class Kernel:
    def __init__(self, **switches: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TF_DEBUG_REPR_")}
        env["TF_CPP_MIN_LOG_LEVEL"] = "2"
        env.update(switches)
        self.manager, self.client = jupyter_client.manager.start_new_kernel(
            kernel_name="python3", startup_timeout=TIMEOUT, env=env
        )
        self.seq = 0

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)

    def execute(self, code: str, expressions: dict[str, str] | None = None) -> dict:
        msg_id = self.client.execute(code, user_expressions=expressions or {})
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self.client.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg_id:
                content = reply["content"]
                assert content["status"] == "ok", content
                return {
                    name: value["data"]["text/plain"] if value["status"] == "ok" else value
                    for name, value in content["user_expressions"].items()
                }

    def messages(
        self, code: str, silent: bool = False, store_history: bool | None = None
    ) -> list[tuple[str, dict]]:
        """(msg_type, content) of the iopub messages ``code`` caused, up to idle; a user's
        cell keeps its history, as a notebook's do (the Variable Inspector's queries send
        ``store_history=False``)."""
        history = not silent if store_history is None else store_history
        msg_id = self.client.execute(code, silent=silent, store_history=history)
        found = []
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                msg = self.client.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status" and content["execution_state"] == "idle":
                return found
            found.append((kind, content))
        raise AssertionError(f"no idle after {code!r} within {TIMEOUT} s")

    def debug(self, command: str, arguments: dict | None = None) -> dict:
        self.seq += 1
        request = {"type": "request", "seq": self.seq, "command": command}
        request["arguments"] = arguments or {}
        msg = self.client.session.msg("debug_request", request)
        self.client.control_channel.send(msg)
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self.client.get_control_msg(timeout=max(1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                content = reply["content"]
                assert content.get("success"), content
                return content.get("body", {})

    def wait_debug_event(self, event: str) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                msg = self.client.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue
            if msg["msg_type"] == "debug_event" and msg["content"].get("event") == event:
                return msg["content"].get("body", {})
        raise AssertionError(f"no {event} debug_event within {TIMEOUT} s")


# The initialize arguments JupyterLab's debugger sends (@jupyterlab/debugger session.ts),
# and those of VS Code's notebook debugger (the same kernel messages, VS Code's client).
JUPYTERLAB = {"clientID": "jupyterlab", "clientName": "JupyterLab", "adapterID": "python3"}
VSCODE = {"clientID": "vscode", "clientName": "Visual Studio Code", "adapterID": "python"}


def stop_in_step_cell(kernel: Kernel, client: dict) -> tuple[str, int, dict, dict]:
    """Attach as ``client`` would, run STEP_CELL to its breakpoint: (the cell's msg_id,
    the stopped thread, the top frame, the frame's locals by name)."""
    kernel.debug(
        "initialize",
        {
            **client,
            "pathFormat": "path",
            "linesStartAt1": True,
            "columnsStartAt1": True,
            "supportsVariableType": True,
            "supportsVariablePaging": True,
            "supportsRunInTerminalRequest": True,
            "locale": "en",
        },
    )
    kernel.debug("attach")
    kernel.debug("debugInfo")
    source = kernel.debug("dumpCell", {"code": STEP_CELL})["sourcePath"]
    line = STEP_CELL.splitlines().index("stop_here = 1") + 1
    kernel.debug(
        "setBreakpoints",
        {"source": {"path": source}, "breakpoints": [{"line": line}], "sourceModified": False},
    )
    kernel.debug("configurationDone")

    msg_id = kernel.client.execute(STEP_CELL)
    thread = kernel.wait_debug_event("stopped")["threadId"]
    frame = kernel.debug("stackTrace", {"threadId": thread})["stackFrames"][0]
    assert frame["line"] == line
    scopes = kernel.debug("scopes", {"frameId": frame["id"]})["scopes"]
    local_ref = next(s["variablesReference"] for s in scopes if s["name"].lower() == "locals")
    variables = {
        v["name"]: v
        for v in kernel.debug("variables", {"variablesReference": local_ref})["variables"]
    }
    return msg_id, thread, frame, variables


def finish_cell(kernel: Kernel, thread: int, msg_id: str) -> None:
    kernel.debug("continue", {"threadId": thread})
    deadline = time.monotonic() + TIMEOUT
    while True:
        reply = kernel.client.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
        if reply["parent_header"].get("msg_id") == msg_id:
            return


def _js_number_text(number: float) -> str:
    """JavaScript's ``String(number)`` for the numbers met here."""
    import decimal
    import math

    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == int(number) and abs(number) < 1e21:  # shortest digits, then zeros
        return format(decimal.Decimal(repr(number)), "f").split(".")[0]
    return repr(number)


def tree_text(variable: dict) -> str:
    """What JupyterLab's debugger tree prints after a row's name (its convertType, up to
    4.2): ``parseInt`` of an int's value, ``parseFloat`` of a float's (JavaScript numbers:
    ``parseFloat('-inf')`` is NaN, integers past 2**53 lose digits), a bool's value, a
    str's value less one character at each end when it is marked rawString, the type name
    for anything else. (4.3 and later print the values 'inf' and '-inf' of a float as
    they are.)"""
    import re

    kind, value = variable.get("type"), variable["value"]
    if kind == "int":
        digits = re.match(r"\s*[+-]?\d+", value)
        return _js_number_text(float(int(digits.group()))) if digits else "NaN"
    if kind == "float":
        number = re.match(r"\s*[+-]?(Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)", value)
        return (
            _js_number_text(float(number.group().replace("Infinity", "inf"))) if number else "NaN"
        )
    if kind == "bool":
        return value
    if kind == "str":
        raw = "rawString" in (variable.get("presentationHint") or {}).get("attributes", [])
        return value[1:-1] if raw else value
    return kind or value


def children_of(kernel: Kernel, variable: dict) -> dict[str, dict]:
    reference = variable["variablesReference"]
    rows = kernel.debug("variables", {"variablesReference": reference})["variables"]
    return {row["name"]: row for row in rows}


def test_tree_text_reads_as_jupyterlab_does():
    """The model of JupyterLab's convertType above, on the values that broke (issue 26
    item 8): checked against JavaScript's parseFloat/parseInt as documented."""
    row = lambda kind, value: {"type": kind, "value": value}  # noqa: E731
    assert tree_text(row("float", "-inf")) == "NaN"
    assert tree_text(row("float", "nan")) == "NaN"
    assert tree_text(row("float", "0.5")) == "0.5"
    assert tree_text(row("float", "2.0")) == "2"
    assert tree_text(row("int", str(2**62 + 1))) == "4611686018427388000"
    assert tree_text(row("int", "3")) == "3"
    assert tree_text(row("NoneType", "None")) == "NoneType"


def test_kernel_without_debugger_installs_nothing_then_captures_once_attached(kernel):
    # (a) No debugger client: a Keras training step runs on TF's own functions.
    before = kernel.execute(SETUP, PROBES)
    assert before == {
        "plugin_loaded": "True",
        "views_loaded": "[]",
        "tape_hooked": "False",
        "tape_module": "'tensorflow.python.eager.backprop'",
        "apply_hooked": "False",
        "records": "0",
    }

    # (b) JupyterLab's debugger switched on: its debug_requests on the control channel.
    msg_id, thread, frame, variables = stop_in_step_cell(kernel, JUPYTERLAB)
    assert "∇‖g‖=" in variables["kernel"]["value"], variables["kernel"]
    children = {
        c["name"]: c
        for c in kernel.debug(
            "variables", {"variablesReference": variables["kernel"]["variablesReference"]}
        )["variables"]
    }
    # JupyterLab's tree prints what tree_text gives: the plugin's rows are typed for it
    # (shown as "shape: Note", "∇ gradient: GradientInfo" before).
    gradient = tree_text(children["∇ gradient"])
    # The step run before the client attached was not captured: this is the second update.
    assert gradient.startswith("∇ SGD iteration 1 ") and "float32[4, 3]" in gradient, gradient
    assert children["∇ gradient"]["variablesReference"] > 0  # still expandable
    types = {name: child["type"] for name, child in children.items()}
    assert not {"Note", "StatsNode", "GradientInfo", "ChangeNode"} & set(types.values()), types
    assert "x∈[" in tree_text(next(c for c in children.values() if "x∈[" in c["value"]))
    figures = {
        c["name"]: tree_text(c)
        for c in kernel.debug(
            "variables", {"variablesReference": children["∇ gradient"]["variablesReference"]}
        )["variables"]
    }
    assert float(figures["‖g‖"]) > 0, figures
    # Issue 26 item 8: every value reads in the tree as Python writes it, ±Inf and NaN
    # elements, the "first NaN/Inf" row, int64 past 2**53; kept attributes that are None.
    edges = children_of(kernel, variables["edges"])
    shown = {name: tree_text(edges[name]) for name in ("[0]", "[1]", "[2]", "[3]")}
    assert shown == {"[0]": "1", "[1]": "-inf", "[2]": "nan", "[3]": "0.5"}, edges
    assert tree_text(edges["‼ first NaN/Inf at [1]"]) == "-inf", edges
    ids = children_of(kernel, variables["ids"])
    assert tree_text(ids["[0]"]) == str(2**62 + 1) and tree_text(ids["[1]"]) == "3", ids
    dense = children_of(kernel, variables["dense"])
    assert tree_text(dense["activity_regularizer"]) == "None", dense["activity_regularizer"]
    nones = [n for n, row in dense.items() if row["value"] == "None" or row["value"] == "'None'"]
    assert nones and all(tree_text(dense[n]) == "None" for n in nones), nones
    printed_types = {row.get("type") for row in dense.values() if not row["variablesReference"]}
    assert not printed_types & {"NoneType", "complex", "bytes"}, printed_types
    watched = kernel.debug(
        "evaluate",
        {
            "expression": dense["activity_regularizer"]["evaluateName"],
            "frameId": frame["id"],
            "context": "watch",
        },
    )
    assert watched["result"] == "None"  # the row's expression gives the value itself
    nodelay = kernel.debug(
        "evaluate", {"expression": NODELAY, "frameId": frame["id"], "context": "watch"}
    )
    assert nodelay["result"] == "1"

    finish_cell(kernel, thread, msg_id)
    after = kernel.execute("", PROBES)
    assert after["tape_hooked"] == "True" and after["apply_hooked"] == "True"
    assert after["views_loaded"] == "['tf_debug_repr.views', 'tf_debug_repr.views.gradients']"
    assert int(after["records"]) >= 2  # kernel and bias


def test_the_switch_forces_capture_without_a_client():
    kernel = Kernel(TF_DEBUG_REPR_GRADIENTS="1")
    try:
        probes = kernel.execute(SETUP, PROBES)
    finally:
        kernel.close()
    assert probes["tape_hooked"] == "True" and probes["apply_hooked"] == "True"
    assert probes["records"] == "2"  # kernel and bias of the one Dense layer
    assert probes["views_loaded"] == "[]"  # the views still wait for a client


def test_vscode_notebook_debugger_keeps_the_plugin_types(kernel):
    """VS Code's notebook debugger is ipykernel + debugpy too, but its Variables pane prints
    every value: rows keep their own types (no quotes), decided by the client's name."""
    kernel.execute(SETUP)
    msg_id, thread, _frame, variables = stop_in_step_cell(kernel, VSCODE)
    children = {
        c["name"]: c
        for c in kernel.debug(
            "variables", {"variablesReference": variables["kernel"]["variablesReference"]}
        )["variables"]
    }
    types = {name: child["type"] for name, child in children.items()}
    assert types["shape"] == "Note", types
    assert types["∇ gradient"] == "GradientInfo", types
    assert "str" not in types.values(), types
    assert children["shape"]["value"] == "(4, 3)", children["shape"]  # bare, not quoted
    assert children["∇ gradient"]["value"].startswith("∇ SGD iteration 1 "), children
    # VS Code prints value and type as they are: the dtype's name, None's own type
    edges = children_of(kernel, variables["edges"])
    assert [(edges[n]["type"], edges[n]["value"]) for n in ("[1]", "[2]")] == [
        ("float32", "-inf"),
        ("float32", "nan"),
    ], edges
    assert edges["‼ first NaN/Inf at [1]"]["value"] == "-inf"
    ids = children_of(kernel, variables["ids"])
    assert (ids["[0]"]["type"], ids["[0]"]["value"]) == ("int", str(2**62 + 1)), ids
    regularizer = children_of(kernel, variables["dense"])["activity_regularizer"]
    assert (regularizer["type"], regularizer["value"]) == ("NoneType", "None"), regularizer
    finish_cell(kernel, thread, msg_id)
