"""A variable changed at some stops and not others, a variable never changed, a model
whose first layer is frozen, trained three optimizer steps between stops."""

import keras
import numpy as np
import tensorflow as tf

w = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4), name="w")
still = tf.Variable(tf.ones([5]), name="still")
model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(3, name="fixed"), keras.layers.Dense(2, name="head")]
)
model.get_layer("fixed").trainable = False
optimizer = keras.optimizers.SGD(0.1)
x = tf.random.stateless_normal([8, 4], seed=[1, 2])
y = tf.ones([8, 2])
previous = w.numpy().copy()

for step in range(4):
    scaled = w * 2.0  # a new tensor at every stop (exactly twice w)
    print("stop", step)  # BREAKPOINT
    previous = w.numpy().copy()  # w as seen at this stop: the ground truth at the next
    if step % 2 == 0:
        noise = np.random.default_rng(step).normal(size=(3, 4)).astype(np.float32)
        w.assign_add(noise)
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
print("done")
