"""Gradients from a plain-TF compiled step (no Keras optimizer: ``assign_sub``), as in TF's
"custom training: basics" guide: at a stop between steps, ``w``'s ∇ gradient row holds what
the last run of the compiled ``tape.gradient`` returned. ``recompute`` gives it eagerly,
from the weights before that step."""

import numpy as np
import tensorflow as tf

rng = np.random.default_rng(4)
x = tf.constant(rng.standard_normal((200, 3)), tf.float32)
y = x @ tf.constant([[2.0], [-1.0], [0.5]]) + 0.3
w = tf.Variable(tf.zeros([3, 1]), name="w")
b = tf.Variable(0.0, name="b")


@tf.function
def train_step(learning_rate):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ w + b - y))
    dw, db = tape.gradient(loss, [w, b])
    w.assign_sub(learning_rate * dw)
    b.assign_sub(learning_rate * db)
    return loss


def recompute(before_w, before_b):
    w0, b0 = tf.Variable(before_w), tf.Variable(before_b)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(x @ w0 + b0 - y))
    return [g.numpy() for g in tape.gradient(loss, [w0, b0])]


for _step in range(5):
    before = (w.numpy(), b.numpy())
    loss = train_step(tf.constant(0.1))
print(end="")  # TAPE_BREAKPOINT
