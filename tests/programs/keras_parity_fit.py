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
before = []  # the weights before each step: the last step's layer outputs, recomputed
keep = keras.callbacks.LambdaCallback(
    on_train_batch_begin=lambda batch, logs: before.append([w.numpy() for w in model.weights])
)
model.fit(x, y, batch_size=16, epochs=1, verbose=0, callbacks=[keep], shuffle=False)  # 4 steps
# the first layer's output in the last step, from its batch and the weights before it
expected = x[48:] @ before[-1][0] + before[-1][1]
legacy = None
if KERAS_2:
    legacy = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
    # keras.optimizers.legacy from Keras 2.11; before (TF 2.9's Keras), SGD is that family
    sgd = getattr(getattr(keras.optimizers, "legacy", None), "SGD", None) or keras.optimizers.SGD
    legacy.compile(optimizer=sgd(0.01), loss="mse")
    legacy.fit(x, y, batch_size=16, epochs=1, verbose=0)
stop_here = 1  # BREAKPOINT
