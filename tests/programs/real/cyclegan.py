"""TensorFlow's "CycleGAN" tutorial, transcribed: horse/zebra preprocessing (random
jitter, [-1, 1]), two U-Net generators and two PatchGAN discriminators with instance
normalization, the cycle and identity losses, one *persistent* tape giving four
gradients, four Adam optimizers. The tutorial imports the models from
tensorflow_examples (not installed): its `unet_generator`, `discriminator` and
`InstanceNormalization` are written out here, at 32x32 (4 down / 3 up blocks, narrower).
tfds' horse2zebra is replaced by synthetic uint8 pictures (brown shapes / striped
shapes), 1 training pair, one epoch (2 pairs before: the second step only traced the step
again after the last stop, minutes of the suite's time and nothing looked at); matplotlib's
plots are left out."""

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)

BUFFER_SIZE = 2
BATCH_SIZE = 1
IMG_WIDTH = 32
IMG_HEIGHT = 32
OUTPUT_CHANNELS = 3
LAMBDA = 10


def synthetic_horses_and_zebras(count, striped):
    """In place of tfds.load('cycle_gan/horse2zebra'): (image uint8 [40, 40, 3], label)."""
    rng = np.random.default_rng(1 + striped)
    yy, xx = np.mgrid[0:40, 0:40]
    images = []
    for _ in range(count):
        body = ((yy - rng.integers(12, 28)) / 8.0) ** 2 + (
            (xx - rng.integers(12, 28)) / 12.0
        ) ** 2 < 1
        coat = np.where((xx // 3) % 2 == 0, 250, 20)[..., None] if striped else [140, 90, 40]
        picture = np.where(body[..., None], coat, [90, 160, 70]) + rng.normal(0, 6, (40, 40, 3))
        images.append(np.clip(picture, 0, 255).astype(np.uint8))
    return tf.data.Dataset.from_tensor_slices((np.stack(images), np.full(count, striped)))


train_horses = synthetic_horses_and_zebras(1, 0)
train_zebras = synthetic_horses_and_zebras(1, 1)


def random_crop(image):
    cropped_image = tf.image.random_crop(image, size=[IMG_HEIGHT, IMG_WIDTH, 3])

    return cropped_image


# normalizing the images to [-1, 1]
def normalize(image):
    image = tf.cast(image, tf.float32)
    image = (image / 127.5) - 1
    return image


def random_jitter(image):
    # resizing to 286 x 286 x 3 (here 36 x 36 x 3)
    image = tf.image.resize(image, [36, 36], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)

    # randomly cropping to 256 x 256 x 3 (here 32 x 32 x 3)
    image = random_crop(image)

    # random mirroring
    image = tf.image.random_flip_left_right(image)

    return image


def preprocess_image_train(image, label):
    image = random_jitter(image)
    image = normalize(image)
    return image


AUTOTUNE = tf.data.AUTOTUNE
train_horses = (
    train_horses.cache()
    .map(preprocess_image_train, num_parallel_calls=AUTOTUNE)
    .shuffle(BUFFER_SIZE)
    .batch(BATCH_SIZE)
)
train_zebras = (
    train_zebras.cache()
    .map(preprocess_image_train, num_parallel_calls=AUTOTUNE)
    .shuffle(BUFFER_SIZE)
    .batch(BATCH_SIZE)
)

sample_horse = next(iter(train_horses))
sample_zebra = next(iter(train_zebras))


# ---- tensorflow_examples.models.pix2pix, written out (instancenorm variants) ----
class InstanceNormalization(tf.keras.layers.Layer):
    """Instance Normalization Layer (https://arxiv.org/abs/1607.08022)."""

    def __init__(self, epsilon=1e-5):
        super().__init__()
        self.epsilon = epsilon

    def build(self, input_shape):
        self.scale = self.add_weight(
            name="scale",
            shape=input_shape[-1:],
            initializer=tf.random_normal_initializer(1.0, 0.02),
            trainable=True,
        )
        self.offset = self.add_weight(
            name="offset", shape=input_shape[-1:], initializer="zeros", trainable=True
        )

    def call(self, x):
        mean, variance = tf.nn.moments(x, axes=[1, 2], keepdims=True)
        inv = tf.math.rsqrt(variance + self.epsilon)
        normalized = (x - mean) * inv
        return self.scale * normalized + self.offset


def downsample(filters, size, apply_norm=True):
    initializer = tf.random_normal_initializer(0.0, 0.02)
    result = tf.keras.Sequential()
    result.add(
        tf.keras.layers.Conv2D(
            filters, size, strides=2, padding="same", kernel_initializer=initializer, use_bias=False
        )
    )
    if apply_norm:
        result.add(InstanceNormalization())
    result.add(tf.keras.layers.LeakyReLU())
    return result


def upsample(filters, size, apply_dropout=False):
    initializer = tf.random_normal_initializer(0.0, 0.02)
    result = tf.keras.Sequential()
    result.add(
        tf.keras.layers.Conv2DTranspose(
            filters, size, strides=2, padding="same", kernel_initializer=initializer, use_bias=False
        )
    )
    result.add(InstanceNormalization())
    if apply_dropout:
        result.add(tf.keras.layers.Dropout(0.5))
    result.add(tf.keras.layers.ReLU())
    return result


def unet_generator(output_channels):
    down_stack = [downsample(8, 4, apply_norm=False), downsample(16, 4), downsample(16, 4)]
    down_stack += [downsample(16, 4)]
    up_stack = [upsample(16, 4, apply_dropout=True), upsample(16, 4), upsample(8, 4)]
    initializer = tf.random_normal_initializer(0.0, 0.02)
    last = tf.keras.layers.Conv2DTranspose(
        output_channels,
        4,
        strides=2,
        padding="same",
        kernel_initializer=initializer,
        activation="tanh",
    )
    concat = tf.keras.layers.Concatenate()
    inputs = tf.keras.layers.Input(shape=[None, None, 3])
    x = inputs
    skips = []
    for down in down_stack:
        x = down(x)
        skips.append(x)
    skips = reversed(skips[:-1])
    for up, skip in zip(up_stack, skips, strict=True):
        x = up(x)
        x = concat([x, skip])
    x = last(x)
    return tf.keras.Model(inputs=inputs, outputs=x)


def discriminator(target=False):
    initializer = tf.random_normal_initializer(0.0, 0.02)
    inp = tf.keras.layers.Input(shape=[None, None, 3], name="input_image")
    x = inp
    down1 = downsample(8, 4, False)(x)
    down2 = downsample(16, 4)(down1)
    zero_pad1 = tf.keras.layers.ZeroPadding2D()(down2)
    conv = tf.keras.layers.Conv2D(32, 4, strides=1, kernel_initializer=initializer, use_bias=False)(
        zero_pad1
    )
    norm1 = InstanceNormalization()(conv)
    leaky_relu = tf.keras.layers.LeakyReLU()(norm1)
    zero_pad2 = tf.keras.layers.ZeroPadding2D()(leaky_relu)
    last = tf.keras.layers.Conv2D(1, 4, strides=1, kernel_initializer=initializer)(zero_pad2)
    return tf.keras.Model(inputs=inp, outputs=last)


# ---- the tutorial ----
generator_g = unet_generator(OUTPUT_CHANNELS)
generator_f = unet_generator(OUTPUT_CHANNELS)

discriminator_x = discriminator(target=False)
discriminator_y = discriminator(target=False)

loss_obj = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def discriminator_loss(real, generated):
    real_loss = loss_obj(tf.ones_like(real), real)

    generated_loss = loss_obj(tf.zeros_like(generated), generated)

    total_disc_loss = real_loss + generated_loss

    return total_disc_loss * 0.5


def generator_loss(generated):
    return loss_obj(tf.ones_like(generated), generated)


def calc_cycle_loss(real_image, cycled_image):
    loss1 = tf.reduce_mean(tf.abs(real_image - cycled_image))

    return LAMBDA * loss1


def identity_loss(real_image, same_image):
    loss = tf.reduce_mean(tf.abs(real_image - same_image))
    return LAMBDA * 0.5 * loss


generator_g_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)
generator_f_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)

discriminator_x_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)
discriminator_y_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)

EPOCHS = 1


@tf.function
def train_step(real_x, real_y):
    # persistent is set to True because the tape is used more than
    # once to calculate the gradients.
    with tf.GradientTape(persistent=True) as tape:
        # Generator G translates X -> Y
        # Generator F translates Y -> X.

        fake_y = generator_g(real_x, training=True)
        cycled_x = generator_f(fake_y, training=True)

        fake_x = generator_f(real_y, training=True)
        cycled_y = generator_g(fake_x, training=True)

        # same_x and same_y are used for identity loss.
        same_x = generator_f(real_x, training=True)
        same_y = generator_g(real_y, training=True)

        disc_real_x = discriminator_x(real_x, training=True)
        disc_real_y = discriminator_y(real_y, training=True)

        disc_fake_x = discriminator_x(fake_x, training=True)
        disc_fake_y = discriminator_y(fake_y, training=True)

        # calculate the loss
        gen_g_loss = generator_loss(disc_fake_y)
        gen_f_loss = generator_loss(disc_fake_x)

        total_cycle_loss = calc_cycle_loss(real_x, cycled_x) + calc_cycle_loss(real_y, cycled_y)

        # Total generator loss = adversarial loss + cycle loss
        total_gen_g_loss = gen_g_loss + total_cycle_loss + identity_loss(real_y, same_y)
        total_gen_f_loss = gen_f_loss + total_cycle_loss + identity_loss(real_x, same_x)

        disc_x_loss = discriminator_loss(disc_real_x, disc_fake_x)
        disc_y_loss = discriminator_loss(disc_real_y, disc_fake_y)

    # Calculate the gradients for generator and discriminator
    generator_g_gradients = tape.gradient(total_gen_g_loss, generator_g.trainable_variables)
    generator_f_gradients = tape.gradient(total_gen_f_loss, generator_f.trainable_variables)

    discriminator_x_gradients = tape.gradient(disc_x_loss, discriminator_x.trainable_variables)
    discriminator_y_gradients = tape.gradient(disc_y_loss, discriminator_y.trainable_variables)

    # Apply the gradients to the optimizer
    generator_g_optimizer.apply_gradients(  # STEP_BREAKPOINT
        zip(generator_g_gradients, generator_g.trainable_variables, strict=True)
    )

    generator_f_optimizer.apply_gradients(
        zip(generator_f_gradients, generator_f.trainable_variables, strict=True)
    )

    discriminator_x_optimizer.apply_gradients(
        zip(discriminator_x_gradients, discriminator_x.trainable_variables, strict=True)
    )

    discriminator_y_optimizer.apply_gradients(
        zip(discriminator_y_gradients, discriminator_y.trainable_variables, strict=True)
    )


for epoch in range(EPOCHS):  # noqa: B007 (the tutorial's loop)
    n = 0
    for image_x, image_y in tf.data.Dataset.zip((train_horses, train_zebras)):
        train_step(image_x, image_y)
        n += 1  # noqa: SIM113  LOOP_BREAKPOINT
    prediction = generator_g(sample_horse)  # generate_images(generator_g, sample_horse)
