"""A Keras 3 layer called on an eager tensor for the first time: Keras runs its call()
with that real tensor while its scratch graph is the default graph (the build pass)."""

import keras
import tensorflow as tf


class Block(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.d = keras.layers.Dense(2, name="d")

    def call(self, x):
        y = self.d(x)
        return y  # BREAKPOINT in call


layer = Block(name="block")
out = layer(tf.reshape(tf.range(6, dtype=tf.float32), (2, 3)))
print("output", out.shape)
