"""Gradients from compiled Keras steps on real TensorFlow, without a debugger: what the
traced optimizer.apply keeps (LossScaleOptimizer, steps_per_execution, IndexedSlices, the
budget), and that the step computes the same weights bit for bit with the capture ops in."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr.gradients import capture  # noqa: E402

pytestmark = pytest.mark.usefixtures("gradient_hooks")


def dense_model(seed: int = 3):
    keras.utils.set_random_seed(seed)
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(1)])


def data(n: int = 32):
    rng = np.random.default_rng(0)
    return rng.random((n, 4), dtype=np.float32), rng.random((n, 1), dtype=np.float32)


def test_steps_per_execution_keeps_every_inner_steps_norm_and_the_last_values():
    model = dense_model()
    model.compile(optimizer="sgd", loss="mse", steps_per_execution=2)
    x, y = data(64)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)  # 4 steps in 2 executions
    record = capture.record_of(model.trainable_weights[0])
    assert record is not None and record.latest is not None
    assert [label.split(" iteration ")[1] for _, label, _ in record.latest.history] == [
        "0",
        "1",
        "2",
        "3",
    ]
    assert record.iteration == 3
    assert record.gradient.shape == (4, 3)
    assert all(np.isfinite(norm) and norm > 0 for _, _, norm in record.latest.history)


def test_loss_scale_optimizer_keeps_the_unscaled_gradient():
    x, y = data(16)
    model = dense_model()
    inner = keras.optimizers.SGD(0.0)  # lr 0: the weights stay, for the recompute
    model.compile(optimizer=keras.optimizers.LossScaleOptimizer(inner), loss="mse")
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    records = [capture.record_of(w) for w in model.trainable_weights]
    # The inner optimizer's (Keras may have numbered it apart: SGD 'sgd_1').
    assert [(r.applied_by, r.iteration) for r in records] == [("SGD", 0)] * 4
    kept = [r.gradient.numpy() for r in records]
    with tf.GradientTape() as tape:  # the same step eagerly, unscaled
        loss = model.compute_loss(x=x, y=y, y_pred=model(x, training=True))
    expected = tape.gradient(loss, model.trainable_weights)
    for got, want in zip(kept, expected, strict=True):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-7)


def test_embedding_gradients_stay_indexed_slices():
    keras.utils.set_random_seed(1)
    model = keras.Sequential(
        [keras.Input((3,), dtype="int32"), keras.layers.Embedding(50, 4), keras.layers.Flatten()]
    )
    model.compile(optimizer="adam", loss="mse")
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    model.fit(x, np.zeros((2, 12), np.float32), batch_size=2, epochs=1, verbose=0)
    record = capture.record_of(model.trainable_weights[0])
    gradient = record.gradient
    assert isinstance(gradient, tf.IndexedSlices), type(gradient)
    assert sorted(gradient.indices.numpy().tolist()) == [1, 2, 3, 4, 5, 6]
    assert gradient.values.shape == (6, 4)


def test_past_the_budget_only_the_norm_is_kept():
    capture.set_budget_mb(0)
    try:
        model = dense_model(seed=9)
        model.compile(optimizer="sgd", loss="mse")
        x, y = data(16)
        model.fit(x, y, batch_size=16, epochs=1, verbose=0)
        record = capture.record_of(model.trainable_weights[0])
        assert record.gradient is None
        assert record.latest.not_kept.startswith("values not kept: compiled steps keep")
        assert record.norm is not None and record.norm > 0
    finally:
        capture.set_budget_mb(None)


@pytest.mark.parametrize("jit", [False, True], ids=["graph", "xla"])
def test_the_capture_ops_change_no_weight(jit):
    x, y = data(64)
    weights = {}
    for on in (True, False):  # each model traced with capture on, then off
        capture.set_enabled(on)
        model = dense_model(seed=11)
        model.compile(optimizer="adam", loss="mse", jit_compile=jit)
        model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
        weights[on] = [w.numpy() for w in model.weights]
    capture.set_enabled(True)
    for a, b in zip(weights[True], weights[False], strict=True):
        assert a.tobytes() == b.tobytes()
