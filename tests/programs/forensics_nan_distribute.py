"""TF's "Custom training with tf.distribute.Strategy" shape on CPU, with a NaN made in the
replica step on the second batch (a constant feature: its standard deviation is 0), under a
MirroredStrategy of one or two logical CPUs (argv: 1|2)."""

import sys

import keras
import numpy as np
import tensorflow as tf

DEVICES = int(sys.argv[1]) if len(sys.argv) > 1 else 2

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(
    cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(DEVICES)]
)
strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(DEVICES)])

GLOBAL_BATCH = 8
features = np.linspace(-1.0, 1.0, 32, dtype="float32").reshape(16, 2)
features[8:, 1] = 0.5  # the second batch: feature 1 constant
labels = (features[:, :1] * 0.5 + 0.25).astype("float32")

with strategy.scope():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, kernel_initializer="ones")])
    optimizer = keras.optimizers.SGD(0.1)


def train_step(inputs):
    x, y = inputs
    spread = tf.math.reduce_std(x, axis=0)
    x = (x - tf.reduce_mean(x, axis=0)) / spread  # REPLICA NAN: 0 / 0 on a constant feature
    with tf.GradientTape() as tape:
        predictions = model(x, training=True)
        per_example_loss = tf.reduce_sum(tf.square(predictions - y), axis=1)
        loss = tf.nn.compute_average_loss(per_example_loss, global_batch_size=GLOBAL_BATCH)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))
    return loss


@tf.function
def distributed_train_step(dist_inputs):
    per_replica_losses = strategy.run(train_step, args=(dist_inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(GLOBAL_BATCH)
losses = []
for batch in strategy.experimental_distribute_dataset(dataset):
    losses.append(float(distributed_train_step(batch)))  # CALL LINE
print("RESULT losses", losses)
print("RESULT kernel finite", bool(np.isfinite(model.weights[0].numpy()).all()))
