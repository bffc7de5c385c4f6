"""A training loop that changes, between its stops, what a step does not: the learning
rate (assigned, as ReduceLROnPlateau does), a Keras loss's settings (assigned attributes),
a custom loss's config (read from a global), and a schedule's step (``iterations``). And
what the program's garbage collector looks like while it runs between the stops."""

import gc

import keras
import tensorflow as tf

SCALE = {"value": 1}


class ScaledLoss(keras.losses.MeanSquaredError):
    """The program's own loss class: its config reads what no attribute of it holds."""

    def get_config(self):
        return {**super().get_config(), "scale": SCALE["value"]}


model = keras.Sequential(
    [keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)]
)
optimizer = keras.optimizers.SGD(0.1)
decayed = keras.optimizers.SGD(
    keras.optimizers.schedules.ExponentialDecay(0.1, 1, 0.5, staircase=True)
)
x = tf.random.stateless_normal([32, 8], seed=[1, 2])
y = tf.random.stateless_uniform([32], seed=[3, 4], maxval=3, dtype=tf.int32)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
custom_loss = ScaledLoss()


@tf.function
def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss


for step in range(2):
    loss = train_step(x, y)
    decayed.iterations.assign_add(1)
    print("step", step, float(loss))  # BREAKPOINT
    optimizer.learning_rate = 0.025
    loss_fn.from_logits = False
    loss_fn.reduction = "sum"
    SCALE["value"] = 2
    thresholds_while_running = gc.get_threshold()  # what the program sees between stops
