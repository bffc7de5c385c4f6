"""The benchmark's debuggee for request latency and start-up: TensorFlow imported, a
frame of two small tensors, a loop to step through."""

import tensorflow as tf


def main():
    a = tf.constant([1.0, 2.0, 3.0])
    b = tf.constant([[1, 2], [3, 4]])
    total = 0.0
    for step in range(100_000):
        c = a * float(step)  # BREAKPOINT
        total += float(step)
    return b, c, total


main()
