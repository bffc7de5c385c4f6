"""A NaN/Inf born at a known line, in eager code: row 2 of the batch sums to zero."""

import tensorflow as tf


def normalise(batch):
    scale = tf.reduce_sum(batch, axis=1, keepdims=True)
    ratios = batch / scale  # NAN BORN HERE
    return ratios * 2.0


def main():
    batch = tf.constant([[1.0, 3.0], [2.0, 2.0], [1.0, -1.0]])
    ratios = normalise(batch)
    finite = tf.where(tf.math.is_finite(ratios), ratios, tf.zeros_like(ratios))
    print("finite total", float(tf.reduce_sum(finite)))


main()
