"""A Keras layer of the user's own whose call() makes an Inf on constant rows, trained with
fit: run eagerly (EAGER_FIT=1) or compiled (tf.function)."""

import os

import keras
import numpy as np
import tensorflow as tf


class Scaled(keras.layers.Layer):
    def call(self, inputs):
        spread = tf.math.reduce_std(inputs, axis=1, keepdims=True)
        return inputs / spread  # NAN BORN HERE (a constant row has spread 0)


model = keras.Sequential([keras.Input((4,)), Scaled(), keras.layers.Dense(1)])
model.compile("sgd", "mse", run_eagerly=os.environ.get("EAGER_FIT") == "1")
x = np.ones((8, 4), np.float32)
x[:4] = np.arange(16, dtype=np.float32).reshape(4, 4)
model.fit(x, np.zeros((8, 1)), epochs=1, batch_size=8, verbose=0)  # FIT LINE
print("done")
