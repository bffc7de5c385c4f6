"""Programs users debug, transcribed from keras-io and TF's guides for issue 15's walk, run
under whichever Keras is installed: Keras 3, TF 2.13-2.15's Keras 2, or tf_keras
(TF_USE_LEGACY_KERAS=1). Synthetic data stands in for every download; sizes are cut.

- keras-io "Customizing what happens in fit()" (fchollet), its GAN: two optimizers, a loss
  function, two loss trackers (Keras 3's code calls ``optimizer.apply``, its Keras 2 version
  ``apply_gradients``: ``apply`` below picks the one the running Keras has);
- keras-io "WGAN-GP" (A_K_Nain): ``d_steps``, ``gp_weight``, a gradient penalty with a
  nested tape, two loss functions passed to ``compile``;
- keras-io "Variational AutoEncoder" (fchollet): a ``Sampling`` layer, encoder and decoder,
  three metric trackers;
- keras-io "Knowledge Distillation" (Kenneth Borup): teacher, student, two loss functions,
  ``alpha``, ``temperature``, compiled metrics;
- keras-io "Working with preprocessing layers": StringLookup, IntegerLookup, Normalization,
  TextVectorization, Hashing, adapted;
- TF's "Introduction to modules": ``Dense``/``SequentialModule`` tf.Modules, ``MyDense``
  with raw ``tf.Variable``s in a Keras layer, a SavedModel round trip, a CheckpointManager.

Each ``train_step`` runs eagerly (``run_eagerly=True``, as a user debugging it sets) and
stops once at its marker; the module stops at the end."""

import os
import tempfile

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)

keras = __import__("tf_keras" if os.getenv("TF_USE_LEGACY_KERAS") == "1" else "keras")
KERAS_2 = keras.__version__.startswith("2.")
layers = keras.layers
rng = np.random.default_rng(0)


def apply(optimizer, grads, weights):
    if KERAS_2:
        optimizer.apply_gradients(zip(grads, weights, strict=True))
    else:
        optimizer.apply(grads, weights)


# ------------------------------------------------------------------ GAN (custom fit)
latent_dim = 8
discriminator = keras.Sequential(
    [
        keras.Input(shape=(12, 12, 1)),
        layers.Conv2D(4, (3, 3), strides=(2, 2), padding="same"),
        layers.LeakyReLU(0.2),
        layers.GlobalMaxPooling2D(),
        layers.Dense(1),
    ],
    name="discriminator",
)
generator = keras.Sequential(
    [
        keras.Input(shape=(latent_dim,)),
        layers.Dense(3 * 3 * 4),
        layers.LeakyReLU(0.2),
        layers.Reshape((3, 3, 4)),
        layers.Conv2DTranspose(4, (4, 4), strides=(4, 4), padding="same"),
        layers.Conv2D(1, (3, 3), padding="same", activation="sigmoid"),
    ],
    name="generator",
)


class GAN(keras.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")

    def compile(self, d_optimizer, g_optimizer, loss_fn, **kwargs):
        super().compile(**kwargs)
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def train_step(self, real_images):
        if isinstance(real_images, tuple):
            real_images = real_images[0]
        batch_size = tf.shape(real_images)[0]
        random_latent_vectors = tf.random.normal(shape=(batch_size, self.latent_dim))
        generated_images = self.generator(random_latent_vectors)
        combined_images = tf.concat([generated_images, real_images], axis=0)
        labels = tf.concat([tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0)
        labels += 0.05 * tf.random.uniform(tf.shape(labels))
        with tf.GradientTape() as tape:
            predictions = self.discriminator(combined_images)
            d_loss = self.loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        apply(self.d_optimizer, grads, self.discriminator.trainable_weights)
        random_latent_vectors = tf.random.normal(shape=(batch_size, self.latent_dim))
        misleading_labels = tf.zeros((batch_size, 1))
        with tf.GradientTape() as tape:
            predictions = self.discriminator(self.generator(random_latent_vectors))
            g_loss = self.loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        apply(self.g_optimizer, grads, self.generator.trainable_weights)
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)  # GAN_BREAKPOINT
        return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}


images = rng.uniform(size=(16, 12, 12, 1)).astype("float32")
gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
gan.compile(
    d_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
    g_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
    loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
    run_eagerly=True,
)
gan.fit(tf.data.Dataset.from_tensor_slices(images).batch(8), epochs=1, verbose=0)


# ------------------------------------------------------------------ WGAN-GP
class WGAN(keras.Model):
    def __init__(
        self, discriminator, generator, latent_dim, discriminator_extra_steps=2, gp_weight=10.0
    ):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.d_steps = discriminator_extra_steps
        self.gp_weight = gp_weight

    def compile(self, d_optimizer, g_optimizer, d_loss_fn, g_loss_fn):
        super().compile(run_eagerly=True)
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.d_loss_fn = d_loss_fn
        self.g_loss_fn = g_loss_fn

    def gradient_penalty(self, batch_size, real_images, fake_images):
        alpha = tf.random.uniform([batch_size, 1, 1, 1], 0.0, 1.0)
        diff = fake_images - real_images
        interpolated = real_images + alpha * diff
        with tf.GradientTape() as gp_tape:
            gp_tape.watch(interpolated)
            pred = self.discriminator(interpolated, training=True)
        grads = gp_tape.gradient(pred, [interpolated])[0]
        norm = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=[1, 2, 3]))
        return tf.reduce_mean((norm - 1.0) ** 2)

    def train_step(self, real_images):
        if isinstance(real_images, tuple):
            real_images = real_images[0]
        batch_size = tf.shape(real_images)[0]
        for _ in range(self.d_steps):
            random_latent_vectors = tf.random.normal(shape=(batch_size, self.latent_dim))
            with tf.GradientTape() as tape:
                fake_images = self.generator(random_latent_vectors, training=True)
                fake_logits = self.discriminator(fake_images, training=True)
                real_logits = self.discriminator(real_images, training=True)
                d_cost = self.d_loss_fn(real_img=real_logits, fake_img=fake_logits)
                gp = self.gradient_penalty(batch_size, real_images, fake_images)
                d_loss = d_cost + gp * self.gp_weight
            d_gradient = tape.gradient(d_loss, self.discriminator.trainable_variables)
            apply(self.d_optimizer, d_gradient, self.discriminator.trainable_variables)
        random_latent_vectors = tf.random.normal(shape=(batch_size, self.latent_dim))
        with tf.GradientTape() as tape:
            generated_images = self.generator(random_latent_vectors, training=True)
            gen_img_logits = self.discriminator(generated_images, training=True)
            g_loss = self.g_loss_fn(gen_img_logits)
        gen_gradient = tape.gradient(g_loss, self.generator.trainable_variables)
        apply(self.g_optimizer, gen_gradient, self.generator.trainable_variables)
        return {"d_loss": d_loss, "g_loss": g_loss}  # WGAN_BREAKPOINT


def discriminator_loss(real_img, fake_img):
    return tf.reduce_mean(fake_img) - tf.reduce_mean(real_img)


def generator_loss(fake_img):
    return -tf.reduce_mean(fake_img)


wgan = WGAN(
    discriminator=keras.models.clone_model(discriminator),
    generator=keras.models.clone_model(generator),
    latent_dim=latent_dim,
    discriminator_extra_steps=2,
)
wgan.compile(
    d_optimizer=keras.optimizers.Adam(learning_rate=0.0002, beta_1=0.5, beta_2=0.9),
    g_optimizer=keras.optimizers.Adam(learning_rate=0.0002, beta_1=0.5, beta_2=0.9),
    g_loss_fn=generator_loss,
    d_loss_fn=discriminator_loss,
)
wgan.fit(images, batch_size=8, epochs=1, verbose=0)


# ------------------------------------------------------------------ VAE
class Sampling(layers.Layer):
    """Uses (z_mean, z_log_var) to sample z, the vector encoding a digit."""

    def call(self, inputs):
        z_mean, z_log_var = inputs
        epsilon = tf.random.normal(shape=tf.shape(z_mean))
        return z_mean + tf.exp(0.5 * z_log_var) * epsilon


encoder_inputs = keras.Input(shape=(12, 12, 1))
x = layers.Conv2D(4, 3, activation="relu", strides=2, padding="same")(encoder_inputs)
x = layers.Flatten()(x)
x = layers.Dense(8, activation="relu")(x)
z_mean = layers.Dense(2, name="z_mean")(x)
z_log_var = layers.Dense(2, name="z_log_var")(x)
z = Sampling()([z_mean, z_log_var])
encoder = keras.Model(encoder_inputs, [z_mean, z_log_var, z], name="encoder")
latent_inputs = keras.Input(shape=(2,))
x = layers.Dense(6 * 6 * 4, activation="relu")(latent_inputs)
x = layers.Reshape((6, 6, 4))(x)
x = layers.Conv2DTranspose(4, 3, activation="relu", strides=2, padding="same")(x)
decoder_outputs = layers.Conv2DTranspose(1, 3, activation="sigmoid", padding="same")(x)
decoder = keras.Model(latent_inputs, decoder_outputs, name="decoder")


class VAE(keras.Model):
    def __init__(self, encoder, decoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder = encoder
        self.decoder = decoder
        self.total_loss_tracker = keras.metrics.Mean(name="total_loss")
        self.reconstruction_loss_tracker = keras.metrics.Mean(name="reconstruction_loss")
        self.kl_loss_tracker = keras.metrics.Mean(name="kl_loss")

    @property
    def metrics(self):
        return [self.total_loss_tracker, self.reconstruction_loss_tracker, self.kl_loss_tracker]

    def train_step(self, data):
        with tf.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder(data)
            reconstruction = self.decoder(z)
            reconstruction_loss = tf.reduce_mean(
                tf.reduce_sum(keras.losses.binary_crossentropy(data, reconstruction), axis=(1, 2))
            )
            kl_loss = -0.5 * (1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var))
            kl_loss = tf.reduce_mean(tf.reduce_sum(kl_loss, axis=1))
            total_loss = reconstruction_loss + kl_loss
        grads = tape.gradient(total_loss, self.trainable_weights)
        apply(self.optimizer, grads, self.trainable_weights)
        self.total_loss_tracker.update_state(total_loss)
        self.reconstruction_loss_tracker.update_state(reconstruction_loss)
        self.kl_loss_tracker.update_state(kl_loss)  # VAE_BREAKPOINT
        return {m.name: m.result() for m in self.metrics}


vae = VAE(encoder, decoder)
vae.compile(optimizer=keras.optimizers.Adam(), run_eagerly=True)
vae.fit(images, epochs=1, batch_size=8, verbose=0)


# ------------------------------------------------------------------ knowledge distillation
class Distiller(keras.Model):
    def __init__(self, student, teacher):
        super().__init__()
        self.teacher = teacher
        self.student = student

    def compile(
        self, optimizer, metrics, student_loss_fn, distillation_loss_fn, alpha=0.1, temperature=3
    ):
        super().compile(optimizer=optimizer, metrics=metrics, run_eagerly=True)
        self.student_loss_fn = student_loss_fn
        self.distillation_loss_fn = distillation_loss_fn
        self.alpha = alpha
        self.temperature = temperature

    def train_step(self, data):
        x, y = data
        teacher_predictions = self.teacher(x, training=False)
        with tf.GradientTape() as tape:
            student_predictions = self.student(x, training=True)
            student_loss = self.student_loss_fn(y, student_predictions)
            distillation_loss = self.distillation_loss_fn(
                tf.nn.softmax(teacher_predictions / self.temperature, axis=1),
                tf.nn.softmax(student_predictions / self.temperature, axis=1),
            ) * (self.temperature**2)
            loss = self.alpha * student_loss + (1 - self.alpha) * distillation_loss
        trainable_vars = self.student.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        apply(self.optimizer, gradients, trainable_vars)
        results = self.compute_metrics(x, y, student_predictions, None)
        results.update({"student_loss": student_loss, "distillation_loss": distillation_loss})
        return results  # DISTILL_BREAKPOINT


def classifier(name, width):
    return keras.Sequential(
        [
            keras.Input(shape=(12, 12, 1)),
            layers.Flatten(),
            layers.Dense(width, activation="relu"),
            layers.Dense(3),
        ],
        name=name,
    )


teacher = classifier("teacher", 16)
student = classifier("student", 4)
labels = rng.integers(0, 3, size=(16,))
teacher.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
teacher.fit(images, labels, epochs=1, verbose=0)
distiller = Distiller(student=student, teacher=teacher)
distiller.compile(
    optimizer=keras.optimizers.Adam(),
    metrics=[keras.metrics.SparseCategoricalAccuracy()],
    student_loss_fn=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    distillation_loss_fn=keras.losses.KLDivergence(),
    alpha=0.1,
    temperature=10,
)
distiller.fit(images, labels, epochs=1, batch_size=8, verbose=0)


# ------------------------------------------------------------------ preprocessing layers
string_lookup = layers.StringLookup()
string_lookup.adapt(np.array([["a", "c", "d"], ["d", "z", "b"]]))
integer_lookup = layers.IntegerLookup()
integer_lookup.adapt(np.array([[12, 1138, 42], [42, 1000, 36]]))
normalizer = layers.Normalization(axis=-1)
normalizer.adapt(rng.normal(size=(32, 3)).astype("float32"))
vectorizer = layers.TextVectorization(max_tokens=20, output_sequence_length=6)
vectorizer.adapt(["The Brain is wider than the Sky", "For put them side by side"])
hashing = layers.Hashing(num_bins=8)
tokens = vectorizer(["the brain is wider"])


# ------------------------------------------------------------------ TF's intro to modules
class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
        self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def __call__(self, x):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)


class SequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    @tf.function
    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


class MyDense(layers.Layer):
    """The guide's Keras layer holding raw tf.Variables."""

    def __init__(self, in_features, out_features, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
        self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def call(self, x):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)


my_model = SequentialModule(name="the_model")
module_output = my_model(tf.constant([[2.0, 2.0, 2.0]]))
simple_layer = MyDense(name="simple", in_features=3, out_features=3)
layer_output = simple_layer(tf.constant([[2.0, 2.0, 2.0]]))

workdir = tempfile.mkdtemp(prefix="keras_io_walk_")
saved_path = os.path.join(workdir, "the_saved_model")
tf.saved_model.save(my_model, saved_path)
new_model = tf.saved_model.load(saved_path)
reloaded_output = new_model(tf.constant([[2.0, 2.0, 2.0]]))

step = tf.Variable(0, dtype=tf.int64, name="step")
checkpoint = tf.train.Checkpoint(model=my_model, step=step)
manager = tf.train.CheckpointManager(checkpoint, os.path.join(workdir, "ckpts"), max_to_keep=2)
for _ in range(3):
    step.assign_add(1)
    manager.save()
print("done")  # END_BREAKPOINT
