"""``%load_ext tf_debug_repr`` in a real ipykernel driven through jupyter_client: what a
notebook receives for TF values (execute_result mime bundles), and what JupyterLab's
debugger "render variable" button (DAP ``richInspectVariables``) gets, with and without a
stop at a breakpoint."""

from __future__ import annotations

import base64
import queue
import re
import time

import numpy as np
import pytest

from tf_debug_repr.hosts.notebook import colour_maps
from tf_debug_repr.hosts.notebook import pictures as payload_pictures
from tf_debug_repr.hosts.notebook.png import png_size

from .test_jupyter import TIMEOUT, Kernel

pytestmark = pytest.mark.e2e
tf = pytest.importorskip("tensorflow")

M = 0  # the PNG is the cells alone: the labels are HTML text beside it

VALUES = """\
import numpy as np
import tensorflow as tf
import keras

x = tf.constant([[1.0, float("nan")], [3.0, 4.0]])
v = tf.Variable(tf.reshape(tf.range(12.0), (3, 4)), name="weights")
big = tf.Variable(tf.reshape(tf.range(96.0), (8, 12)), name="big")
kv = keras.Variable(np.ones((2, 3), np.float32), name="kv")
h = tf.concat([tf.linspace(0.0, 2.0, 99), [float("inf")]], 0)
noise = tf.random.normal((3, 40, 50))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="hidden")])
img = tf.cast(tf.reshape(tf.range(8 * 8 * 3) % 256, (8, 8, 3)), tf.uint8)
"""


def run_cell(kernel: Kernel, code: str) -> dict:
    """The execute_result's mime bundle of ``code`` ({} when it has none)."""
    data: dict = {}
    for kind, content in kernel.messages(code):
        if kind == "execute_result":
            data = content["data"]
        elif kind == "error":
            raise AssertionError("\n".join(content["traceback"]))
    return data


def picture_of(bundle: dict) -> np.ndarray:
    """The HTML's one picture, decoded by a real decoder (stored once: no image/png)."""
    assert "image/png" not in bundle
    found = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', bundle["text/html"])
    assert len(found) == 1, len(found)
    data = base64.b64decode(found[0])
    pixels = tf.io.decode_png(data, channels=0).numpy()
    assert png_size(data) == (pixels.shape[1], pixels.shape[0])
    return pixels


def rgb(pixels: np.ndarray, row: int, col: int) -> tuple[int, ...]:
    return tuple(int(c) for c in pixels[row, col, :3])


def test_load_ext_gives_tf_values_summary_nan_warning_and_picture_then_unload_restores(kernel):
    run_cell(kernel, VALUES)
    plain = run_cell(kernel, "x")
    assert set(plain) == {"text/plain"} and plain["text/plain"].startswith(
        "<tf.Tensor: shape=(2, 2)"
    )
    assert run_cell(kernel, "%load_ext tf_debug_repr") == {}

    # a small tensor with a NaN: summary first, the warning, its numbers (no picture)
    bundle = run_cell(kernel, "x")
    assert set(bundle) == {"text/plain", "text/html"}
    summary = bundle["text/plain"].splitlines()[0]
    assert summary.startswith("float32[2, 2] ‼ NaN×1") and "n=4" in summary, summary
    assert "[[ 1., nan]," in bundle["text/plain"]  # the values follow, as the Debug Console
    html = bundle["text/html"]
    # the warning once, coloured where the summary says it
    assert html.count("‼ NaN×1") == 1 and ">‼ NaN×1</span> x∈[1, 4]" in html
    assert "<div>float32[2, 2] <span" in html
    assert ">NaN</td>" in html and ">4</td>" in html and "<img" not in html
    assert "var(--jp-" in html  # the theme's colours

    # a [3, 4] tf.Variable: its summary and its twelve numbers
    bundle = run_cell(kernel, "v")
    assert bundle["text/plain"].startswith("float32[3, 4] ")
    assert bundle["text/plain"].splitlines()[0].endswith(" Variable 'weights'")
    assert " Variable &#x27;weights&#x27;" in bundle["text/html"]
    assert ">11</td>" in bundle["text/html"] and "<img" not in bundle["text/html"]

    # [8, 12]: numbers and a heatmap, cells from low (top left) to high (bottom right), the
    # colour bar's range as text
    bundle = run_cell(kernel, "big")
    assert ">95</td>" in bundle["text/html"]
    pixels = picture_of(bundle)
    cell = payload_pictures.HEATMAP_SIDE // 12
    assert rgb(pixels, M + 7 * cell + cell // 2, M + 11 * cell + cell // 2) == (253, 231, 37)
    assert rgb(pixels, M + cell // 2, M + cell // 2) == (68, 1, 84)
    assert '">95</span>' in bundle["text/html"] and '">0</span>' in bundle["text/html"]

    # a Keras 3 variable
    bundle = run_cell(kernel, "kv")
    assert "float32[2, 3]" in bundle["text/plain"].splitlines()[0] and "kv" in bundle["text/plain"]
    assert ">1</td>" in bundle["text/html"]

    # 1-D: a histogram, the +Inf count as a bar of its own, in the +Inf colour, labelled
    bundle = run_cell(kernel, "h")
    assert (
        "histogram of the finite values" in bundle["text/html"] and "+Inf×1" in bundle["text/html"]
    )
    pixels = picture_of(bundle)
    assert pixels.shape[0] == payload_pictures.HISTOGRAM_HEIGHT
    posinf = "background:rgb({},{},{})".format(*colour_maps.POSINF_COLOUR)
    assert posinf in bundle["text/html"] and '">+Inf</span>' in bundle["text/html"]

    # float32[3, 40, 50] noise: a heatmap of x[0, :, :], not an RGB picture
    assert "heatmap of x[0, :, :] of float32[3, 40, 50]" in run_cell(kernel, "noise")["text/html"]

    # a Keras model: its summary and its layers, not <Sequential name=…>
    bundle = run_cell(kernel, "model")
    assert "Sequential &#x27;sequential" in bundle["text/html"]
    assert ">hidden</td>" in bundle["text/html"] and ">15</td>" in bundle["text/html"]

    # an HWC uint8 image: its own pixels, enlarged
    bundle = run_cell(kernel, "img")
    pixels = picture_of(bundle)
    assert pixels.shape == (32, 32, 4)
    assert tuple(pixels[0, 0]) == (0, 1, 2, 255) and tuple(pixels[31, 31]) == (189, 190, 191, 255)

    # inside a list: each value's summary, no values
    listed = run_cell(kernel, "[x, h]")
    assert set(listed) == {"text/plain"}
    h_summary = run_cell(kernel, "h")["text/plain"].splitlines()[0]
    assert listed["text/plain"] == f"[{summary},\n {h_summary}]"

    # not TF values: untouched
    assert run_cell(kernel, "np.zeros(2)") == {"text/plain": "array([0., 0.])"}

    # the debugger's render-variable button without a stop: the same bundle
    rich = kernel.debug("richInspectVariables", {"variableName": "x"})
    assert set(rich["data"]) == {"text/plain", "text/html"}
    assert "‼ NaN×1" in rich["data"]["text/html"]

    assert run_cell(kernel, "%unload_ext tf_debug_repr") == {}
    assert run_cell(kernel, "x") == plain


# 128x128 noisy cells (~57 KB of HTML), and a batch of noisy images whose bundle is past
# pydevd's 64 KiB string limit for evaluate results outside the clipboard context that
# ipykernel asks for.
STOP_CELL = """\
y = tf.tensor_scatter_nd_update(tf.random.normal((128, 128)), [[0, 0]], [float("nan")])
pics = tf.cast(tf.random.uniform((16, 64, 64, 3), 0, 256), tf.uint8)
stop_here = 1
"""


def test_render_variable_while_stopped_at_a_breakpoint(kernel):
    run_cell(kernel, VALUES + "%load_ext tf_debug_repr\n")
    kernel.debug(
        "initialize",
        {
            "clientID": "jupyterlab",
            "adapterID": "python",
            "pathFormat": "path",
            "linesStartAt1": True,
            "columnsStartAt1": True,
            "supportsVariableType": True,
        },
    )
    kernel.debug("attach")
    source = kernel.debug("dumpCell", {"code": STOP_CELL})["sourcePath"]
    kernel.debug(
        "setBreakpoints",
        {"source": {"path": source}, "breakpoints": [{"line": 3}], "sourceModified": False},
    )
    kernel.debug("configurationDone")
    msg_id = kernel.client.execute(STOP_CELL)
    thread = kernel.wait_debug_event("stopped")["threadId"]
    frame = kernel.debug("stackTrace", {"threadId": thread})["stackFrames"][0]
    assert frame["line"] == 3

    rich = kernel.debug("richInspectVariables", {"variableName": "y", "frameId": frame["id"]})
    data = rich["data"]
    assert set(data) == {"text/plain", "text/html"}
    assert data["text/plain"].startswith("float32[128, 128] ‼ NaN×1")
    pixels = picture_of(data)
    cell = payload_pictures.HEATMAP_SIDE // 128
    assert pixels.shape[0] == 128 * cell + 2 * M
    assert rgb(pixels, M, M) == colour_maps.NAN_COLOUR
    assert rgb(pixels, M + cell, M + cell) != colour_maps.NAN_COLOUR
    rich = kernel.debug("richInspectVariables", {"variableName": "pics", "frameId": frame["id"]})
    assert sum(len(text) for text in rich["data"].values()) > 65536
    assert picture_of(rich["data"]).shape[0] > 64

    kernel.debug("continue", {"threadId": thread})
    deadline = time.monotonic() + TIMEOUT
    while True:
        reply = kernel.client.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
        if reply["parent_header"].get("msg_id") == msg_id:
            assert reply["content"]["status"] == "ok"
            break


def test_an_image_batch_writes_no_tf_error_line_into_the_cell(kernel):
    """TF's uint8 transpose on oneDNN CPUs logs ``E0000 … oneDNN supports DT_UINT8 only``
    into the user's cell (ipykernel forwards the process's stderr): the grid is arranged in
    numpy instead."""
    run_cell(kernel, "import tensorflow as tf\n%load_ext tf_debug_repr")
    code = "tf.cast(tf.reshape(tf.range(4 * 16 * 16 * 3) % 256, (4, 16, 16, 3)), tf.uint8)"
    streams, data = [], {}
    for kind, content in kernel.messages(code):
        if kind == "stream":
            streams.append(content["text"])
        elif kind == "execute_result":
            data = content["data"]
    time.sleep(1)  # fd output reaches iopub on ipykernel's own thread: let it arrive
    while True:
        try:
            msg = kernel.client.get_iopub_msg(timeout=0.5)
        except queue.Empty:
            break
        if msg["msg_type"] == "stream":
            streams.append(msg["content"]["text"])
    assert "4 images (NHWC, uint8)" in data["text/html"]
    assert picture_of(data).shape[0] > 16
    assert not [s for s in streams if "DT_UINT8" in s or "E0000" in s], streams


def test_the_plugins_own_answers_print_their_summary_and_rows(kernel):
    """``tf_debug_repr.gradient_info(w)`` as a cell's result: the gradient's line and its
    rows, not ``<GradientInfo object at 0x…>``."""
    run_cell(kernel, "import tensorflow as tf\nimport tf_debug_repr\n%load_ext tf_debug_repr")
    run_cell(kernel, "tf_debug_repr.set_gradient_capture(True)")
    run_cell(
        kernel,
        "w = tf.Variable([1.0, 2.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    loss = tf.reduce_sum(w * w)\n"
        "grad = tape.gradient(loss, w)",
    )
    text = run_cell(kernel, "tf_debug_repr.gradient_info(w)")["text/plain"]
    lines = text.splitlines()
    assert lines[0].startswith("∇ call #1 at cell [3], line 4 ‖g‖=4.472"), text
    assert "  target: loss at cell [3], line 4 (GradientTape.gradient)" in lines, text
    assert "object at 0x" not in text
