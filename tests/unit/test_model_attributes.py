"""Keras layers and models, and ``tf.Module``s, show their structured rows and then every
attribute stock debugpy would show (issue 15): optimizers, metric trackers,
hyperparameters, raw variables, and private attributes one expansion away. Preprocessing
layers show their state; modules without ``super().__init__()`` or holding Keras 3 models
read right. Each child's expression is evaluated as pydevd would."""

from __future__ import annotations

import inspect
import re

import keras
import numpy as np
import pytest
import tensorflow as tf

from tf_debug_repr import views
from tf_debug_repr.core.view_model import Node, Note
from tf_debug_repr.views.models import Weights


def resolve_expression(expression, parent: str) -> str:
    return expression(parent) if callable(expression) else parent + expression


class TwoOptimizerGAN(keras.Model):
    """The shape of keras-io's GAN: two sub-models, two optimizers, trackers, a loss."""

    def __init__(self) -> None:
        super().__init__()
        self.discriminator = keras.Sequential(
            [keras.Input((4,)), keras.layers.Dense(1)], name="discriminator"
        )
        self.gen = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4)], name="generator")
        self.latent_dim = 3
        self.temperature = 0.5
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")
        self.noise_scale = tf.Variable(0.1, name="noise_scale")
        self._private_note = "kept"

    @property
    def broken(self) -> float:
        raise RuntimeError("a property of the user's that raises")

    @property
    def half_temperature(self) -> float:
        return self.temperature / 2

    def call(self, x):
        return self.discriminator(self.gen(x))

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn


@pytest.fixture(scope="module")
def gan() -> TwoOptimizerGAN:
    model = TwoOptimizerGAN()
    model(tf.zeros([2, 3]))
    model.compile(
        keras.optimizers.Adam(3e-4), keras.optimizers.Adam(1e-3), keras.losses.BinaryCrossentropy()
    )
    return model


def rows_of(obj) -> dict:
    rows = views.children(obj)
    names = [row.name for row in rows]
    assert len(names) == len(set(names)), "a name twice (PyCharm looks rows up by name)"
    return {row.name: row for row in rows}


def stock_attribute_names(obj) -> list[str]:
    """What stock pydevd lists outside its function/class groups: ``dir`` names whose
    value (or the error reading it) is no routine or class."""
    names = []
    for name in dir(obj):
        try:
            value = getattr(obj, name)
        except Exception:
            names.append(name)
            continue
        if not (inspect.isroutine(value) or inspect.isclass(value)):
            names.append(name)
    return names


def test_model_shows_optimizers_trackers_hyperparameters_after_its_structure(gan):
    rows = views.children(gan)
    names = [row.name for row in rows]
    assert names[:2] == ["discriminator", "gen"]  # by the attributes holding them
    assert names.index("trainable") < names.index("d_optimizer")
    by_name = {row.name: row for row in rows}
    d_optimizer, g_optimizer = by_name["d_optimizer"].resolve(), by_name["g_optimizer"].resolve()
    assert d_optimizer is gan.d_optimizer and g_optimizer is gan.g_optimizer
    assert views.summary(d_optimizer).startswith(f"Adam {d_optimizer.name!r} lr=0.0003")
    assert views.summary(g_optimizer).startswith(f"Adam {g_optimizer.name!r} lr=0.001")
    assert views.summary(by_name["d_loss_tracker"].resolve()).startswith("Mean 'd_loss' result=")
    assert by_name["latent_dim"].resolve() == 3 and by_name["temperature"].resolve() == 0.5
    assert by_name["half_temperature"].resolve() == 0.25  # a user's property, read
    assert views.summary(by_name["loss_fn"].resolve()).startswith("BinaryCrossentropy")
    # a raw tf.Variable Keras does not track: among the structured rows, by its attribute
    assert names.index("noise_scale") < names.index("params")
    assert by_name["noise_scale"].expression == ".noise_scale"
    assert "variables outside weights: noise_scale[]" in views.summary(gan)
    # a sublayer's row is the attribute holding it (stock's name, its expression), once
    assert by_name["gen"].expression == ".gen" and by_name["gen"].resolve() is gan.gen
    assert "generator (Sequential)" not in by_name
    # methods stay out (pydevd's function group); private attributes keep their names
    assert not {"call", "compile", "train_step", "fit"} & set(names)
    private = by_name["private attributes"]
    assert names.index("private attributes") > names.index("temperature")
    assert not [name for name in names if name.startswith("_") and not name.endswith("__")]
    inside = {row.name: row for row in private.resolve().children()}
    assert inside["_private_note"].resolve() == "kept"
    assert "_layers" in inside and len(inside) > 50


def test_private_attributes_row_and_its_rows_evaluate(gan):
    private = rows_of(gan)["private attributes"]
    code = resolve_expression(private.expression, "self")
    node = eval(code, {"self": gan})
    assert node.summary() == private.resolve().summary()
    assert node.summary().startswith(f"{len(node.attributes)} attributes: _")
    note = {row.name: row for row in node.children()}["_private_note"]
    assert resolve_expression(note.expression, code) == "self._private_note"


def test_a_property_that_raises_is_kept_in_the_trailing_raise_when_read_group(gan):
    rows = views.children(gan)
    names = [row.name for row in rows]
    assert "broken" not in names  # the main list holds only values that read
    # Keras 3's distribute_reduction_method, input and output raise on this model too
    group = rows[-1]
    assert group.name.startswith("raise when read (") and group.name == names[-1]
    node = group.resolve()
    assert group.name == f"raise when read ({len(node.attributes)})"
    inside = {row.name: row for row in node.children()}
    broken = inside["broken"]
    value = broken.resolve()
    # the exception's one line, no traceback; the adapter gives it its own literal
    assert isinstance(value, Note) and broken.expression is None
    assert value.text == "RuntimeError: a property of the user's that raises"
    assert inside["input"].resolve().text.startswith("AttributeError: The layer ")
    assert node.summary().startswith(f"{len(inside)} attributes: ")
    # its expression lists the same attributes again
    again = eval(resolve_expression(group.expression, "self"), {"self": gan})
    assert [a.name for a in again.attributes] == list(inside)
    # nothing outside the group reads as an error, private attributes included
    private = {
        row.name: row.resolve() for row in rows_of(gan)["private attributes"].resolve().children()
    }
    for name, row in [*((r.name, r.resolve()) for r in rows[:-1]), *private.items()]:
        text = str(row) if isinstance(row, Note) else ""
        assert "raises" not in text and "Error" not in text, (name, text)


def same(got, value) -> bool:
    """The expression's result is the row's value: the very object, an equal plain value,
    or (a property making a new object at each read) one of its type that reads the same."""
    if got is value:
        return True
    if isinstance(value, Weights):  # a node listing the same variables
        return [id(w) for w in got] == [id(w) for w in value.weights]
    if type(got).__qualname__ != type(value).__qualname__:
        return False
    if isinstance(value, (int, float, str, bool, list, tuple, dict)):
        return got == value
    return ADDRESS.sub("", views.summary(got)) == ADDRESS.sub("", views.summary(value))


ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # the default repr's: another object, another address


def test_every_attribute_expression_evaluates_to_its_row(gan):
    frame = {"self": gan}
    checked = 0
    for row in views.children(gan):
        value = row.resolve()
        if row.expression is None:
            assert isinstance(value, Note), row.name
            continue
        got = eval(resolve_expression(row.expression, "self"), frame)
        assert same(got, value), (row.name, got, value)
        checked += 1
    assert checked > 40


def test_nothing_stock_lists_is_lost(gan):
    rows = views.children(gan)
    private = {row.name: row for row in rows}["private attributes"]
    code = resolve_expression(private.expression, "self")
    rows += private.resolve().children()  # one expansion away
    raised = [row for row in views.children(gan) if row.name.startswith("raise when read")]
    rows += raised[0].resolve().children()  # and those whose read raises, in their group
    names = {row.name for row in rows}
    expressions = {
        resolve_expression(row.expression, code if row.name.startswith("_") else "self")
        for row in rows
        if row.expression
    }
    covered = {"layers", "weights", "trainable"}  # the sublayer and weight rows, "trainable"
    missing = [
        name
        for name in stock_attribute_names(gan)
        if name not in names and f"self.{name}" not in expressions and name not in covered
    ]
    assert not missing


def test_lookup_layers_show_their_vocabulary():
    lookup = keras.layers.StringLookup(name="tokens")
    lookup.adapt(["a", "b", "b", "c", "c", "c"])
    assert views.summary(lookup) == (
        "0 params, vocabulary 4: '[UNK]' 'c' 'b' 'a', StringLookup 'tokens'"
    )
    rows = rows_of(lookup)
    assert rows["vocabulary size"].resolve() == 4
    assert rows["vocabulary[:20]"].resolve() == ["[UNK]", "c", "b", "a"]
    frame = {"x": lookup}
    for name in ("vocabulary size", "vocabulary[:20]"):
        code = resolve_expression(rows[name].expression, "x")
        assert eval(code, frame) == rows[name].resolve(), name
    integers = keras.layers.IntegerLookup(vocabulary=[3, 5, 7])
    assert "vocabulary 4: -1 3 5 7, IntegerLookup" in views.summary(integers)


def test_a_big_vocabulary_is_not_exported(monkeypatch):
    # get_vocabulary() exports and sorts the whole table each time it is called: past
    # the limit (lowered here, not to adapt 200,000 words) the row says so instead.
    from tf_debug_repr.views import preprocessing

    lookup = keras.layers.StringLookup(vocabulary=[f"w{i}" for i in range(50)])
    monkeypatch.setattr(preprocessing, "VOCABULARY_LIMIT", 40)
    monkeypatch.setattr(preprocessing, "SUMMARY_VOCABULARY_LIMIT", 40)
    exported = []
    monkeypatch.setattr(lookup, "get_vocabulary", lambda: exported.append(1) or ["?"])
    assert views.summary(lookup).startswith("0 params, vocabulary 51, StringLookup")
    head = rows_of(lookup)["vocabulary[:20]"].resolve()
    assert str(head).startswith("not read: 51 entries, and get_vocabulary() exports")
    assert not exported
    code = resolve_expression(rows_of(lookup)["vocabulary[:20]"].expression, "x")
    assert eval(code, {"x": lookup}) == head


def test_normalization_shows_mean_and_variance():
    adapted = keras.layers.Normalization()
    adapted.adapt(np.array([[1.0, 2.0], [3.0, 6.0]]))
    assert views.summary(adapted).endswith(
        "count[], mean=[2, 4] variance=[1, 4], Normalization 'normalization'"
    )
    # the weights by the attributes holding them (adapt_mean), beside the mean attribute
    rows = rows_of(adapted)
    assert rows["adapt_mean"].expression == ".adapt_mean" and "normalization/mean" not in rows
    assert rows["adapt_mean"].resolve() is adapted.adapt_mean
    assert np.array_equal(rows["mean"].resolve().numpy(), [[2.0, 4.0]])
    given = keras.layers.Normalization(mean=2.0, variance=4.0)
    assert views.summary(given).startswith(
        "0 params, mean=2 variance=4 (given, applied at build), "
    )
    assert views.summary(keras.layers.Normalization()).startswith("not built yet (no weights), ")


class MyDense(keras.layers.Layer):
    """TF's guide's layer with raw tf.Variables (Keras 3 counts none of them)."""

    def __init__(self, in_features: int, out_features: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.w = tf.Variable(tf.ones([in_features, out_features]), name="w")
        self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def call(self, x):
        return tf.nn.relu(x @ self.w + self.b)


def test_raw_variables_in_a_keras_layer_are_shown():
    layer = MyDense(3, 2)
    assert views.summary(layer) == (
        "0 params; variables outside weights: w[3, 2] b[2], MyDense 'my_dense'"
    )
    rows = rows_of(layer)
    assert rows["w"].resolve() is layer.w and rows["w"].expression == ".w"
    assert rows["b"].resolve() is layer.b


class DeepDream(tf.Module):
    """TF's DeepDream tutorial: a module whose __init__ never calls super().__init__()."""

    def __init__(self, model) -> None:
        self.model = model


def small_model() -> keras.Model:
    return keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])


def test_module_without_super_init_reads_without_error():
    dream = DeepDream(small_model())
    summary = views.summary(dream)
    assert summary == "9 params, 2 variables, DeepDream"
    rows = rows_of(dream)
    assert rows["model"].resolve() is dream.model
    assert "name" not in rows  # its read raises: in the trailing group
    raised = {row.name: row.resolve() for row in rows["raise when read (2)"].resolve().children()}
    assert raised["name"].text.startswith("AttributeError: ")


def test_module_holding_a_keras_model_counts_its_parameters():
    class Holder(tf.Module):
        def __init__(self) -> None:
            super().__init__(name="holder")
            self.model = small_model()
            self.scale = tf.Variable(2.0)

    holder = Holder()
    assert views.summary(holder) == "10 params, 3 variables, Holder 'holder'"
    rows = rows_of(holder)
    frame = {"m": holder}
    assert eval(resolve_expression(rows["params"].expression, "m"), frame) == 10
    every = eval(resolve_expression(rows["all variables"].expression, "m"), frame)
    assert len(every) == 3 and rows["all variables"].resolve().summary().startswith("3 ")
    assert rows["variables"].resolve() == holder.variables  # tf.Module's own list, still there


@pytest.mark.parametrize(
    "make",
    [
        lambda: keras.optimizers.Adam(1e-3, clipnorm=1.0),
        lambda: keras.metrics.Mean(name="m"),
        lambda: keras.losses.BinaryCrossentropy(from_logits=True),
    ],
    ids=["optimizer", "metric", "loss"],
)
def test_optimizers_metrics_and_losses_keep_every_public_attribute(make):
    obj = make()
    rows = rows_of(obj)
    expressions = {resolve_expression(r.expression, "x") for r in rows.values() if r.expression}
    public = [
        name
        for name in dir(obj)
        if not name.startswith("_") and not inspect.isroutine(getattr(type(obj), name, None))
    ]
    public = [name for name in public if not inspect.ismethod(getattr(obj, name))]
    missing = [
        name
        for name in public
        if name not in rows and not any(f"x.{name}" in e for e in expressions)
    ]
    assert not missing, missing
    assert "private attributes" in rows
    for name, row in rows.items():  # what a public attribute row shows is that attribute
        if name in public and row.expression == f".{name}":
            value = row.resolve()
            if isinstance(value, (Node, Note)):  # a structured row's view of it
                continue
            assert value is getattr(obj, name) or value == getattr(obj, name), name


class Holder(keras.layers.Layer):
    """Sublayers under the program's names: one that is also a row of the plugin's own."""

    def __init__(self) -> None:
        super().__init__()
        self.params = keras.layers.Dense(2, name="dense_params")
        self.stack = [keras.layers.Dense(2), keras.layers.Dense(2)]

    def call(self, x):
        return self.params(x) + self.stack[0](x) + self.stack[1](x)


def test_a_sublayer_held_by_an_attribute_is_its_row_by_that_name():
    layer = Holder()
    layer(tf.zeros([1, 3]))
    rows = rows_of(layer)
    # the attribute keeps the program's name; the plugin's parameter count gives way
    assert rows["params"].resolve() is layer.params and rows["params"].expression == ".params"
    assert rows["params (view)"].resolve() == sum(int(np.prod(w.shape)) for w in layer.weights)
    # the list's layers are in Keras's list only: named by themselves, the list by its name
    listed = [name for name in rows if name.endswith(" (Dense)")]
    assert len(listed) == 2 and "stack" in rows
    for name in listed:
        code = resolve_expression(rows[name].expression, "x")
        assert eval(code, {"x": layer}) is rows[name].resolve()
