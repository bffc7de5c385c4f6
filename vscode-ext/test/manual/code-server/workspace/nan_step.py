"""A compiled training step that makes a NaN at its third call, on synthetic data.

The shape of TF's guide "Writing a training loop from scratch", with the step standardizing
each batch's features itself. In the third batch one feature is constant (a sensor stuck at
1.0): its variance is 0, and 0 / 0 makes a NaN on the standardizing line. Run with the
extension's "stop where a NaN is born" template (TF_DEBUG_REPR_CHECK_NUMERICS=1) by
driver/compiled.js for the picture in docs/compiled-code.md.
"""

import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(7)
rng = np.random.default_rng(7)
features = rng.normal(size=(256, 8)).astype(np.float32)
features[128:192, 3] = 1.0  # the third batch: feature 3 stuck at 1.0
labels = (features.sum(axis=1) > 0).astype(np.int32)
train_dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(64)

model = keras.Sequential(
    [keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2)]
)
optimizer = keras.optimizers.SGD(0.1)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    mean, variance = tf.nn.moments(x, axes=[0])
    x = (x - mean) / tf.sqrt(variance)  # 0 / 0 where a feature is constant in the batch
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss_value = loss_fn(y, logits)
    grads = tape.gradient(loss_value, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights, strict=True))
    return loss_value


def main():
    for step, (x_batch, y_batch) in enumerate(train_dataset):
        loss_value = train_step(x_batch, y_batch)
        print(f"step {step}: loss {float(loss_value):.4f}")


if __name__ == "__main__":
    main()
