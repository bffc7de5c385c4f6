"""Training in eager code and in tf.function (Keras fit), no NaN: prints a digest of the
weights and losses, which must not depend on TF_DEBUG_REPR_CHECK_NUMERICS."""

import hashlib
import os
import sys

import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(7)
os.environ.setdefault("TF_DETERMINISTIC_OPS", "1")
x = np.random.default_rng(0).normal(size=(64, 6)).astype(np.float32)
y = (x @ np.arange(6, dtype=np.float32)[:, None] > 0).astype(np.float32)

model = keras.Sequential(
    [keras.Input((6,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)]
)
optimizer = keras.optimizers.Adam(0.01)
losses = []
for _step in range(5):  # eager
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(keras.losses.binary_crossentropy(y, model(x), from_logits=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    losses.append(float(loss))
model.compile(optimizer=keras.optimizers.SGD(0.05), loss=keras.losses.BinaryCrossentropy(True))
history = model.fit(x, y, epochs=3, batch_size=16, shuffle=False, verbose=0)  # tf.function
digest = hashlib.sha256()
for weight in model.weights:
    digest.update(np.asarray(weight.numpy()).tobytes())
digest.update(np.asarray(losses + history.history["loss"], np.float64).tobytes())
print("DIGEST", digest.hexdigest())
checker = sys.modules.get("tf_debug_repr.numerics_check")
print("CHECKING", bool(checker is not None and checker._installed))
