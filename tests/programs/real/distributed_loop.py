"""TensorFlow's "Custom training with tf.distribute.Strategy" guide, in its shape: a
MirroredStrategy (two logical CPUs here), the model, optimizer and metrics made in its
scope (SGD: Keras 3's Adam fails to run under this compiled replica step), a per-example loss averaged by ``tf.nn.compute_average_loss`` over the global batch, a
per-replica ``train_step`` run by ``strategy.run`` inside a ``@tf.function``, and the epoch
loop in Python. Synthetic images stand in for Fashion-MNIST; two epochs of four batches.
Stopped inside the replica's step, then in the epoch loop."""

import numpy as np
import tensorflow as tf

cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(
    cpus[0], [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
)
from probe import module_probe, probe  # noqa: E402, F401  (the user's objects the suite counts)

tf.keras.utils.set_random_seed(0)  # Python, numpy, TF and Keras 3 (its initializers)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
print(f"Number of devices: {strategy.num_replicas_in_sync}")

rng = np.random.default_rng(0)
train_images = rng.random((64, 14, 14, 1), dtype=np.float32)
train_labels = rng.integers(0, 10, size=(64,)).astype("int64")
BATCH_SIZE_PER_REPLICA = 8
GLOBAL_BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync
EPOCHS = 2

train_dataset = tf.data.Dataset.from_tensor_slices((train_images, train_labels)).batch(
    GLOBAL_BATCH_SIZE
)
train_dist_dataset = strategy.experimental_distribute_dataset(train_dataset)


def create_model():
    return tf.keras.Sequential(
        [
            tf.keras.layers.Input(shape=(14, 14, 1)),
            tf.keras.layers.Conv2D(8, 3, activation="relu"),
            tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(16, activation="relu"),
            tf.keras.layers.Dense(10),
        ]
    )


with strategy.scope():
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, reduction=tf.keras.losses.Reduction.NONE
    )

    def compute_loss(labels, predictions, model_losses):
        per_example_loss = loss_object(labels, predictions)
        loss = tf.nn.compute_average_loss(per_example_loss, global_batch_size=GLOBAL_BATCH_SIZE)
        if model_losses:
            loss += tf.nn.scale_regularization_loss(tf.add_n(model_losses))
        return loss

    train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")
    model = create_model()
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.05)


def train_step(inputs):
    images, labels = inputs
    with tf.GradientTape() as tape:
        predictions = model(images, training=True)
        loss = compute_loss(labels, predictions, model.losses)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))
    train_accuracy.update_state(labels, predictions)  # REPLICA_BREAKPOINT
    return loss


@tf.function
def distributed_train_step(dataset_inputs):
    per_replica_losses = strategy.run(train_step, args=(dataset_inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


for epoch in range(EPOCHS):
    total_loss = 0.0
    num_batches = 0
    for x in train_dist_dataset:
        total_loss += distributed_train_step(x)
        num_batches += 1
    train_loss = total_loss / num_batches
    print(  # EPOCH_BREAKPOINT
        f"Epoch {epoch + 1}, Loss: {float(train_loss):.4f}, "
        f"Accuracy: {float(train_accuracy.result()) * 100:.2f}"
    )
    train_accuracy.reset_state()
print("done")
