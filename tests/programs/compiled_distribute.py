"""TF's "Custom training with tf.distribute.Strategy" shape on CPU: the replica step given to
strategy.run inside a @tf.function, under a OneDeviceStrategy and a MirroredStrategy of two
logical CPUs. A breakpoint in the replica step stops at every replica of every call."""

import keras
import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(
    cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
)

GLOBAL_BATCH = 8
features = np.linspace(-1.0, 1.0, 32, dtype="float32").reshape(16, 2)
labels = (features[:, :1] * 0.5 + 0.25).astype("float32")


def train_with(strategy):
    with strategy.scope():
        model = keras.Sequential(
            [keras.Input((2,)), keras.layers.Dense(1, kernel_initializer="ones")]
        )
        optimizer = keras.optimizers.SGD(0.1)

    def train_step(inputs):
        x, y = inputs
        with tf.GradientTape() as tape:
            predictions = model(x, training=True)
            per_example_loss = tf.reduce_sum(tf.square(predictions - y), axis=1)
            loss = tf.nn.compute_average_loss(per_example_loss, global_batch_size=GLOBAL_BATCH)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))
        return loss  # REPLICA_STEP

    @tf.function
    def distributed_train_step(dist_inputs):
        per_replica_losses = strategy.run(train_step, args=(dist_inputs,))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)

    dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(GLOBAL_BATCH)
    losses = [distributed_train_step(b) for b in strategy.experimental_distribute_dataset(dataset)]
    return losses, [w.numpy() for w in model.weights]


one_losses, one_weights = train_with(tf.distribute.OneDeviceStrategy("/cpu:0"))
mirrored_losses, mirrored_weights = train_with(tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]))
for r in one_losses + one_weights + mirrored_losses + mirrored_weights:
    print("RESULT", np.round(np.asarray(r), 4).tolist())
done = True  # END
