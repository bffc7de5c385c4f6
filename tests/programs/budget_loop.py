"""A loop whose every iteration stops with two fresh tensors of 131,072 float32 (each over
the size below which figures are always exact), 50 ms after the previous stop resumed: a
continue stops again sooner than the pause that ends a burst of summaries."""

import time

import tensorflow as tf

for step in range(100):
    time.sleep(0.05)
    a_first = tf.random.stateless_normal([131_072], seed=[1, step])
    b_second = tf.random.stateless_normal([131_072], seed=[2, step])
    print(step)  # BREAKPOINT
