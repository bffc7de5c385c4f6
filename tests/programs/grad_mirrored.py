"""One eager MirroredStrategy step over 2 logical CPU devices: each replica runs on its
own thread, computes gradients with its own tape and applies them with one optimizer."""

import keras
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="dense")])
    optimizer = keras.optimizers.SGD(0.1)
x = tf.reshape(tf.range(24, dtype=tf.float32), (8, 3)) / 10.0
batch = next(iter(strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensors(x))))


def replica_step(features):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(features) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return grads


per_replica = strategy.run(replica_step, args=(batch,))  # eager: one thread per replica
kernel_grads = strategy.experimental_local_results(per_replica[0])
kernel = model.trainable_variables[0]
done = True  # BREAKPOINT
