"""The adapter's side of the views/pydevd boundary: plain Notes and Scalars become the
leaves pydevd wants, and the older (PyCharm/PyDev) provider methods agree with the DAP one.
The same paths are driven through real debuggers in tests/e2e (test_tensors.py for
debugpy, test_pydevd_xml.py for the standalone pydevd's XML protocol)."""

import math

import numpy as np
import pytest
import tensorflow as tf

from tf_debug_repr.core.view_model import Child, Node, Note, Scalar, scalar_leaf
from tf_debug_repr.hosts.pydevd import adapter as pydevd_adapter

resolver = pydevd_adapter.TensorResolveProvider()
strings = pydevd_adapter.TensorStrProvider()


def contents_by_name(obj):
    return {name: value for name, value, _ in resolver.get_contents_debug_adapter_protocol(obj)}


@pytest.mark.parametrize(
    "dtype, text",
    [(tf.float32, "0.1"), (tf.float16, "0.1"), (tf.bfloat16, "0.100098")],
)
def test_narrow_floats_reach_pydevd_as_floats_named_after_their_dtype(dtype, text):
    leaf = contents_by_name(tf.constant([0.1, 2.5], dtype=dtype))["[0]"]
    assert isinstance(leaf, float) and type(leaf).__name__ == dtype.name
    assert repr(leaf) == str(leaf) == text
    assert leaf == float(tf.constant(0.1, dtype=dtype).numpy())
    # pydevd keeps it a leaf: no provider of ours claims its type.
    assert not resolver.can_provide(type(leaf), type(leaf).__name__)


@pytest.mark.parametrize(
    "dtype, kind",
    [
        (tf.float64, float),
        (tf.int64, int),
        (tf.uint8, int),
        (tf.bool, bool),
        (tf.complex64, complex),
    ],
)
def test_other_scalars_reach_pydevd_as_plain_python_values(dtype, kind):
    leaf = contents_by_name(tf.ones([3], dtype=dtype))["[2]"]
    assert type(leaf) is kind


def test_scalar_text_is_the_dtypes_own():
    f32 = tf.constant([0.1, float("nan"), float("inf"), -0.0]).numpy()
    assert [str(scalar_leaf(v)) for v in f32] == ["0.1", "nan", "inf", "-0.0"]
    assert str(scalar_leaf(tf.constant(0.1, tf.float64).numpy())) == "0.1"
    assert scalar_leaf(tf.constant(7, tf.int32).numpy()) == Scalar(7, "int32")
    assert scalar_leaf(b"bytes stay") == b"bytes stay"  # not a numpy scalar: unchanged
    leaf = pydevd_adapter.for_pydevd(Scalar(float("nan"), "float32"))
    assert math.isnan(leaf) and repr(leaf) == "nan"


class Texts(Node):
    def __init__(self) -> None:
        self.computed: list[str] = []

    def summary(self) -> str:
        return "texts"

    def _compute(self, name: str):
        self.computed.append(name)
        return Note(f"value of {name}")

    def children(self) -> list[Child]:
        return [
            Child(name, compute=lambda name=name: self._compute(name), expression=f".{name}")
            for name in ("a", "b", "c")
        ]


def test_notes_reach_pydevd_as_bare_unexpandable_text():
    note = contents_by_name(Texts())["b"]
    assert isinstance(note, str) and type(note).__name__ == "Note"
    assert not resolver.can_provide(type(note), "Note")  # a str to pydevd: a leaf
    assert strings.can_provide(type(note), "Note")
    assert strings.get_str(note) == "value of b"  # no quotes
    for context in ("watch", "hover", "repl", "clipboard"):
        assert strings.get_str_in_context(note, context) == "value of b"


def test_views_notes_are_plain_text():
    note = Note("line")
    assert not isinstance(note, str) and str(note) == "line" and f"{note}" == "line"
    assert Note(3).text == "3"


def test_older_protocol_gives_the_dap_children():
    x = tf.reshape(tf.range(12, dtype=tf.float32), [3, 4])
    dap = resolver.get_contents_debug_adapter_protocol(x)
    by_name = resolver.get_dictionary(x)
    assert list(by_name) == [name for name, _, _ in dap]  # same names, same order
    for name, value, _ in dap:
        assert type(by_name[name]) is type(value), name
        assert strings.get_str(by_name[name]) == strings.get_str(value), name
        resolved = resolver.resolve(x, name)
        assert type(resolved) is type(value), name
        assert strings.get_str(resolved) == strings.get_str(value), name
    assert resolver.resolve(x, "no such child") is None


def test_resolve_computes_only_the_child_asked_for():
    node = Texts()
    assert str(resolver.resolve(node, "b")) == "value of b"
    assert node.computed == ["b"]


class VariableWithOffset:
    """PyCharm's own wrapper (pydevd_utils.VariableWithOffset) for a paged level."""

    def __init__(self, data, offset):
        self.data, self.offset = data, offset


def test_pycharm_paging_wrapper_is_unwrapped():
    paged = resolver.get_dictionary(VariableWithOffset(Texts(), 1))
    assert list(paged) == ["b", "c"]


def test_pycharm_get_str_signature():
    """PyCharm's pydevd calls ``get_str(value, do_trim)`` and falls back to one argument
    only on TypeError; both forms give the same text."""
    x = tf.constant([1.0, 2.0])
    assert strings.get_str(x, True) == strings.get_str(x, False) == strings.get_str(x)
    assert strings.get_str(x).startswith("float32[2] ")


@pytest.fixture
def jupyterlab(monkeypatch):
    from tf_debug_repr.hosts.pydevd import client

    monkeypatch.setattr(client, "_client_id", "jupyterlab")


def test_jupyterlab_gets_every_leaf_it_would_misprint_as_text(jupyterlab):
    """JupyterLab's tree parses a float's value with parseFloat ('-inf' and 'nan' are NaN),
    an int's with parseInt (exact to 2**53 only) and prints the type name of any other
    type (None reads "NoneType"): those leaves go as their Python text, typed "str"."""
    rows = contents_by_name(tf.constant([1.0, -np.inf, np.nan, 0.5]))
    for name, text in (("[1]", "-inf"), ("[2]", "nan"), ("‼ first NaN/Inf at [1]", "-inf")):
        leaf = rows[name]
        assert type(leaf).__name__ == "str" and strings.get_str(leaf) == f"'{text}'", name
    finite = rows["[3]"]
    assert type(finite).__name__ == "float" and repr(finite) == "0.5"
    big = contents_by_name(tf.constant([2**62 + 1, 3], tf.int64))
    assert strings.get_str(big["[0]"]) == f"'{2**62 + 1}'" and type(big["[1]"]) is int
    for value, text in ((None, "None"), (1 + 2j, "(1+2j)"), (b"ab", "b'ab'"), (-math.inf, "-inf")):
        leaf = pydevd_adapter.for_pydevd(value)
        assert type(leaf).__name__ == "str" and strings.get_str(leaf) == f"'{text}'", value
    for value in (True, 5, 0.25, "text"):
        assert pydevd_adapter.for_pydevd(value) is value


def test_other_clients_get_leaves_as_they_are():
    """VS Code and PyCharm print any type: values keep their own types there."""
    rows = contents_by_name(tf.constant([1.0, -np.inf]))
    assert type(rows["[1]"]).__name__ == "float32" and repr(rows["[1]"]) == "-inf"
    assert pydevd_adapter.for_pydevd(None) is None
    assert type(contents_by_name(tf.constant([2**62 + 1], tf.int64))["[0]"]) is int


def test_a_thread_is_marked_traced_only_once_a_client_is_there(monkeypatch):
    """A tf.data/py_function thread that ran before a client attached is not marked done:
    its first call after the client came traces it (tests/e2e/test_compiled_datasets.py
    drives the attach through a real debugpy session)."""
    import threading

    from tf_debug_repr.hosts.pydevd import client

    monkeypatch.setattr(client, "_seen", False)  # as before a client attached
    assert not client.connected()
    marks = []

    def worker() -> None:
        client.trace_this_thread()
        client.trace_this_thread()
        marks.append(getattr(client._traced, "done", False))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert marks == [False]
