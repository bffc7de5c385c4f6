"""MirroredStrategy over two logical CPU devices: mirrored, sync-on-read and per-replica
values, a Keras model and metric created in the strategy's scope, and one mirrored
variable whose replicas were made to diverge."""

import keras
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

with strategy.scope():
    weights = tf.Variable([1.0, 2.0, 3.0], name="weights")
    diverged = tf.Variable([1.0, 2.0, 3.0], name="diverged")
    counter = tf.Variable(
        0.0,
        name="counter",
        synchronization=tf.VariableSynchronization.ON_READ,
        aggregation=tf.VariableAggregation.SUM,
    )
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="dense")])
    mean = keras.metrics.Mean()


def replica_step():
    context = tf.distribute.get_replica_context()
    replica = tf.cast(context.replica_id_in_sync_group, tf.float32)
    counter.assign_add(replica + 1.0)
    return tf.fill([2], replica * 10.0)


per_replica = strategy.run(replica_step)
diverged.values[1].assign([1.0, 2.5, 3.0])  # as a bug in a custom update would
kernel = model.weights[0]
print("stopped")  # BREAKPOINT
print("counter", float(counter.read_value()))
