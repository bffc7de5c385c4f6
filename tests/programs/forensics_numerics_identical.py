"""Training in eager code and in tf.function (Keras fit), no NaN: prints digests of the
weights and losses, which TF_DEBUG_REPR_CHECK_NUMERICS must not change, and the weights
themselves (the compiled part may round differently when the checks block op fusion).

TFDR_NO_REMAPPING=1 turns Grappler's remapper (op fusion) off, as the test's control."""

import hashlib
import json
import os
import sys

import keras
import numpy as np
import tensorflow as tf

if os.environ.get("TFDR_NO_REMAPPING") == "1":
    tf.config.optimizer.set_experimental_options({"remapping": False})
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


def digest_of(values):
    digest = hashlib.sha256()
    for weight in model.weights:
        digest.update(np.asarray(weight.numpy()).tobytes())
    digest.update(np.asarray(values, np.float64).tobytes())
    return digest.hexdigest()


print("EAGER DIGEST", digest_of(losses))
model.compile(optimizer=keras.optimizers.SGD(0.05), loss=keras.losses.BinaryCrossentropy(True))
history = model.fit(x, y, epochs=3, batch_size=16, shuffle=False, verbose=0)  # tf.function
print("DIGEST", digest_of(losses + history.history["loss"]))
weights = [float(v) for w in model.weights for v in np.ravel(w.numpy())]
print("WEIGHTS", json.dumps(weights + history.history["loss"]))
checker = sys.modules.get("tf_debug_repr.forensics.numerics")
print("CHECKING", bool(checker is not None and checker._installed))
