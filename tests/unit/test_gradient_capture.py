"""Gradient capture on real TensorFlow, without a debugger: weak registry, history,
the off switch, tf.function, IndexedSlices, optimizer-changed gradients, tapes untouched."""

from __future__ import annotations

import gc
import subprocess
import sys

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

import tf_debug_repr  # noqa: E402
from tf_debug_repr import gradient_capture as capture  # noqa: E402
from tf_debug_repr import gradient_views, tape_views, views  # noqa: E402


@pytest.fixture(autouse=True)
def hooks():
    capture.install_tape_hooks(tf)
    capture.install_keras_hooks(keras)
    gradient_views.register()
    capture.set_enabled(True)
    yield
    capture.set_enabled(True)


def _grad(v, fn):
    with tf.GradientTape() as tape:
        loss = fn(v)
    return tape.gradient(loss, v)


def test_records_are_weak_and_keyed_by_identity():
    v = tf.Variable([1.0, 2.0])
    g = _grad(v, lambda v: tf.reduce_sum(v * v))
    assert capture.record_of(v).gradient is g
    before = capture.live_records()
    del v, g
    gc.collect()
    assert capture.live_records() == before - 1


def test_keras_variable_and_the_tf_variable_inside_share_a_record():
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(tf.ones((1, 3))))
    grads = tape.gradient(loss, layer.trainable_variables)
    kernel = layer.trainable_variables[0]
    assert capture.record_of(kernel) is capture.record_of(kernel._value)
    assert capture.record_of(kernel).gradient is grads[0]
    assert tf_debug_repr.gradient_of(kernel._value) is grads[0]


def test_watched_tensor_by_identity_and_nested_sources():
    x = tf.constant([1.0, 2.0])
    y = tf.constant([1.0, 2.0])  # equal value, different object: no record
    v = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(x * x) * v
    out = tape.gradient(loss, {"a": [x], "b": (v,)})
    assert capture.record_of(x).gradient is out["a"][0]
    assert capture.record_of(v).gradient is out["b"][0]
    assert capture.record_of(y) is None


def test_history_is_bounded_and_norms_are_right():
    v = tf.Variable([3.0, 4.0])
    for i in range(capture.HISTORY + 5):
        _grad(v, lambda v, i=i: tf.reduce_sum(v) * float(i + 1))
    record = capture.record_of(v)
    norms = record.norms()
    assert len(norms) == capture.HISTORY
    assert norms[-1][1] == pytest.approx(np.sqrt(2) * (capture.HISTORY + 5))
    assert [s for s, _ in norms] == sorted(s for s, _ in norms)


def test_switching_capture_off_records_nothing_new():
    v = tf.Variable(1.0)
    _grad(v, lambda v: v * 2.0)
    step = capture.record_of(v).step
    tf_debug_repr.set_gradient_capture(False)
    g = _grad(v, lambda v: v * 5.0)
    assert float(g) == 5.0  # the program still gets its gradient
    assert capture.record_of(v).step == step
    tf_debug_repr.set_gradient_capture(True)
    _grad(v, lambda v: v * 7.0)
    assert float(capture.record_of(v).gradient) == 7.0


def test_traced_gradients_keep_no_graph_tensor():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * 3.0)
        return tape.gradient(loss, v)

    assert step().numpy().tolist() == [3.0, 3.0]
    record = capture.record_of(v)
    assert record.gradient is None and record.symbolic_in
    info = gradient_views.gradient_info(v)
    assert info.summary().startswith("∇ not available: computed inside tf.function")
    assert "∇ in tf.function" in views.summary(v)


def test_indexed_slices_gradient_norm():
    table = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), (4, 3)))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, [0, 2]) * 2.0)
    g = tape.gradient(loss, table)
    assert isinstance(g, tf.IndexedSlices)
    assert capture.record_of(table).norm == pytest.approx(float(tf.norm(tf.convert_to_tensor(g))))
    info = gradient_views.gradient_info(table)
    assert "IndexedSlices float32[4, 3] rows=2" in info.summary()
    assert {"values", "indices"} <= {c.name for c in info.children()}


def test_optimizer_keeps_the_tape_gradient_and_what_it_applied():
    v = keras.Variable([1.0, -2.0])
    opt = keras.optimizers.SGD(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v) * 10.0
    (g,) = tape.gradient(loss, [v])
    clipped = tf.clip_by_norm(g, 1.0)
    opt.apply_gradients([(clipped, v)])
    record = capture.record_of(v)
    assert record.gradient is g and record.applied is clipped and record.applied_by == "SGD"
    assert record.step == capture.record_of(v).history[-1][0]


def test_optimizer_alone_records_gradients_computed_elsewhere():
    v = keras.Variable([1.0, 2.0])
    opt = keras.optimizers.SGD(0.1)
    opt.apply_gradients([(tf.constant([0.5, 0.5]), v)])
    record = capture.record_of(v)
    assert record.origin == "SGD.apply" and record.norm == pytest.approx(np.sqrt(0.5))


def test_looking_at_a_tape_never_uses_it():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        loss = v * v
        assert tape_views.tape_summary(tape).startswith("GradientTape recording, non-persistent")
        for child in tape_views.tape_children(tape):
            child.resolve()
        views.children(v)  # reading a watched variable while the tape records
    assert tape_views.tape_summary(tape).startswith("GradientTape stopped")
    assert float(tape.gradient(loss, v)) == 4.0  # the program's one call still works
    assert "used (non-persistent" in tape_views.tape_summary(tape)


def test_module_tree_counts_parameters():
    class Net(tf.Module):
        def __init__(self):
            super().__init__(name="net")
            self.w = tf.Variable(tf.ones((3, 2)))
            self.frozen = tf.Variable(tf.ones(4), trainable=False)
            self.parts = [tf.Module(name="inner")]

    net = Net()
    assert views.summary(net).startswith(
        "Net 'net', 2 variables, 10 params (6 trainable, 4 frozen)"
    )
    names = [c.name for c in views.children(net)]
    assert names[:3] == ["w", "frozen", "parts[0]"]


def test_package_import_stays_light():
    code = "import sys, tf_debug_repr; assert 'tensorflow' not in sys.modules and not any(m.startswith('pydev') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
