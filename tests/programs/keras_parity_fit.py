"""Compiled fit under whichever Keras runs (see keras_parity.py): the weights' gradients of
the last compiled step, labelled by the optimizer's iteration; Keras 2's legacy family too."""

import os

import numpy as np

keras = __import__("tf_keras" if os.getenv("TF_USE_LEGACY_KERAS") == "1" else "keras")
KERAS_2 = keras.__version__.startswith("2.")

x = np.random.default_rng(0).random((64, 5)).astype("float32")
y = np.random.default_rng(1).random((64, 1)).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
model.fit(x, y, batch_size=16, epochs=1, verbose=0)  # 4 compiled steps
legacy = None
if KERAS_2:
    legacy = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
    legacy.compile(optimizer=keras.optimizers.legacy.SGD(0.01), loss="mse")
    legacy.fit(x, y, batch_size=16, epochs=1, verbose=0)
stop_here = 1  # BREAKPOINT
