"""Rows that read as what they are (issue 26): a row's expression evaluates to what the row
shows (a note about a value has its own line, or an expression giving that same note); a
kind is decided by type, so a class of the program's with tensor-like properties is not
read by the summary; a state (a metric not built yet) is said in words."""

from __future__ import annotations

import tempfile

import numpy as np
import tensorflow as tf

from tf_debug_repr import views
from tf_debug_repr.core.view_model import Node, Note
from tf_debug_repr.hosts.pydevd.adapter import TensorResolveProvider, TensorStrProvider
from tf_debug_repr.views import tensors as tensor_views


def expression_of(row, parent: str) -> str | None:
    if row.expression is None:
        return None
    return row.expression(parent) if callable(row.expression) else parent + row.expression


def rows(value) -> dict:
    return {row.name: row for row in views.children(value)}


def test_unknown_shape_of_a_graph_tensor_is_its_own_line():
    """A restored concrete function's output is a graph tensor of unknown rank:
    ``.shape.as_list()`` would raise, so the row's line is its own expression."""

    class Doubler(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
        def __call__(self, x):
            return x * 2.0

    folder = tempfile.mkdtemp()
    tf.saved_model.save(Doubler(), folder)
    loaded = tf.saved_model.load(folder)
    call = loaded.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
    output = rows(call)["structured_outputs"].resolve()
    shape = rows(output)["shape"]
    assert str(shape.resolve()) == "[?]" and shape.expression is None
    # a known shape keeps .shape.as_list(), which gives exactly the list shown
    traced = tf.function(lambda x: x + 1).get_concrete_function(tf.TensorSpec([None, 3]))
    known = rows(traced.structured_outputs)["shape"]
    assert str(known.resolve()) == "[None, 3]"
    got = eval(expression_of(known, "t"), {"t": traced.structured_outputs})
    assert str(got) == str(known.resolve())


def test_a_dataset_cardinality_row_gives_what_it_shows():
    finite = rows(tf.data.Dataset.range(1500).batch(1))["cardinality"]
    assert finite.resolve() == 1500
    assert eval(expression_of(finite, "d"), {"d": tf.data.Dataset.range(1500).batch(1)}) == 1500
    infinite = rows(tf.data.Dataset.range(3).repeat())["cardinality"]
    assert str(infinite.resolve()) == "infinite" and infinite.expression is None


def test_every_attribute_stock_shows_on_a_dataset_an_iterator_and_a_spec_is_there():
    """Stock debugpy lists a dataset's ``dir()`` (its input dataset, options, variant tensor):
    each of those names is a row, in ``private attributes`` or in ``raise when read``; and
    reading them takes no element."""
    dataset = tf.data.Dataset.range(6).map(lambda x: x * 2).batch(2)
    iterator = iter(dataset)
    for value in (dataset, iterator, dataset.element_spec):
        shown = rows(value)
        names = set(shown)
        for group in shown.values():
            if group.name == "private attributes" or group.name.startswith("raise when read"):
                names |= {row.name for row in views.children(group.resolve())}
        # data, as stock lists it: not methods, nor classes (pydevd's groups of their own)
        data = {
            name
            for name in dir(value)
            if not callable(getattr(type(value), name, None))
            and not name.startswith("__")
            and not isinstance(getattr(value, name, None), type)
        }
        assert data - names == set(), type(value).__name__
        assert {"element_spec", "shape"} & names
    assert [int(x) for x in next(iterator)] == [0, 2]


def test_a_long_string_tensors_numpy_row_evaluates_to_the_same_note():
    big = tf.constant(["x" * 600_000, "y" * 600_000])
    numpy_row = rows(big)["numpy"]
    node = numpy_row.resolve()
    assert isinstance(node, tensor_views.HostCopy)
    assert node.summary() == "ndarray string[2] on CPU:0: expand to copy 1.1 MiB to the host"
    code = expression_of(numpy_row, "big")
    again = eval(code, {"big": big})
    assert isinstance(again, Node) and again.summary() == node.summary()
    array = node.children()[0]
    assert expression_of(array, code) == "big.numpy()"
    assert np.array_equal(array.resolve(), big.numpy())


class LooksLikeATensor(tf.Module):
    """A class of the program's whose ``device`` and ``shape`` are its own properties."""

    def __init__(self) -> None:
        super().__init__(name="looks_like_a_tensor")
        self.w = tf.Variable([1.0, 2.0])
        self.calls = {"device": 0, "shape": 0}

    @property
    def device(self) -> str:
        self.calls["device"] += 1
        return "/job:worker/replica:0/task:0/device:CPU:0"

    @property
    def shape(self) -> tuple:
        self.calls["shape"] += 1
        return (2,)


def test_showing_a_module_with_tensor_like_properties_calls_neither():
    probe = LooksLikeATensor()
    holder = tf.Module(name="holder")
    holder.probe = probe
    strings, resolver = TensorStrProvider(), TensorResolveProvider()
    # what the panes ask: the summary in every context, and the holder's expansion
    for context in (None, "watch", "hover", "repl", "clipboard"):
        strings.get_str_in_context(probe, context)
        strings.get_str_in_context(holder, context)
    for _, value, _ in resolver.get_contents_debug_adapter_protocol(holder):
        strings.get_str(value)
    assert probe.calls == {"device": 0, "shape": 0}
    # expanding the probe itself reads each attribute once, as stock's getattr over dir() does
    contents = resolver.get_contents_debug_adapter_protocol(probe)
    assert probe.calls == {"device": 1, "shape": 1}
    shown = {name: value for name, value, _ in contents}
    assert shown["shape"] == (2,) and shown["device"].startswith("/job:worker/")


def test_a_metric_not_built_yet_says_so_in_words():
    import keras

    r2 = keras.metrics.R2Score()
    assert views.summary(r2) == "R2Score 'r2_score' not built yet (state: num_samples)"
    result = rows(r2)["result"].resolve()
    assert isinstance(result, Note) and str(result) == "not built yet"


def test_pydevd_xml_path_lists_the_same_group():
    """PyCharm's ``get_dictionary`` path reads the same views: the raising attributes are in
    the group, not among the values."""
    import keras

    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    found = TensorResolveProvider().get_dictionary(layer)
    groups = [name for name in found if name.startswith("raise when read (")]
    assert groups and "input" not in found and "output" not in found
    inside = TensorResolveProvider().get_dictionary(found[groups[0]])
    assert str(inside["input"]).startswith("AttributeError: The layer dense")


def test_a_layer_reads_the_same_in_its_models_tree_and_on_its_own():
    """The line is the value's own: the tree's row ``dense (Dense)`` and its expression's
    value (a Watch of ``model.layers[0]``, ``self`` in ``call``) read the same, class and
    name last, where only the line says which layer it is."""
    import keras

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="dense")])
    row = rows(model)["dense (Dense)"]
    layer = eval(expression_of(row, "model"), {"model": model})
    assert layer is model.layers[0]
    text = views.summary(row.resolve())
    assert text == views.summary(layer) and text.endswith(", Dense 'dense'")
    assert text.startswith("16 params → [None, 4]: kernel[3, 4] bias[4]")
