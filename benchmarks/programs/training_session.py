"""The benchmark's debuggee for issue 27: a training session as a new user writes it.

A 21-layer Keras MLP (5.26M parameters), Adam, a compiled ``@tf.function`` train step, and
a breakpoint in the Python loop after each step. Beside it, two tf.Variables of 10^6
float32 that each step changes (what ``Δ since last stop`` tracks once they are shown), and
ten small tensors for a Watch."""

import os

import keras
import tensorflow as tf

STEPS = int(os.environ.get("BENCH_STEPS", "7"))
layers = [keras.layers.Dense(512, activation="relu") for _ in range(20)]
model = keras.Sequential([keras.Input((512,)), *layers, keras.layers.Dense(10)])
optimizer = keras.optimizers.Adam(1e-3)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
x = tf.random.stateless_normal([64, 512], seed=[1, 2])
y = tf.random.stateless_uniform([64], seed=[3, 4], maxval=10, dtype=tf.int32)
big_a = tf.Variable(tf.zeros([1_000_000]))
big_b = tf.Variable(tf.ones([1_000_000]))
t0, t1, t2, t3, t4, t5, t6, t7, t8, t9 = (tf.fill([64], float(i)) for i in range(10))


@tf.function
def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    big_a.assign_add(tf.ones_like(big_a))
    big_b.assign(big_b * 1.5)
    return loss


for step in range(STEPS):
    loss = train_step(x, y)
    print("step", step, float(loss))  # BREAKPOINT
