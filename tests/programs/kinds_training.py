"""A Keras custom training loop holding the kinds of values users meet beside tensors:
an optimizer (with a schedule and clipping) after two steps, a loss-scale optimizer,
metrics, a loss, shapes and specs, a TensorArray, and a list of symbolic tensors."""

import keras
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
features = tf.constant(rng.normal(size=(32, 4)), tf.float32)
labels = tf.constant(rng.integers(0, 3, size=32), tf.int32)

model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(8, name="hidden"), keras.layers.Dense(3, name="out")]
)
schedule = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
optimizer = keras.optimizers.Adam(schedule, clipnorm=1.0)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
mean_loss = keras.metrics.Mean(name="mean_loss")
accuracy = keras.metrics.SparseCategoricalAccuracy()
scaled = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.01, momentum=0.9))

for _step in range(2):
    with tf.GradientTape() as tape:
        logits = model(features)
        loss = loss_fn(labels, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    mean_loss.update_state(loss)
    accuracy.update_state(labels, logits)
scaled.apply_gradients(zip(grads, model.trainable_variables, strict=True))

image_shape = tf.TensorShape([None, 28, 28, 1])
unknown_shape = tf.TensorShape(None)
spec = tf.TensorSpec([None, 4], tf.float32, name="features")
ragged_spec = tf.RaggedTensorSpec([None, None], tf.int32)
squares = tf.TensorArray(tf.float32, size=3, clear_after_read=True)
squares = squares.write(0, [1.0, 2.0])
squares = squares.write(2, [9.0, 16.0])

traced = []


@tf.function
def trace(x):
    hidden = tf.matmul(x, tf.ones([4, 6]))
    traced.extend([x, hidden])  # graph tensors, kept after tracing
    return hidden


trace(features)
symbolic_tensors = traced
print("stopped")  # BREAKPOINT
print("after", float(squares.read(0)[1]), float(squares.read(2)[0]))
