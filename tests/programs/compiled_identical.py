"""Compiled training (a @tf.function step, Keras fit, fit with XLA) whose final weights are
written to $TFDR_OUT: the same bytes with and without the debugger when no breakpoint lies in
compiled code."""

import os

import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(7)
x = np.random.rand(64, 6).astype("float32")
y = np.random.rand(64, 1).astype("float32")


def make_model():
    return keras.Sequential(
        [keras.Input((6,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)]
    )


model = make_model()
optimizer = keras.optimizers.Adam(1e-2)


@tf.function
def step(xb, yb):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss


for i in range(0, 64, 16):
    step(x[i : i + 16], y[i : i + 16])

fitted = make_model()
fitted.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
fitted.fit(x, y, batch_size=16, epochs=2, verbose=0)

xla = make_model()
xla.compile(optimizer="adam", loss="mse", jit_compile=True)
xla.fit(x, y, batch_size=16, epochs=2, verbose=0)

weights = [w.numpy() for m in (model, fitted, xla) for w in m.weights]
np.savez(os.environ["TFDR_OUT"], *weights)
done = True  # END
