"""The values driver/viewtime.js opens "View Tensor" on, many times, to time how long a view
takes to open: a small tensor, a 10^6-element weight, and a Dense kernel of the wide shape
issue 17 met ([100, 12544]). make-screenshots.sh viewtime stops it at the marked line.
"""

import numpy as np
import tensorflow as tf


def main():
    rng = np.random.default_rng(7)
    small = tf.constant(rng.normal(size=(10, 10)).astype(np.float32))
    weight = tf.Variable(rng.normal(0.0, 0.05, size=(1000, 1000)).astype(np.float32), name="weight")
    wide = tf.Variable(rng.normal(0.0, 0.02, size=(100, 12544)).astype(np.float32), name="wide")
    total = float(tf.reduce_sum(small) + tf.reduce_sum(weight) + tf.reduce_sum(wide))
    print(f"total {total:.4f}")  # breakpoint here
    return total


if __name__ == "__main__":
    main()
