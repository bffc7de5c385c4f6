"""A training loop whose frame holds, beside the model, rows that each read a compiled
step's gradient records: a weight of the model, the list of its layers, and tensors that
no step applies to. The step returns its gradients (the truth the rows are checked
against). A breakpoint in the Python loop after each step."""

import keras
import tensorflow as tf

model = keras.Sequential(
    [keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)]
)
optimizer = keras.optimizers.SGD(0.1)
x = tf.random.stateless_normal([32, 8], seed=[1, 2])
y = tf.random.stateless_uniform([32], seed=[3, 4], maxval=3, dtype=tf.int32)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
layers = model.layers
kernel = model.layers[0].kernel
t0, t1, t2 = (tf.fill([4], float(i)) for i in range(3))


@tf.function
def train_step(x: tf.Tensor, y: tf.Tensor) -> list:
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return grads


for step in range(2):
    grads = train_step(x, y)
    print("step", step)  # BREAKPOINT
