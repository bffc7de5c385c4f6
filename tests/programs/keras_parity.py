"""Keras objects a training step holds, under whichever Keras runs: Keras 3, TF 2.13-2.15's
Keras 2, or tf_keras (TF_USE_LEGACY_KERAS=1). tests/e2e/test_keras_parity.py reads them."""

import os

import tensorflow as tf

keras = __import__("tf_keras" if os.getenv("TF_USE_LEGACY_KERAS") == "1" else "keras")
KERAS_2 = keras.__version__.startswith("2.")

model = keras.Sequential([keras.layers.Dense(3, name="dense")])
model.build((None, 2))
x = tf.ones((4, 2))
y = tf.zeros((4, 3))
loss_fn = keras.losses.MeanSquaredError()
metric = keras.metrics.Mean(name="loss_mean")
optimizer = keras.optimizers.Adam(0.01)
scale = tf.Variable(2.0, name="scale")
# Keras 2's second optimizer family, with a schedule (Keras 3 has no legacy family).
schedule = keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)
legacy = keras.optimizers.legacy.SGD(schedule) if KERAS_2 else None
for _step in range(2):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x) * scale)
    grads = tape.gradient(loss, [*model.trainable_variables, scale])
    optimizer.apply_gradients(zip(grads[:-1], model.trainable_variables, strict=True))
    if legacy is not None:
        legacy.apply_gradients([(grads[-1], scale)])
    metric.update_state(loss)
kernel = model.layers[0].kernel
stop_here = 1  # BREAKPOINT
