"""The IPython formatters: registered by name, restored on unload, HTML from payload dicts.
(The whole path in a real kernel: tests/e2e/test_jupyter_display.py.)"""

from __future__ import annotations

import base64
import re
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from tf_debug_repr.hosts.notebook import colour_maps
from tf_debug_repr.hosts.notebook import display as ipython_display
from tf_debug_repr.hosts.notebook.png import SIGNATURE

from .payload_dicts import payload

formatters = pytest.importorskip("IPython.core.formatters")


@pytest.fixture
def shell():
    ip = SimpleNamespace(display_formatter=formatters.DisplayFormatter())
    yield ip
    ipython_display.unregister(ip)


def test_loading_registers_by_name_for_every_value_class(shell):
    import tf_debug_repr

    tf_debug_repr.load_ipython_extension(shell)
    names = set(ipython_display.formatted_types())
    assert ("tensorflow.python.framework.ops", "_EagerTensorBase") in names
    assert ("tensorflow.python.ops.variables", "Variable") in names
    assert ("keras.src.backend.common.variables", "Variable") in names
    for mime in ipython_display.MIME_TYPES:
        assert names <= set(shell.display_formatter.formatters[mime].deferred_printers)


def test_unloading_restores_the_printers_that_were_there(shell):
    import tf_debug_repr

    html = shell.display_formatter.formatters["text/html"]
    theirs = lambda obj: "<b>theirs</b>"  # noqa: E731
    html.for_type_by_name("tensorflow.python.ops.variables", "Variable", theirs)

    class Variable:  # a class already resolved under one of the names
        __module__ = "keras.src.backend.common.variables"

    resolved = lambda obj: "<i>resolved</i>"  # noqa: E731
    html.type_printers[Variable] = resolved
    tf_debug_repr.load_ipython_extension(shell)
    assert Variable not in html.type_printers  # ours wins while loaded
    assert html.lookup_by_type(Variable) is ipython_display.html_of
    tf_debug_repr.unload_ipython_extension(shell)
    assert html.deferred_printers[("tensorflow.python.ops.variables", "Variable")] is theirs
    assert html.type_printers[Variable] is resolved
    eager = ("tensorflow.python.framework.ops", "_EagerTensorBase")
    for mime in ipython_display.MIME_TYPES:
        assert eager not in shell.display_formatter.formatters[mime].deferred_printers


def test_loading_imports_neither_tensorflow_nor_numpy():
    code = (
        "import sys, types; from IPython.core.formatters import DisplayFormatter;"
        "import tf_debug_repr;"
        "tf_debug_repr.load_ipython_extension(types.SimpleNamespace(display_formatter=DisplayFormatter()));"
        "print(sorted({'tensorflow', 'numpy', 'keras'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_html_has_the_summary_the_warning_the_caption_and_the_picture():
    values = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    values[0, 1, 1] = np.nan
    data = payload(values)
    text = ipython_display.render_html(data, ipython_display.picture_html(data))
    assert data["summary"] in text
    assert "‼ NaN×1" in text
    what = "heatmap of x[0, :, :] of float32[2, 2, 3] (rows: axis 1, columns: axis 2)"
    assert f'<div style="color:var(--jp-ui-font-color2,#888)">{what}</div>' in text
    assert f'alt="{what}"' in text  # the picture says what it is to a screen reader
    embedded = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text).group(1)
    assert base64.b64decode(embedded).startswith(SIGNATURE)
    # the colour bar's range (of the slice x[0]) as text beside the picture: 0 and 5
    assert '">5</span>' in text and '">0</span>' in text
    assert f"rgb{colour_maps.NAN_COLOUR}" in text  # the legend


def test_html_escapes_and_shows_an_error_without_a_picture():
    data = payload(np.zeros((2, 2)))
    data.update(summary="<script>", error="no values <here>", slice=None)
    text = ipython_display.render_html(data, None)
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "no values &lt;here&gt;" in text and "<img" not in text


def test_why_there_is_no_picture_is_a_note_and_only_an_exception_is_red():
    # keras-io's text classification shows string batches: not an error
    data = payload(np.zeros((2, 2)))
    data.update(error="strings: no numbers to draw", slice=None)
    assert "error-color" not in ipython_display.render_html(data, None)
    data.update(error="TypeError: unsupported operand")
    assert (
        '<div style="color:var(--jp-error-color1,#c00)">TypeError: unsupported operand</div>'
        in (ipython_display.render_html(data, None))
    )


def test_the_caption_says_when_cells_are_block_means():
    data = payload(np.zeros((4, 6)), step=(4, 2))
    assert ipython_display.slice_caption(data).endswith("each cell the mean of 4×2")


def test_no_class_between_a_value_class_and_our_names_has_its_own_repr():
    """IPython's pretty printer takes the first ``__repr__`` defined along the MRO: every
    subclass of a value class must meet one of our names first, or text/plain stays stock."""
    pytest.importorskip("tensorflow")
    import importlib

    names = set(ipython_display.formatted_types())
    for module in ("tensorflow.python.distribute.ps_values", "keras"):
        importlib.import_module(module)

    def subclasses(cls):
        yield cls
        for sub in cls.__subclasses__():
            yield from subclasses(sub)

    missed = []
    for module, name in names:
        # rows for other Keras versions (Keras 2's classes) name modules this one may have
        # too, without the class
        value_class = getattr(sys.modules.get(module), name, None)
        if not isinstance(value_class, type):
            continue
        for cls in set(subclasses(value_class)):
            for step in cls.__mro__:
                if (step.__module__, step.__name__) in names:
                    break
                if "__repr__" in step.__dict__ or "_repr_pretty_" in step.__dict__:
                    missed.append(f"{step.__module__}.{step.__name__}")
                    break
    assert missed == []


def test_the_caption_counts_the_blocks_the_picture_merges_too():
    data = payload(np.zeros((2, 300)))
    assert ipython_display.slice_caption(data).endswith("each cell the mean of 1×3")


def test_the_caption_of_a_big_batch_says_which_images_are_shown():
    from .payload_dicts import image_payload

    data = image_payload(np.zeros((28, 28, 4), np.uint8), tile=(28, 28), count=1, columns=1)
    data["shape"] = [1, 28, 28, 3]
    assert ipython_display.caption(data) == "image (NHWC, uint8)"
    data = image_payload(np.zeros((56, 56, 4), np.uint8), tile=(28, 28), count=4, columns=2)
    data["shape"] = [100, 28, 28, 3]
    assert ipython_display.caption(data) == "the first 4 of 100 images (NHWC, uint8)"


def test_each_picture_is_stored_once_and_the_value_is_not_kept():
    """The picture lives in the HTML only: no image/png copy doubling a saved notebook."""
    pytest.importorskip("tensorflow")
    import gc
    import weakref

    values = np.arange(200, dtype=np.float32).reshape(10, 20)
    shell = SimpleNamespace(display_formatter=formatters.DisplayFormatter())
    ipython_display.register(shell)
    try:
        data, _ = shell.display_formatter.format(values.copy())  # numpy: not ours
        assert "text/html" not in data
        import tensorflow as tf

        tensor = tf.constant(values)
        data, _ = shell.display_formatter.format(tensor)
        alive = weakref.ref(tensor)
        del tensor
        gc.collect()
        assert alive() is None
    finally:
        ipython_display.unregister(shell)
    assert set(data) == {"text/plain", "text/html"}
    assert data["text/html"].count("data:image/png;base64,") == 1


def test_small_values_show_their_numbers_and_a_picture_only_when_it_helps():
    tf = pytest.importorskip("tensorflow")
    small = ipython_display.html_of(tf.constant([[1.0, float("nan")], [3.0, 4.25]]))
    assert "<img" not in small and ">4.25</td>" in small and ">NaN</td>" in small
    weight = ipython_display.html_of(tf.reshape(tf.range(15.0), (3, 5)))
    assert "<img" not in weight and all(f">{n}</td>" in weight for n in range(15))
    # a few hundred: the numbers and the heatmap
    medium = ipython_display.html_of(tf.reshape(tf.range(300.0), (15, 20)))
    assert ">299</td>" in medium and medium.count("<img") == 1
    big = ipython_display.html_of(tf.zeros((20, 20)))
    assert "<table" not in big and "<img" in big
    # 1-D wraps every ten, N-D rows are headed by their leading indices
    assert "<th" in ipython_display.html_of(tf.range(25)) and ">24</td>" in (
        ipython_display.html_of(tf.range(25))
    )
    cube = ipython_display.html_of(tf.reshape(tf.range(60), (3, 4, 5)))
    assert ">2, 3</th>" in cube and ">59</td>" in cube
    # strings are data: escaped
    text = ipython_display.html_of(tf.constant(["<b>x</b>", "y"]))
    assert "<b>" not in text and "&lt;b&gt;x&lt;/b&gt;" in text


def test_keras_models_layers_and_optimizers_get_a_summary_and_a_table():
    pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="hidden")])
    optimizer = keras.optimizers.Adam()
    optimizer.build(model.trainable_variables)
    shell = SimpleNamespace(display_formatter=formatters.DisplayFormatter())
    ipython_display.register(shell)
    try:
        found = {
            name: shell.display_formatter.format(obj)[0]
            for name, obj in (("model", model), ("layer", model.layers[0]), ("opt", optimizer))
        }
    finally:
        ipython_display.unregister(shell)
    model_html = found["model"]["text/html"]
    assert "Sequential &#x27;sequential" in model_html and ">hidden</td>" in model_html
    assert ">15</td>" in model_html  # its parameters
    assert "kernel" in found["layer"]["text/html"] and "[4, 3]" in found["layer"]["text/html"]
    assert "Adam" in found["opt"]["text/html"] and "momentum" in found["opt"]["text/html"]
    after, _ = shell.display_formatter.format(model)
    assert "text/html" not in after  # unloaded: Keras's own display again


VALUES = {
    "bool": ("tf.reshape(tf.range(100) % 3 == 0, (10, 10))", "heatmap of x[:, :] of bool[10, 10]"),
    "int64": ("tf.reshape(tf.range(80, dtype=tf.int64), (8, 10))", "heatmap of x[:, :] of int64"),
    "int32 1-D": ("tf.range(80)", "histogram of the finite values"),
    "complex": ("tf.complex(tf.ones((8, 10)), tf.ones((8, 10)))", "abs of the complex values"),
    "bfloat16": ("tf.cast(tf.ones((8, 10)), tf.bfloat16)", "heatmap of x[:, :] of bfloat16"),
    "float16 NaN": ("tf.constant([[np.nan, 1]], tf.float16)", "‼ NaN×1"),
    "5-D": ("tf.zeros((2, 3, 4, 5, 6))", "x[0, 0, 0, :, :] of float32[2, 3, 4, 5, 6]"),
    "indexed slices": (
        "tf.IndexedSlices(tf.ones((2, 3)), tf.constant([0, 2]), tf.constant([4, 3]))",
        "showing the 2 rows held",
    ),
    "sparse": (
        "tf.sparse.from_dense(tf.constant([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]]))",
        "showing the 3 values held (.values), not the dense [2, 3] tensor",
    ),
    "ragged": ("tf.ragged.constant([[1.0, 2.0], [3.0]])", "showing its 3 flat values"),
    "string": ("tf.constant(['a', 'b'])", "'a'"),
    "scalar": ("tf.constant(3.0)", "3.0 float32"),
    "empty": ("tf.zeros((0, 3))", "nothing to draw"),
    "handle": ("tf.Variable(1.0).handle", "no numbers to draw"),
    "tensor array": (
        "tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0]).write(1, [3.0, 4.0])",
        "its 2 elements stacked",
    ),
    "tensor array unwritten": (
        "tf.TensorArray(tf.float32, size=2).write(0, 1.0)",
        "1 of its 2 elements are not written",
    ),
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_every_kind_of_value_gets_its_summary_and_a_picture_where_there_are_numbers(name):
    tf = pytest.importorskip("tensorflow")
    import html as html_text

    from tf_debug_repr import views

    expression, expected = VALUES[name]
    value = eval(expression, {"tf": tf, "np": np})
    shell = SimpleNamespace(display_formatter=formatters.DisplayFormatter())
    ipython_display.register(shell)
    try:
        data, _ = shell.display_formatter.format(value)
    finally:
        ipython_display.unregister(shell)
    assert data["text/plain"].splitlines()[0] == views.summary(value)
    shown = re.sub(r"<span [^>]*>(‼[^<]*)</span>", r"\1", data["text/html"])
    assert html_text.escape(views.summary(value)) in shown  # its NaN warning coloured in place
    assert data["text/html"].count("‼") == views.summary(value).count("‼")  # once
    assert html_text.escape(expected) in data["text/html"]
    drawable = name in ("bool", "int64", "int32 1-D", "complex", "bfloat16", "5-D")
    assert ("<img" in data["text/html"]) == drawable, name
    assert "image/png" not in data  # the picture is stored once, in the HTML
    numbers = name not in ("5-D", "scalar", "empty", "handle", "tensor array unwritten")
    assert ("<table" in data["text/html"]) == numbers, name
