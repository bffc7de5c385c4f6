"""A custom `keras.Model` in the shape of keras-io's GAN and VAE examples: two sub-models,
a `train_step` with two tapes and two optimizers, metric trackers, hyperparameters, a
loss function, a raw `tf.Variable`, a private attribute. `run_eagerly=True` (as a user
debugging a train_step sets it), so the breakpoint inside `train_step` is hit. Synthetic
data, one epoch of two batches."""

import os

os.environ["KERAS_BACKEND"] = "tensorflow"

import keras
import numpy as np
import tensorflow as tf


class GAN(keras.Model):
    def __init__(self, latent_dim):
        super().__init__()
        self.discriminator = keras.Sequential(
            [keras.Input((6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)],
            name="discriminator",
        )
        self.generator = keras.Sequential(
            [keras.Input((latent_dim,)), keras.layers.Dense(6)], name="generator"
        )
        self.latent_dim = latent_dim
        self.temperature = 0.5
        self.label_noise = tf.Variable(0.05, trainable=False, name="label_noise")
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")
        self._steps_seen = 0

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def compile(self, d_optimizer, g_optimizer, loss_fn, **kwargs):
        super().compile(**kwargs)
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    def train_step(self, real):
        batch_size = tf.shape(real)[0]
        noise = tf.random.normal((batch_size, self.latent_dim), seed=1)
        fake = self.generator(noise)
        combined = tf.concat([fake, real], axis=0)
        labels = tf.concat([tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0)
        labels += self.label_noise * tf.random.uniform(tf.shape(labels), seed=2)
        with tf.GradientTape() as tape:
            d_loss = self.loss_fn(labels, self.discriminator(combined) / self.temperature)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply(grads, self.discriminator.trainable_weights)
        with tf.GradientTape() as tape:
            predictions = self.discriminator(self.generator(noise))
            g_loss = self.loss_fn(tf.zeros((batch_size, 1)), predictions / self.temperature)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply(grads, self.generator.trainable_weights)
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)  # BREAKPOINT
        self._steps_seen += 1
        return {m.name: m.result() for m in self.metrics}


data = np.random.default_rng(0).normal(size=(16, 6)).astype("float32")
gan = GAN(latent_dim=4)
gan.compile(
    d_optimizer=keras.optimizers.Adam(learning_rate=3e-4),
    g_optimizer=keras.optimizers.Adam(learning_rate=1e-3),
    loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
    run_eagerly=True,
)
gan.fit(tf.data.Dataset.from_tensor_slices(data).batch(8), epochs=1, verbose=0)
print("trained")
