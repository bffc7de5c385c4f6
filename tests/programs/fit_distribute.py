"""Keras's compiled `model.fit` under a MirroredStrategy of one or two logical CPUs
(TF's "Distributed training with Keras" shape, synthetic data), a layer of the user's
standardizing its batch. FIT_DEVICES: 1|2, FIT_MODE: clean|nan (nan: feature 1 is constant
in the second batch, so its standard deviation is 0 and the layer makes 0 / 0)."""

import os

import keras
import numpy as np
import tensorflow as tf

DEVICES = int(os.environ.get("FIT_DEVICES", "2"))
MODE = os.environ.get("FIT_MODE", "clean")

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(
    cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(DEVICES)]
)
strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(DEVICES)])


class Standardize(keras.layers.Layer):
    def call(self, inputs):
        mean = tf.reduce_mean(inputs, axis=0)
        scale = tf.math.reduce_std(inputs, axis=0)
        return (inputs - mean) / scale  # LAYER LINE


features = np.linspace(-1.0, 1.0, 32, dtype="float32").reshape(16, 2)
if MODE == "nan":
    features[8:, 1] = 0.5
labels = (features[:, :1] * 0.5 + 0.25).astype("float32")

with strategy.scope():
    model = keras.Sequential(
        [keras.Input((2,)), Standardize(), keras.layers.Dense(1, kernel_initializer="ones")]
    )
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
history = model.fit(features, labels, batch_size=8, epochs=1, shuffle=False, verbose=0)  # FIT
print("RESULT loss", [f"{v:.5f}" for v in history.history["loss"]])
print("RESULT kernel", [f"{v:.5f}" for v in model.layers[1].kernel.numpy().ravel()])
