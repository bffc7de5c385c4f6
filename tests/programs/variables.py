"""Variables of both families, before and after they have a value, on a second logical
CPU device, and their handles."""

import keras
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(
    cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
)

made = []


@tf.function(autograph=False)  # the Python body runs while tracing
def step(x):
    if not made:
        made.append(tf.Variable(tf.fill([2], 3.0), name="made"))
    fresh = made[0]
    print("tracing")  # BREAKPOINT in first trace
    return x * fresh


doubled = step(tf.ones([2]))
fresh = made[0]
scale = tf.Variable(2.0, name="scale")
kernel = keras.Variable([[1.0, -2.0], [0.5, 4.0]], name="kernel")
layer = keras.layers.Dense(2, name="dense")
layer.build((3,))
with tf.device("/CPU:1"):
    far = tf.reshape(tf.range(300.0), [150, 2])
    far_variable = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="far")
handle = scale.handle
# A name long enough to fill the line, a NaN, and a recorded gradient: flags and mark stay.
long_named = tf.Variable([1.0, float("nan")], name="a/very/long/scope/" * 20 + "kernel")
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(long_named * 2.0)
tape.gradient(loss, [long_named])
with tf.device("/CPU:0"):  # the user's own device scope, active while stopped
    print("ready")  # BREAKPOINT ready
print("doubled", doubled.numpy().tolist())
