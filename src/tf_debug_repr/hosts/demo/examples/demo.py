"""A small TensorFlow program to look at in the debugger (``python -m tf_debug_repr demo``).

One training step of a two-layer model, with the kinds of values people debug:
weights, a batch, logits, gradients, a tensor that went bad, a long vector.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def main() -> tuple[object, ...]:
    tf.keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    features = tf.constant(rng.normal(size=(64, 4)), dtype=tf.float32)
    labels = tf.constant(rng.integers(0, 3, size=(64,)), dtype=tf.int32)

    model = tf.keras.Sequential(
        [
            tf.keras.Input((4,)),
            tf.keras.layers.Dense(8, activation="relu"),
            tf.keras.layers.Dense(3),
        ]
    )
    optimizer = tf.keras.optimizers.SGD(0.1)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    with tf.GradientTape() as tape:
        logits = model(features)
        loss = loss_fn(labels, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))

    kernel = model.layers[0].kernel
    scale = tf.Variable(2.0, name="scale")
    ratios = tf.constant([1.0, 0.0, -1.0, 2.0]) / tf.constant(
        [0.0, 0.0, 0.0, 4.0]
    )  # inf, nan, -inf
    long_vector = tf.range(1000, dtype=tf.float32) / 10.0
    mask = logits > 0
    words = tf.constant(["tensor", "flow"])
    dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(16)
    print("loss", float(loss))  # BREAKPOINT: the demo stops here
    return kernel, scale, ratios, long_vector, mask, words, dataset, grads


if __name__ == "__main__":
    main()
