"""A training loop as a new user writes it: a small Keras MLP, a compiled
``@tf.function`` step, and a breakpoint in the Python loop after each step."""

import keras
import tensorflow as tf

model = keras.Sequential(
    [keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)]
)
optimizer = keras.optimizers.SGD(0.1)
x = tf.random.stateless_normal([32, 8], seed=[1, 2])
y = tf.random.stateless_uniform([32], seed=[3, 4], maxval=3, dtype=tf.int32)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss


for step in range(3):
    loss = train_step(x, y)
    print("step", step, float(loss))  # BREAKPOINT
