"""A NaN made inside Keras's compiled ``model.fit`` step, in the shape keras-io's examples
use: a layer of the user's own (``call``) or a loss function of the user's own, a model
compiled and fitted on a tf.data dataset (argv: layer|loss graph|xla|loop; loop:
``steps_per_execution=2``, both batches in one call). The first batch is
fine; the second makes the NaN (a constant feature: its variance is 0; a negative target:
the square root of it), so only a re-run of that batch can find it."""

import sys

import keras
import numpy as np
import tensorflow as tf

WHERE = sys.argv[1] if len(sys.argv) > 1 else "layer"
MODE = sys.argv[2] if len(sys.argv) > 2 else "graph"


class Standardize(keras.layers.Layer):
    def call(self, inputs):
        mean, variance = tf.nn.moments(inputs, axes=[0])
        scale = tf.sqrt(variance)
        return (inputs - mean) / scale  # LAYER NAN: 0 / 0 on a constant feature


def root_error(y_true, y_pred):
    root = tf.sqrt(y_true)  # LOSS NAN: the root of a negative target
    return tf.reduce_mean(tf.square(root - y_pred), axis=-1)


features = np.linspace(-1.0, 1.0, 64, dtype="float32").reshape(16, 4)
targets = np.linspace(0.0, 1.0, 16, dtype="float32").reshape(16, 1)
if WHERE == "layer":
    features[8:, 2] = 0.5  # the second batch: feature 2 constant
else:
    targets[8:] = -targets[8:] - 1.0  # the second batch: negative targets
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(8)

layers = [keras.Input((4,))]
if WHERE == "layer":
    layers.append(Standardize())
layers.append(keras.layers.Dense(1, kernel_initializer="ones", name="head"))
model = keras.Sequential(layers)
model.compile(
    optimizer=keras.optimizers.SGD(0.01),
    loss=root_error if WHERE == "loss" else "mse",
    jit_compile=MODE == "xla",
    steps_per_execution=2 if MODE == "loop" else 1,
)
history = model.fit(dataset, epochs=1, verbose=0)  # FIT LINE
print("RESULT loss", history.history["loss"])
print("RESULT kernel finite", bool(np.isfinite(model.get_layer("head").kernel.numpy()).all()))
