"""A few training steps of a small image classifier, on synthetic digits (no download).

The program the README pictures are taken in: make-screenshots.sh stops it at the last line.
"""

import keras
import numpy as np
import tensorflow as tf


def synthetic_digits(rng, n, size=28):
    """Bright strokes on black, one shape per class: a stand-in for MNIST."""
    yy, xx = np.mgrid[:size, :size] / (size - 1) - 0.5
    labels = rng.integers(0, 10, n).astype(np.int32)
    images = np.zeros((n, size, size, 1), np.float32)
    for i, label in enumerate(labels):
        angle = label * np.pi / 10
        line = np.abs(xx * np.sin(angle) - yy * np.cos(angle))
        ring = np.abs(np.hypot(xx, yy) - 0.12 - 0.025 * label)
        images[i, :, :, 0] = np.exp(-((np.minimum(line, ring) / 0.04) ** 2))
    images += rng.normal(0.0, 0.05, images.shape).astype(np.float32)
    return np.clip(images, 0.0, 1.0), labels


def main():
    keras.utils.set_random_seed(7)  # the same weights in every run
    rng = np.random.default_rng(7)
    model = keras.Sequential(
        [
            keras.Input((28, 28, 1)),
            keras.layers.Conv2D(8, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Flatten(),
            keras.layers.Dense(64, activation="relu"),
            keras.layers.Dense(10),
        ],
        name="digits",
    )
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = keras.optimizers.Adam(1e-3)

    for step in range(3):  # noqa: B007 (step is shown at the stop)
        images, labels = synthetic_digits(rng, 16)
        batch = tf.constant(images)  # float32[16, 28, 28, 1] in [0, 1]
        with tf.GradientTape() as tape:
            logits = model(batch, training=True)
            loss = loss_fn(labels, logits)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))

    # Confusion on the last batch, rows normalised: a class missing from it is 0 / 0 = NaN.
    predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
    confusion = tf.cast(tf.math.confusion_matrix(labels, predictions, num_classes=10), tf.float32)
    confusion_rates = confusion / tf.reduce_sum(confusion, axis=1, keepdims=True)
    per_class_accuracy = tf.linalg.diag_part(confusion_rates)
    kernel = model.layers[-1].kernel
    norm = float(tf.norm(kernel))
    print(f"step {step}: loss {float(loss):.4f}, kernel norm {norm:.4f}")  # breakpoint here
    return per_class_accuracy


if __name__ == "__main__":
    main()
