"""A custom training loop around a compiled step, on synthetic data (no download).

The shape of TF's guide "Writing a training loop from scratch": a Keras model, an optimizer, a
loss, a `@tf.function` step with a GradientTape, a Python loop over a `tf.data` dataset. The
pictures of docs/compiled-code.md (driver/compiled.js: a breakpoint on the step's last line,
then Step Over) and docs/history.md (driver/history.js: a breakpoint in the loop, six stops)
are taken in it.
"""

import keras
import numpy as np
import tensorflow as tf


def synthetic_data(rng, n):
    """20 features, 4 classes: the signs of two sums of features."""
    features = rng.normal(size=(n, 20)).astype(np.float32)
    labels = (features[:, :10].sum(axis=1) > 0) + 2 * (features[:, 10:].sum(axis=1) > 0)
    return features, labels.astype(np.int32)


keras.utils.set_random_seed(7)  # the same weights in every run
features, labels = synthetic_data(np.random.default_rng(7), 384)
train_dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(64)

model = keras.Sequential(
    [
        keras.Input((20,)),
        keras.layers.Dense(32, activation="relu", name="hidden"),
        keras.layers.Dense(4, name="logits"),
    ],
    name="classifier",
)
optimizer = keras.optimizers.Adam(1e-2)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss_value = loss_fn(y, logits)
    grads = tape.gradient(loss_value, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights, strict=True))
    return loss_value  # breakpoint: step


# The loop runs at the module's level, as in the guide: the Variables pane lists the model.
kernel = model.get_layer("hidden").kernel  # the weight the History tab follows
losses = []
for step, (x_batch, y_batch) in enumerate(train_dataset):  # noqa: B007 (step is shown at the stop)
    loss_value = train_step(x_batch, y_batch)
    losses.append(float(loss_value))  # breakpoint: loop
print(f"{step + 1} steps, losses {np.round(losses, 4)}, kernel norm {float(tf.norm(kernel)):.4f}")
