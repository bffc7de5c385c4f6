"""TF's lookup tables (where a Keras StringLookup's vocabulary lives): a summary line
and rows, each row's expression giving its value, read with TF's own ops only."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.core.tf_types import Kind, kind_of  # noqa: E402
from tf_debug_repr.views import lookup_tables  # noqa: E402


def _table():
    init = tf.lookup.KeyValueTensorInitializer(
        tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64)
    )
    return tf.lookup.StaticHashTable(init, default_value=-1)


def _rows(table):
    return {c.name: (c.compute() if c.compute else c.value, c) for c in views.children(table)}


def test_tables_read_as_their_dtypes_size_and_default():
    views.build_table()
    vocabulary = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant(["a"]), tf.constant([0], tf.int64)),
        num_oov_buckets=2,
    )
    mutable = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
    inverse = keras.layers.StringLookup(vocabulary=list("abc"), invert=True)
    assert views.summary(_table()) == "StaticHashTable string → int64, 2 entries, default -1"
    assert views.summary(vocabulary) == (
        "StaticVocabularyTable string → int64, 3 entries, 2 OOV buckets"
    )
    assert views.summary(mutable) == "MutableHashTable string → int64, 0 entries, default -1"
    assert kind_of(inverse.lookup_table) is Kind.LOOKUP_TABLE
    assert views.summary(inverse.lookup_table) == (
        "StaticHashTable int64 → string, 3 entries, default '[UNK]'"
    )


def test_each_rows_expression_gives_its_value(monkeypatch):
    views.build_table()
    table = _table()
    exports = []
    real = type(table).export
    monkeypatch.setattr(type(table), "export", lambda t, *a: exports.append(1) or real(t, *a))
    rows = _rows(table)
    assert exports == [1]  # one copy of the table for its keys and values rows
    monkeypatch.undo()
    assert [name for name in rows][:6] == [
        "size",
        "key_dtype",
        "value_dtype",
        "default_value",
        "keys",
        "values",
    ]
    assert "default_value (2)" not in rows  # TF's property is that row
    frame = {"t": table}
    for name in ("size", "key_dtype", "value_dtype"):
        value, child = rows[name]
        assert eval(child.expression("t"), frame) == (value if name == "size" else str(value))
    keys, values = (eval("t" + rows[n][1].expression, frame) for n in ("keys", "values"))
    assert dict(zip(keys.numpy().tolist(), values.numpy().tolist(), strict=True)) == {
        b"a": 1,
        b"b": 2,
    }
    assert rows["keys"][0].numpy().tolist() == keys.numpy().tolist()
    assert int(eval("t" + rows["default_value"][1].expression, frame)) == -1


def test_a_big_table_is_not_exported_and_a_programs_subclass_is_not_read(monkeypatch):
    views.build_table()
    monkeypatch.setattr(lookup_tables, "EXPORTED", 1)
    rows = _rows(_table())
    assert str(rows["keys"][0]) == "not read: more than 1 entries"

    class Mine(tf.lookup.StaticHashTable):
        def size(self, name=None):  # the program's code: never called by a look
            raise AssertionError("called")

    init = tf.lookup.KeyValueTensorInitializer(tf.constant(["a"]), tf.constant([1], tf.int64))
    mine = Mine(init, default_value=-1)
    assert views.summary(mine) == "Mine (a lookup table of the program's own class)"
    assert "size" not in _rows(mine)
