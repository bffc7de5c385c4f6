"""A division by zero makes +Inf on one line, the next line turns it into NaN (inf - inf):
TF_DEBUG_REPR_CHECK_NUMERICS=1 stops at the division, with its values."""

import tensorflow as tf


def step(x):
    h = tf.nn.relu(x)  # positive: no 0/0 here
    scale = tf.reduce_sum(x) - tf.reduce_sum(x)  # 0
    peak = tf.reduce_max(h)
    ratio = h / scale  # NAN BORN HERE: +Inf from a division by zero
    centred = ratio - tf.reduce_max(ratio)  # LINE AFTER: inf - inf is NaN
    return centred * peak


def main():
    x = tf.constant([1.0, 2.0, 3.0])
    out = step(x)
    print("finite", bool(tf.reduce_all(tf.math.is_finite(out))))


main()
