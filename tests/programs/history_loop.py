"""A custom training loop: a @tf.function step (tape, Adam), two steps between stops in
the Python loop."""

import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(6)
x = np.random.default_rng(1).normal(size=(32, 5)).astype(np.float32)
y = np.random.default_rng(2).normal(size=(32, 2)).astype(np.float32)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(2, name="dense")])
optimizer = keras.optimizers.Adam(0.01)


@tf.function
def train_step(inputs, targets):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(inputs) - targets))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for step in range(4):
    for _ in range(2):
        loss = train_step(x, y)
    kernel = model.layers[0].kernel
    print("step", step, float(loss))  # BREAKPOINT
print("done")
