"""A Keras 3 layer with sublayers, stopped in its call(): first in Keras's build pass (a
shape-inference run in a scratch graph), then in a real call on data."""

import keras
import numpy as np
import tensorflow as tf


class GatedBlock(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.proj = keras.layers.Dense(3, name="proj")
        self.gate = keras.layers.Dense(3, name="gate")
        # Created here, outside the build pass: it holds its value from the start.
        self.scale = self.add_weight(shape=(3,), initializer="ones", name="scale")

    def call(self, x):
        h = self.proj(x)
        g = tf.sigmoid(self.gate(x))
        out = h * g * self.scale
        return out  # BREAKPOINT in call


model = keras.Sequential([keras.Input((4,)), GatedBlock(name="block")])
block = model.layers[0]
y = model(np.arange(8, dtype="float32").reshape(2, 4) / 8.0)
print("output", np.round(y.numpy(), 4).tolist())
