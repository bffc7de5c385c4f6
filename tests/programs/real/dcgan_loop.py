"""A DCGAN custom training loop in the shape of keras-io's "DCGAN" and "GAN overriding
train_step" examples (fchollet): a convolutional discriminator and generator, two Adam
optimizers, two tapes in one `with`. Synthetic images stand in for MNIST."""

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)
from tensorflow import keras
from tensorflow.keras import layers

latent_dim = 16
batch_size = 8

discriminator = keras.Sequential(
    [
        keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(16, (3, 3), strides=(2, 2), padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2D(32, (3, 3), strides=(2, 2), padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.GlobalMaxPooling2D(),
        layers.Dense(1),
    ],
    name="discriminator",
)
generator = keras.Sequential(
    [
        keras.Input(shape=(latent_dim,)),
        layers.Dense(7 * 7 * 16),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Reshape((7, 7, 16)),
        layers.Conv2DTranspose(16, (4, 4), strides=(2, 2), padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2DTranspose(16, (4, 4), strides=(2, 2), padding="same"),
        layers.LeakyReLU(negative_slope=0.2),
        layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
    ],
    name="generator",
)
d_optimizer = keras.optimizers.Adam(learning_rate=0.0003)
g_optimizer = keras.optimizers.Adam(learning_rate=0.0003)
loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
d_loss_metric = keras.metrics.Mean(name="d_loss")
g_loss_metric = keras.metrics.Mean(name="g_loss")

rng = np.random.default_rng(0)
images = rng.random((32, 28, 28, 1), dtype=np.float32)
dataset = tf.data.Dataset.from_tensor_slices(images).batch(batch_size)


def train_step(real_images):
    noise = tf.random.normal(shape=(batch_size, latent_dim), seed=1)
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        generated = generator(noise, training=True)
        real_output = discriminator(real_images, training=True)
        fake_output = discriminator(generated, training=True)
        g_loss = loss_fn(tf.ones_like(fake_output), fake_output)
        d_loss = loss_fn(tf.ones_like(real_output), real_output) + loss_fn(
            tf.zeros_like(fake_output), fake_output
        )
    g_grads = gen_tape.gradient(g_loss, generator.trainable_weights)
    d_grads = disc_tape.gradient(d_loss, discriminator.trainable_weights)
    g_optimizer.apply_gradients(zip(g_grads, generator.trainable_weights, strict=True))
    d_optimizer.apply_gradients(zip(d_grads, discriminator.trainable_weights, strict=True))
    d_loss_metric.update_state(d_loss)
    g_loss_metric.update_state(g_loss)
    print("step done")  # BREAKPOINT
    return d_loss, g_loss


for batch in dataset.take(2):
    train_step(batch)
print("done")
