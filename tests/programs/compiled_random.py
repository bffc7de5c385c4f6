"""A VAE-like training step, compiled, sampling its noise (the reparameterisation trick)
from a tf.random.Generator (RNG=generator, the default) or from stateful tf.random.normal
(RNG=stateful), under tf.random.set_seed(0). Prints each step's noise and loss and the
final weights, exactly (float.hex), and one eager draw made after the steps."""

import json
import os

import numpy as np
import tensorflow as tf

tf.random.set_seed(0)
RNG = os.environ.get("RNG", "generator")
generator = tf.random.Generator.from_seed(7)
data = np.random.default_rng(0)
x = tf.constant(data.normal(size=(16, 8)), tf.float32)
encoder = tf.Variable(data.normal(size=(8, 4)) * 0.3, dtype=tf.float32, name="encoder")
decoder = tf.Variable(data.normal(size=(2, 8)) * 0.3, dtype=tf.float32, name="decoder")


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        h = tf.matmul(x, encoder)
        mean, logvar = h[:, :2], h[:, 2:]
        if RNG == "generator":
            eps = generator.normal(tf.shape(mean))
        else:
            eps = tf.random.normal(tf.shape(mean))
        z = mean + tf.exp(0.5 * logvar) * eps  # BREAKPOINT
        recon = tf.matmul(z, decoder)
        kl = -0.5 * tf.reduce_mean(1.0 + logvar - tf.square(mean) - tf.exp(logvar))
        loss = tf.reduce_mean(tf.square(recon - x)) + kl
    grads = tape.gradient(loss, [encoder, decoder])
    encoder.assign_sub(0.05 * grads[0])
    decoder.assign_sub(0.05 * grads[1])
    return loss, eps


steps = []
for _ in range(3):
    loss, eps = train_step(x)
    steps.append({"loss": float(loss), "eps": eps.numpy().ravel().tolist()})
later = tf.random.normal([2]).numpy().tolist()  # the program's own eager draw, after
result = {
    "steps": steps,
    "encoder": encoder.numpy().ravel().tolist(),
    "decoder": decoder.numpy().ravel().tolist(),
    "later": later,
}
print("RESULT " + json.dumps(result))  # END
