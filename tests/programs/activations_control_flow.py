"""Layers called inside a compiled training step's ``tf.cond`` branch and
``tf.while_loop`` body, beside one called in the step's own graph, and a compiled step
under a 2-replica MirroredStrategy (2 logical CPU devices).

The step runs twice: the branch runs in the first run only, the loop body three times in
each. At each stop, ``expected`` holds each layer's output in that step recomputed
eagerly with TF ops (never the layers: an eager call would be kept in its turn) from the
weights before the step; ``branch_expected`` the branch's output in the run that ran it."""

import keras
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
keras.utils.set_random_seed(4)
x = np.random.rand(8, 3).astype("float32")

plain = keras.layers.Dense(4, activation="relu", name="plain")
branch = keras.layers.Dense(4, name="branch")
looped = keras.layers.Dense(4, name="looped")
for layer, width in ((plain, 3), (branch, 4), (looped, 4)):
    layer.build((None, width))
weights = [*plain.trainable_weights, *branch.trainable_weights, *looped.trainable_weights]
optimizer = keras.optimizers.SGD(0.1)
ITERATIONS = 3


@tf.function
def step(inputs, flag):
    with tf.GradientTape() as tape:
        h = plain(inputs)
        h = tf.cond(flag, lambda: branch(h), lambda: h)
        out = tf.while_loop(lambda i, v: i < ITERATIONS, lambda i, v: (i + 1, looped(v)), (0, h))[1]
        loss = tf.reduce_mean(tf.square(out))
    grads = tape.gradient(loss, weights)
    optimizer.apply([tf.zeros_like(w) if g is None else g for g, w in zip(grads, weights)], weights)
    return out


def recompute(before, flag):
    h = tf.nn.relu(tf.matmul(x, before[0]) + before[1])
    found = {"plain": h.numpy()}
    if flag:
        h = tf.matmul(h, before[2]) + before[3]
        found["branch"] = h.numpy()
    for _ in range(ITERATIONS):
        h = tf.matmul(h, before[4]) + before[5]
    found["looped"] = h.numpy()
    return found


branch_expected = None
for flag in (True, False):
    before = [w.numpy() for w in weights]
    out = step(x, tf.constant(flag))
    expected = recompute(before, flag)
    branch_expected = expected.get("branch", branch_expected)
    print(end="")  # CONTROL_FLOW_BREAKPOINT

strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    mirrored = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="replicated")])


@tf.function
def replicated_step(features):
    return strategy.run(mirrored, args=(features,))


result = replicated_step(x)
print(end="")  # MIRRORED_BREAKPOINT
