"""Keras model.fit: first compiled (tf.function, gradients symbolic), then run_eagerly."""

import keras
import numpy as np

keras.utils.set_random_seed(3)
x = np.random.rand(64, 5).astype("float32")
y = np.random.rand(64, 1).astype("float32")
model = keras.Sequential(
    [keras.Input((5,)), keras.layers.Dense(6, activation="relu"), keras.layers.Dense(1)]
)
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, batch_size=16, epochs=1, verbose=0)
compiled_done = True  # STOP_AFTER_COMPILED_FIT

model.compile(optimizer="adam", loss="mse", run_eagerly=True)
model.fit(x, y, batch_size=16, epochs=1, verbose=0)
eager_done = True  # STOP_AFTER_EAGER_FIT
