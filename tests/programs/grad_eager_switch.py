"""Breakpoints inside a @tf.function and a Dataset.map function: hit only when functions
run eagerly (TF_DEBUG_REPR_EAGER=1)."""

import tensorflow as tf

v = tf.Variable([1.0, 2.0], name="v")


def scale(item):
    doubled = item * 2.0
    return doubled  # STOP_IN_MAP


dataset = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).map(scale)
items = [float(t) for t in dataset]


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * x)
    g = tape.gradient(loss, v)
    v.assign_sub(0.1 * g)  # STOP_IN_FUNCTION
    return loss


train_step(tf.constant([3.0, 4.0]))
finished = True
