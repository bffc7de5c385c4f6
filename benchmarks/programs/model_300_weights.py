"""The benchmark's debuggee for a big model: a Keras model of 150 Dense layers (300
weights) after one custom training step, so every weight has a gradient."""

import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((16,))] + [keras.layers.Dense(16) for _ in range(150)])
optimizer = keras.optimizers.SGD(0.01)
x = tf.random.stateless_normal([8, 16], seed=[0, 0])
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
grads = tape.gradient(loss, model.trainable_weights)
optimizer.apply(grads, model.trainable_weights)
print("ready", len(model.weights))  # BREAKPOINT
