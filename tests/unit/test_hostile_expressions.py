"""Hostile names and keys: every expression the plugin writes is built from identifiers it
checked and literals it quoted, so adding any row to Watch never runs the program's text.
The real-session version is tests/e2e/test_hostile.py."""

from __future__ import annotations

import pytest

from tf_debug_repr.core import expressions

from .hostile_values import (
    HostileStr,
    evaluate_like_pydevd,
    hostile_names,
    hostile_str,
    walk_expressions,
)

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.hosts.pydevd import adapter as pydevd_adapter  # noqa: E402

views.build_table()
resolver = pydevd_adapter.TensorResolveProvider()


def ours(value):
    if not resolver.can_provide(type(value), type(value).__name__):
        return []
    return resolver.get_contents_debug_adapter_protocol(value)


def assert_no_row_runs_code(root, marker, namespace=None):
    rows = walk_expressions(ours, root, "obj")
    assert rows, "the walk found rows"
    for path, text in rows:
        evaluate_like_pydevd(text, {"obj": root, **(namespace or {})})
        assert not marker.exists(), f"{path}: {text!r} ran the marker"
    return rows


# ------------------------------------------------------------------ the pieces


def test_identifiers_are_checked_on_an_exact_copy():
    assert expressions.identifier("kernel") == "kernel"
    for bad in ["class", "x y", "x);y", "", "1x", "x\n", 3, None, b"x"]:
        assert expressions.identifier(bad) is None, bad
    sneaky = HostileStr("x);y")  # claims to be an identifier
    assert expressions.identifier(sneaky) is None
    plain = expressions.identifier(HostileStr("fine"))
    assert plain == "fine" and type(plain) is str


def test_literals_quote_only_exact_str_and_int(tmp_path):
    marker = tmp_path / "MARKER"
    key = hostile_str("k", marker)
    assert expressions.literal(key) == "'k'"  # the subclass's __repr__ never ran
    assert expressions.literal("it's") == repr("it's")
    assert expressions.literal(7) == "7"
    for other in [True, 1.5, None, b"x", ("a",), object()]:
        assert expressions.literal(other) is None, other
    assert expressions.item(key) == "['k']"
    assert not marker.exists()


def test_attribute_suffix_or_getattr_with_a_literal(tmp_path):
    assert expressions.attribute("kernel") == ".kernel"
    for name in hostile_names(tmp_path / "MARKER"):
        suffix = expressions.attribute(name)
        assert callable(suffix)
        assert eval(suffix("m").replace("@LINE@", "\n"), {"m": type("M", (), {name: 1})}) == 1
    assert expressions.attribute(3) is None


@pytest.mark.parametrize(
    "text",
    [
        "x);__import__('os').system('touch M')#",
        "x\n__import__('os')",
        "__import__('os').system('x')",
        "open('M', 'w')",
        "x.__class__.__init__.__globals__['os']",
        "(y := 3)",
        "getattr(x, '__globals__')",
        "exec('1')",
        "__builtins__['eval']('1')",
    ],
)
def test_the_last_net_refuses_code(text):
    assert not expressions.expression_ok(text)
    assert not expressions.expression_ok(text)  # its remembered verdict
    # past the remembered length, and as a str subclass (never remembered): the same
    assert not expressions.expression_ok(text + " " * 300)
    assert not expressions.expression_ok(type("S", (str,), {})(text))


@pytest.mark.parametrize(
    "text",
    [
        "x.weights[0]",
        "getattr(x, 'a b')['k'][3]",
        "__import__('tf_debug_repr._expr', fromlist=['_']).param_count(x)",
        "__import__('numpy').asarray(x.numpy())[0, 1]",
        "__import__('tf_debug_repr._expr', fromlist=['_']).eagerly(lambda v: v[0], x)",
        "float(x.learning_rate)",
        # a tensor's size row, and stats of a weight read during Keras's build pass
        "__import__('math').prod(x.shape)",
        "__import__('tf_debug_repr._expr', fromlist=['_']).eagerly("
        "lambda v: __import__('tensorflow').convert_to_tensor(v), self.scale)",
    ],
)
def test_the_last_net_lets_the_plugins_own_forms_through(text):
    assert expressions.expression_ok(text)
    assert expressions.expression_ok(text)  # its remembered verdict
    assert expressions.expression_ok(text + " " * 300)


def test_the_adapter_drops_an_expression_that_is_code(tmp_path):
    from tf_debug_repr.core.view_model import Child, Node

    class Bad(Node):
        def summary(self):
            return "bad"

        def children(self):
            return [
                Child("a", 1, ").x;__import__('os')#"),
                Child("b", 2, lambda p: f"{p};open('x')"),
                Child("c", 3, ".fine"),
            ]

    rows = resolver.get_contents_debug_adapter_protocol(Bad())
    assert [(n, e) for n, _, e in rows] == [("a", None), ("b", None), ("c", ".fine")]


def test_a_note_from_a_str_subclass_keeps_none_of_its_methods(tmp_path):
    from tf_debug_repr.core.view_model import Note

    marker = tmp_path / "MARKER"
    note = Note(hostile_str("text", marker))
    assert type(note.text) is str and note.text == "text"
    assert not marker.exists()


# ------------------------------------------------------------------ the views


def test_tf_module_with_hostile_attribute_names_and_keys(tmp_path):
    marker = tmp_path / "MARKER"
    module = tf.Module(name="hostile")
    for i, name in enumerate(hostile_names(marker)):
        setattr(module, name, tf.Variable([float(i)]))
    vars(module)[hostile_str("sub", marker)] = tf.Variable([9.0])
    module.by_key = {hostile_str("k", marker): tf.Variable([1.0]), "it's": tf.Variable([2.0])}
    module.listed = [tf.Variable([3.0])]
    rows = assert_no_row_runs_code(module, marker)
    texts = [t for _, t in rows]
    assert "obj.by_key['k']" in texts and 'obj.by_key["it\'s"]' in texts
    assert "obj.listed[0]" in texts
    for name in hostile_names(marker):  # each hostile attribute is a row, through getattr
        assert f"getattr(obj, {expressions.literal(name)})" in texts, name


def test_keras_layer_with_hostile_attribute_names_and_name_with_quotes(tmp_path):
    marker = tmp_path / "MARKER"
    layer = keras.layers.Dense(2, name="d'q\"")
    layer.build((None, 3))
    for i, name in enumerate(hostile_names(marker)):
        object.__setattr__(layer, name, tf.Variable([float(i)]))  # raw: untracked by Keras
    vars(layer)[hostile_str("raw", marker)] = tf.Variable([5.0])
    assert_no_row_runs_code(layer, marker)


def test_schedule_config_keys_that_are_str_subclasses(tmp_path):
    marker = tmp_path / "MARKER"
    key = hostile_str("rate", marker)

    class Schedule(keras.optimizers.schedules.LearningRateSchedule):
        def __call__(self, step):
            return 0.1

        def get_config(self):
            return {key: 0.1, "steps": 3}

    rows = assert_no_row_runs_code(Schedule(), marker)
    assert ("obj.get_config()['rate']") in [t for _, t in rows]
    assert not marker.exists()


def test_optimizer_slots_of_weights_named_with_quotes(tmp_path):
    marker = tmp_path / "MARKER"
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d'q")])
    opt = keras.optimizers.Adam()
    opt.build(model.trainable_variables)
    rows = assert_no_row_runs_code(opt, marker)
    assert any("slots_by_weight" in t and "q" in t for _, t in rows)


def test_memory_report_rows_with_hostile_keys_and_names(tmp_path):
    import tf_debug_repr

    marker = tmp_path / "MARKER"

    class Holder:
        pass

    def frame():
        holder = Holder()
        for name in hostile_names(marker):
            vars(holder)[name] = tf.zeros([10])
        vars(holder)[hostile_str("sneaky", marker)] = tf.zeros([11])
        keyed = {hostile_str("k", marker): tf.zeros([12]), "plain": tf.zeros([13])}
        return tf_debug_repr.memory(), {"holder": holder, "keyed": keyed}

    report, namespace = frame()
    expressions_found = [f.expression for f in report.found]
    assert "keyed['k']" in expressions_found and "keyed['plain']" in expressions_found
    assert "holder.sneaky" in expressions_found
    rows = walk_expressions(ours, report, "obj")
    for path, text in rows:
        evaluate_like_pydevd(text, {"obj": report, **namespace})
        assert not marker.exists(), f"{path}: {text!r} ran the marker"
    for text in expressions_found:
        evaluate_like_pydevd(text, namespace)
        assert not marker.exists(), text


@pytest.mark.parametrize(
    "text",
    [
        "__tf_debug_repr_parent__[0:10000]",
        "__tf_debug_repr_parent__[0:10000][400:500]",
        "x[3, -1]",
        "x[0]",
        "x[-12:0, 3]",
        "exec[0]",
        "eval[0:1]",
        "breakpoint[2]",
        "open[0:2]",
        "__import__[0:2]",
        "None[0]",
        "if[0]",
        "x[007]",
        "x²[0]",
        "x[1:2:3]",
        "x[1,2]",
        "x[+1]",
        "x[0] ",
        "x [0]",
        "_[0]",
        "é[0]",
    ],
)
def test_an_indexed_names_verdict_without_the_parse_is_the_parses(text):
    """Rows' texts that are a name and integer indices or slices take a shorter way
    (``_INDEXED``): the same verdict as the parse and walk, a forbidden name's included."""
    assert expressions._verdict(text) == expressions._parsed_verdict(text), text


def test_an_indexed_forbidden_name_is_refused():
    assert not expressions.expression_ok("exec[0]")
    assert not expressions.expression_ok("open[0:2]")
    assert expressions.expression_ok("__tf_debug_repr_parent__[0:10000]")
