"""Keras fit, compiled, 5 epochs of 4 batches; a callback stops at each epoch's end.
Prints a digest of the final weights and the losses: looking at the weights' history at
every stop must not change it."""

import hashlib

import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(5)
x = np.random.default_rng(0).normal(size=(64, 4)).astype(np.float32)
y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)).astype(np.float32)
model = keras.Sequential(
    [
        keras.Input((4,)),
        keras.layers.Dense(3, activation="tanh", name="hidden"),
        keras.layers.Dense(1, name="out"),
    ]
)
model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")


class AtEpochEnd(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        kernel = self.model.get_layer("hidden").kernel
        print("epoch", epoch, float(tf.reduce_sum(kernel)))  # BREAKPOINT


fitted = model.fit(
    x, y, epochs=5, batch_size=16, shuffle=False, verbose=0, callbacks=[AtEpochEnd()]
)
digest = hashlib.sha256()
for weight in model.weights:
    digest.update(np.asarray(weight.numpy()).tobytes())
digest.update(np.asarray(fitted.history["loss"], np.float64).tobytes())
print("DIGEST", digest.hexdigest())
