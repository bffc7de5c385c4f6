"""Regression tests for the dtype and edge-case defects of issue 7, without a debugger: each
child's expression is evaluated with eval() where the parent is named ``x``, as pydevd does."""

import ml_dtypes
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import dtypes as tf_dtypes

from tf_debug_repr import views
from tf_debug_repr.core import formatting as fmt
from tf_debug_repr.views import tensors as tensor_views


def expression_of(child, parent: str = "x") -> str:
    e = child.expression
    return e(parent) if callable(e) else parent + e


def by_name(obj) -> dict:
    return {c.name: c for c in views.children(obj)}


def test_scalar_expressions_are_valid_python_and_evaluate():
    nan = tf.constant(float("nan"))
    children = by_name(nan)
    assert not any(name.startswith("‼ first") for name in children), "no x[] for a 0-d tensor"
    assert np.isnan(eval(expression_of(children["value"]), {"x": nan}))
    assert np.isnan(float(children["value"].resolve()))
    word = tf.constant(b"\xffbytes")
    assert eval(expression_of(by_name(word)["value"]), {"x": word}) == b"\xffbytes"
    # numpy.asarray() fails on 0-d ml_dtypes tensors: the figures' expressions avoid it.
    for dtype in (tf.bfloat16, tf_dtypes.float8_e4m3fn, tf_dtypes.float8_e5m2):
        x = tf.constant(np.float32(np.nan).astype(dtype.as_numpy_dtype))
        report = by_name(x)["‼ bad values"].resolve()
        for figure in views.children(report):
            got = eval(expression_of(figure), {"x": x})
            assert float(got) == float(figure.resolve()), (dtype, figure.name)
        row = tf.constant(np.float32([1.5, -2.0]).astype(dtype.as_numpy_dtype))
        for figure in views.children(by_name(row)["stats"].resolve()):
            got = eval(expression_of(figure), {"x": row})
            assert float(got) == float(figure.resolve()), (dtype, figure.name)


def test_float8_nan_never_hides_the_elements():
    values = np.array([1.0, np.nan, 2.0, np.inf], np.float32).astype(ml_dtypes.float8_e5m2)
    x = tf.constant(values)
    children = by_name(x)
    assert [n for n in children if n.startswith("[")] == ["[0]", "[1]", "[2]", "[3]"]
    first = children["‼ first NaN/Inf at [1]"]
    assert np.isnan(float(first.resolve())) and np.isnan(
        float(eval(expression_of(first), {"x": x}))
    )
    assert views.summary(x).startswith("float8_e5m2[4] ‼ NaN×1 +Inf×1 x∈[1, 2]")


def test_dtypes_tf_cannot_slice_are_sliced_on_the_host():
    for name in ("int4", "uint2", "qint16", "quint16", "float8_e4m3fnuz", "float4_e2m1fn"):
        dtype = getattr(tf_dtypes, name)
        base = np.arange(6).reshape(2, 3) % 3
        if name.startswith("q"):
            x = tf.constant(base.astype(np.dtype(name.lstrip("q"))), dtype=dtype)
        else:
            x = tf.constant(base.astype(np.float32).astype(dtype.as_numpy_dtype))
        children = by_name(x)
        row = children["[1]"]
        assert isinstance(row.resolve(), tensor_views.HostArray)
        assert expression_of(row) == "x.numpy()[1]"
        got = eval(expression_of(row), {"x": x})
        assert np.array_equal(np.asarray(got, np.float64), base[1].astype(np.float64))
        leaf = views.children(row.resolve())[2]
        assert eval(expression_of(leaf, "x.numpy()[1]"), {"x": x}) == leaf.resolve().value
        for text in (views.console_text(x), views.clipboard_text(x)):
            assert "<error" not in text and "2" in text, (name, text)


def test_resource_handles_in_console_and_clipboard():
    handle = tf.Variable([1.0]).handle
    assert views.console_text(handle).splitlines() == [
        views.summary(handle),
        "(a handle: no values to show)",
    ]
    assert views.clipboard_text(handle) == "(a handle: no values to show)"


def test_summary_keeps_flags_and_marks_whatever_the_length():
    parts = [
        fmt.Part("Variable '" + "very/long/scope/" * 40 + "kernel' trainable", shrink=True),
        fmt.Part("float32[4, 8]"),
        fmt.Part("‼ NaN×3"),
        fmt.Part("x∈[-1, 1]", fmt.FIGURES),
        fmt.Part("μ=0 σ=1", fmt.MOMENTS),
        fmt.Part("n=32 CPU:0", fmt.FACTS),
        fmt.Part("[1., 2., …]" * 20, fmt.VALUES),
    ]
    line = fmt.with_marks(fmt.render(parts), ["∇‖g‖=0.29@step 1"])
    assert len(line) <= fmt.MAX_SUMMARY_CHARS
    assert "‼ NaN×3" in line and line.endswith("∇‖g‖=0.29@step 1")
    assert "x∈[-1, 1]" in line, "the range outlives a long name"
    assert "[1., 2." not in line, "inline values go first"
    short = fmt.render(parts[1:])
    assert short.startswith("float32[4, 8] ‼ NaN×3 x∈[-1, 1] μ=0 σ=1 n=32 CPU:0")


def test_ordinals():
    assert [fmt.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 112, 153)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "112th", "153rd",
    ]  # fmt: skip
    x = tf.zeros([153 * 65_536 + 1])
    sampled = {c.name: c for c in views.children(by_name(x)["stats"].resolve())}["sampled"]
    assert str(sampled.resolve()).startswith("mean/std from every 154th element")


def test_console_is_a_readable_screenful():
    big = tf.reshape(tf.range(10**6, dtype=tf.float32), [1000, 1000])
    lines = views.console_text(big).splitlines()
    assert lines[0] == views.summary(big)
    assert len(lines) <= 12 and any("..." in line for line in lines)
    assert "9.99999e+05]]" in lines[-2] and lines[-1].startswith("(1,000,000 elements, summarised")
    vector = tf.zeros([50_000])
    assert views.clipboard_text(vector).endswith("… first 10,000 of 50,000 elements shown")
    assert len(views.console_text(tf.zeros([3] * 8)).splitlines()) <= 42


def test_accelerator_paths_gather_corners_and_find_nan_on_the_device(monkeypatch):
    """No GPU here: the accelerator paths (gathering the console's corners, locating a NaN with
    TF ops) are taken on the CPU by telling the views the tensor is elsewhere."""
    from tf_debug_repr.core import stats

    big = tf.reshape(tf.range(10**6, dtype=tf.float32), [1000, 1000])
    on_host = tensor_views.console_values(big)
    monkeypatch.setattr(tensor_views, "is_on_host", lambda tensor: False)
    assert tensor_views.console_values(big) == on_host
    values = np.array([1.0, 2.0, np.nan], np.float32).astype(ml_dtypes.float8_e4m3fn)
    assert stats._first_bad_index_on_device(tf.constant(values)) == (2,)
    assert stats._first_bad_index_on_device(tf.constant([[1.0, np.inf]])) == (0, 1)


def test_eager_hint_only_where_it_helps():
    from tf_debug_repr.views import symbolic as symbolic_views

    with tf.Graph().as_default():
        symbolic = tf.constant(1.0) * 2.0
    assert symbolic_views.hint_for(symbolic) == symbolic_views.tracing_hint()
    tf.config.run_functions_eagerly(True)
    try:  # already set: the switch would not help
        assert symbolic_views.hint_for(symbolic) is symbolic_views.EAGER_ALREADY_HINT
    finally:
        tf.config.run_functions_eagerly(False)
    from tensorflow.python.framework.func_graph import FuncGraph

    with FuncGraph("scratch_graph").as_default():
        scratch = tf.zeros([2]) + 1.0  # the name Keras 3 gives its shape-inference graphs
    assert symbolic_views.hint_for(scratch) is symbolic_views.BUILD_PASS_HINT
    assert "Keras build pass: values at a later stop" in views.summary(scratch)


def test_console_prints_one_value_once_and_names_where_the_rest_is():
    # A scalar and a one-element tensor: the summary line is the value, printed once.
    assert views.console_text(tf.constant(3.25)) == "3.25 float32 CPU:0"
    assert views.console_text(tf.constant([[1.5]])) == "float32[1, 1] [[1.5]] CPU:0"
    assert views.console_text(tf.Variable(2.0, name="s")).count("2.0") == 1
    # A tall column of few values: the first and last rows that fit, then where the rest is.
    lines = views.console_text(tf.reshape(tf.range(64, dtype=tf.float32), [64, 1])).splitlines()
    assert len(lines) <= tensor_views.CONSOLE_LINES + 2 and " ...," in lines
    assert lines[1] == "[[ 0.]," and lines[-2] == " [63.]]", lines
    assert lines[-1].startswith("(64 elements, summarised. The rest: Copy Value in the Watch")
    # Short enough to print whole: no note.
    assert "summarised" not in views.console_text(tf.zeros([30, 1]))
