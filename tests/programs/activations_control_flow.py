"""Layers called inside a compiled step's ``tf.cond`` branch and ``tf.while_loop`` body,
beside one called in the step's own graph, and a compiled step under a 2-replica
MirroredStrategy (2 logical CPU devices): which layer calls a step could keep."""

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


@tf.function
def step(inputs):
    h = plain(inputs)
    h = tf.cond(tf.reduce_sum(h) >= 0.0, lambda: branch(h), lambda: h)
    return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, looped(v)), (0, h))[1]


for _ in range(2):
    out = step(x)
print(end="")  # CONTROL_FLOW_BREAKPOINT

strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    mirrored = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="replicated")])


@tf.function
def replicated_step(features):
    return strategy.run(mirrored, args=(features,))


result = replicated_step(x)
print(end="")  # MIRRORED_BREAKPOINT
