"""A compiled training step, stepped through as in VS Code: Step Into its call, Step Over
from its last line (tests/e2e/test_compiled_stepping.py)."""

import tensorflow as tf

weights = tf.Variable(tf.ones([3, 2]), name="weights")


def scale(x):
    return x * 2.0  # HELPER


@tf.function
def train_step(batch):
    logits = tf.matmul(scale(batch), weights)  # FIRST
    loss = tf.reduce_sum(logits)
    return loss  # LAST


losses = []
for step in range(3):
    loss = train_step(tf.ones([4, 3]) * (step + 1))  # CALL
    losses.append(float(loss))  # NEXT
print("losses", losses)
