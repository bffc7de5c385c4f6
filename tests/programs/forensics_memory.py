"""Tensors of known sizes in two frames, a Keras model with an optimizer, containers."""

import keras
import numpy as np
import tensorflow as tf


def inner(activations):
    scratch = tf.zeros([500, 500])  # 1,000,000 B: the biggest in this frame
    labels = tf.range(10)
    print("inner")  # BREAKPOINT inner
    return scratch, labels


def main():
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16), keras.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.zeros((4, 8)), np.zeros((4, 2)), verbose=0)
    batch = {"images": tf.zeros([64, 32, 32, 3]), "masks": [tf.zeros([64, 32], tf.bool)]}
    halves = tf.zeros([1000], tf.float16)
    inner(batch["images"])
    print(halves.dtype)
    print("done")


main()
