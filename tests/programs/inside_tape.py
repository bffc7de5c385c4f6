"""Stopped inside an active GradientTape: looking at values must not change what the
tape records, which variables it watches, or the random stream. The program prints
what it computed, so a plain run and a debugged run can be compared line by line."""

import tensorflow as tf

tf.random.set_seed(1)
x = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="x")
w = tf.Variable([0.5, -0.5], name="w")
unused = tf.Variable([7.0, 8.0], name="unused")  # trainable, never read inside the tape
t = tf.constant([1.0, 2.0, 3.0])
noise = tf.random.uniform([2])
with tf.GradientTape() as tape:
    tape.watch(t)
    y = tf.reduce_sum(x * x) + tf.reduce_sum(t**2)
    print("inside tape")  # BREAKPOINT
    z = y + tf.reduce_sum(w * 3.0)
after = tf.random.uniform([2])
g = tape.gradient(z, [x, w, t, unused])
print("watched", sorted(v.name for v in tape.watched_variables()))
print("grads", [None if v is None else v.numpy().tolist() for v in g])
print("random", noise.numpy().tolist(), after.numpy().tolist())
