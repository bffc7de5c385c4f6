"""TensorFlow's "pix2pix: Image-to-image translation with a conditional GAN" tutorial,
transcribed: the same load / resize / random_crop / normalize / random_jitter pipeline
(images in [-1, 1]), the U-Net generator of downsample/upsample blocks with skips, the
PatchGAN discriminator on two inputs, the L1 + GAN generator loss, two tapes in one
`with`, two Adam optimizers, tf.summary scalars (tf.summary.write: TensorBoard is not installed) and a Checkpoint. The facades download is
replaced by synthetic side-by-side pictures (uint8, photo | label map) decoded from
memory instead of JPEG files; 32x32 instead of 256x256 (so 5 down and 4 up blocks,
narrower), 4 training pairs, one step (4 before: the three after the stops only ran the
compiled step, which the suite's checks never look at); matplotlib's plots are left out."""

import os
import tempfile
import time

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)

# The size of the facades training set in the tutorial is 400 images
BUFFER_SIZE = 4
# The batch size of 1 produced better results for the U-Net in the original pix2pix
BATCH_SIZE = 1
# Each image is 256x256 in size (here 32x32)
IMG_WIDTH = 32
IMG_HEIGHT = 32


def synthetic_facades(count):
    """In place of the facades JPEGs: photo (left) | coloured label map (right), uint8."""
    rng = np.random.default_rng(7)
    pairs = []
    for _ in range(count):
        labels = np.zeros((40, 40), np.int32)
        for k in range(1, 6):
            y, x = rng.integers(0, 30, 2)
            labels[y : y + rng.integers(4, 12), x : x + rng.integers(4, 12)] = k
        palette = rng.integers(0, 256, size=(6, 3))
        label_map = palette[labels]
        photo = np.clip(label_map * 0.6 + rng.normal(60, 20, label_map.shape), 0, 255)
        pairs.append(np.concatenate([photo, label_map], axis=1).astype(np.uint8))
    return np.stack(pairs)


def load(image):
    # tf.io.read_file + tf.image.decode_jpeg in the tutorial: a decoded uint8 picture here
    # Split each image tensor into two tensors:
    # - one with a real building facade image
    # - one with an architecture label image
    w = tf.shape(image)[1]
    w = w // 2
    input_image = image[:, w:, :]
    real_image = image[:, :w, :]

    # Convert both images to float32 tensors
    input_image = tf.cast(input_image, tf.float32)
    real_image = tf.cast(real_image, tf.float32)

    return input_image, real_image


def resize(input_image, real_image, height, width):
    input_image = tf.image.resize(
        input_image, [height, width], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR
    )
    real_image = tf.image.resize(
        real_image, [height, width], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR
    )

    return input_image, real_image


def random_crop(input_image, real_image):
    stacked_image = tf.stack([input_image, real_image], axis=0)
    cropped_image = tf.image.random_crop(stacked_image, size=[2, IMG_HEIGHT, IMG_WIDTH, 3])

    return cropped_image[0], cropped_image[1]


# Normalizing the images to [-1, 1]
def normalize(input_image, real_image):
    input_image = (input_image / 127.5) - 1
    real_image = (real_image / 127.5) - 1

    return input_image, real_image


@tf.function()
def random_jitter(input_image, real_image):
    # Resizing to 286x286 (here 36x36)
    input_image, real_image = resize(input_image, real_image, 36, 36)

    # Random cropping back to 256x256 (here 32x32)
    input_image, real_image = random_crop(input_image, real_image)

    if tf.random.uniform(()) > 0.5:
        # Random mirroring
        input_image = tf.image.flip_left_right(input_image)
        real_image = tf.image.flip_left_right(real_image)

    return input_image, real_image


def load_image_train(image):
    input_image, real_image = load(image)
    input_image, real_image = random_jitter(input_image, real_image)
    input_image, real_image = normalize(input_image, real_image)

    return input_image, real_image


def load_image_test(image):
    input_image, real_image = load(image)
    input_image, real_image = resize(input_image, real_image, IMG_HEIGHT, IMG_WIDTH)
    input_image, real_image = normalize(input_image, real_image)

    return input_image, real_image


train_dataset = tf.data.Dataset.from_tensor_slices(synthetic_facades(4))
train_dataset = train_dataset.map(load_image_train, num_parallel_calls=tf.data.AUTOTUNE)
train_dataset = train_dataset.shuffle(BUFFER_SIZE)
train_dataset = train_dataset.batch(BATCH_SIZE)
test_dataset = tf.data.Dataset.from_tensor_slices(synthetic_facades(2))
test_dataset = test_dataset.map(load_image_test)
test_dataset = test_dataset.batch(BATCH_SIZE)

OUTPUT_CHANNELS = 3


def downsample(filters, size, apply_batchnorm=True):
    initializer = tf.random_normal_initializer(0.0, 0.02)

    result = tf.keras.Sequential()
    result.add(
        tf.keras.layers.Conv2D(
            filters, size, strides=2, padding="same", kernel_initializer=initializer, use_bias=False
        )
    )

    if apply_batchnorm:
        result.add(tf.keras.layers.BatchNormalization())

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

    result.add(tf.keras.layers.BatchNormalization())

    if apply_dropout:
        result.add(tf.keras.layers.Dropout(0.5))

    result.add(tf.keras.layers.ReLU())

    return result


def Generator():  # noqa: N802 (the tutorial's name)
    inputs = tf.keras.layers.Input(shape=[32, 32, 3])

    down_stack = [
        downsample(8, 4, apply_batchnorm=False),  # (batch_size, 16, 16, 8)
        downsample(16, 4),  # (batch_size, 8, 8, 16)
        downsample(32, 4),  # (batch_size, 4, 4, 32)
        downsample(32, 4),  # (batch_size, 2, 2, 32)
        downsample(32, 4),  # (batch_size, 1, 1, 32)
    ]

    up_stack = [
        upsample(32, 4, apply_dropout=True),  # (batch_size, 2, 2, 64)
        upsample(32, 4, apply_dropout=True),  # (batch_size, 4, 4, 64)
        upsample(16, 4),  # (batch_size, 8, 8, 32)
        upsample(8, 4),  # (batch_size, 16, 16, 16)
    ]

    initializer = tf.random_normal_initializer(0.0, 0.02)
    last = tf.keras.layers.Conv2DTranspose(
        OUTPUT_CHANNELS,
        4,
        strides=2,
        padding="same",
        kernel_initializer=initializer,
        activation="tanh",
    )  # (batch_size, 32, 32, 3)

    x = inputs

    # Downsampling through the model
    skips = []
    for down in down_stack:
        x = down(x)
        skips.append(x)

    skips = reversed(skips[:-1])

    # Upsampling and establishing the skip connections
    for up, skip in zip(up_stack, skips, strict=True):
        x = up(x)
        x = tf.keras.layers.Concatenate()([x, skip])

    x = last(x)

    return tf.keras.Model(inputs=inputs, outputs=x)


generator = Generator()

LAMBDA = 100

loss_object = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def generator_loss(disc_generated_output, gen_output, target):
    gan_loss = loss_object(tf.ones_like(disc_generated_output), disc_generated_output)

    # Mean absolute error
    l1_loss = tf.reduce_mean(tf.abs(target - gen_output))

    total_gen_loss = gan_loss + (LAMBDA * l1_loss)

    return total_gen_loss, gan_loss, l1_loss


def Discriminator():  # noqa: N802 (the tutorial's name)
    initializer = tf.random_normal_initializer(0.0, 0.02)

    inp = tf.keras.layers.Input(shape=[32, 32, 3], name="input_image")
    tar = tf.keras.layers.Input(shape=[32, 32, 3], name="target_image")

    x = tf.keras.layers.concatenate([inp, tar])  # (batch_size, 32, 32, channels*2)

    down1 = downsample(8, 4, False)(x)  # (batch_size, 16, 16, 8)
    down2 = downsample(16, 4)(down1)  # (batch_size, 8, 8, 16)
    down3 = downsample(32, 4)(down2)  # (batch_size, 4, 4, 32)

    zero_pad1 = tf.keras.layers.ZeroPadding2D()(down3)  # (batch_size, 6, 6, 32)
    conv = tf.keras.layers.Conv2D(64, 4, strides=1, kernel_initializer=initializer, use_bias=False)(
        zero_pad1
    )  # (batch_size, 3, 3, 64)

    batchnorm1 = tf.keras.layers.BatchNormalization()(conv)

    leaky_relu = tf.keras.layers.LeakyReLU()(batchnorm1)

    zero_pad2 = tf.keras.layers.ZeroPadding2D()(leaky_relu)  # (batch_size, 5, 5, 64)

    last = tf.keras.layers.Conv2D(1, 4, strides=1, kernel_initializer=initializer)(
        zero_pad2
    )  # (batch_size, 2, 2, 1)

    return tf.keras.Model(inputs=[inp, tar], outputs=last)


discriminator = Discriminator()


def discriminator_loss(disc_real_output, disc_generated_output):
    real_loss = loss_object(tf.ones_like(disc_real_output), disc_real_output)

    generated_loss = loss_object(tf.zeros_like(disc_generated_output), disc_generated_output)

    total_disc_loss = real_loss + generated_loss

    return total_disc_loss


generator_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)
discriminator_optimizer = tf.keras.optimizers.Adam(2e-4, beta_1=0.5)

checkpoint_dir = tempfile.mkdtemp(prefix="training_checkpoints")
checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt")
checkpoint = tf.train.Checkpoint(
    generator_optimizer=generator_optimizer,
    discriminator_optimizer=discriminator_optimizer,
    generator=generator,
    discriminator=discriminator,
)


def generate_images(model, test_input, tar):
    prediction = model(test_input, training=True)
    display_list = [test_input[0], tar[0], prediction[0]]
    return display_list  # plt.imshow(display_list[i] * 0.5 + 0.5) in the tutorial


log_dir = tempfile.mkdtemp(prefix="logs")

summary_writer = tf.summary.create_file_writer(log_dir + "/fit/")


@tf.function
def train_step(input_image, target, step):
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        gen_output = generator(input_image, training=True)

        disc_real_output = discriminator([input_image, target], training=True)
        disc_generated_output = discriminator([input_image, gen_output], training=True)

        gen_total_loss, gen_gan_loss, gen_l1_loss = generator_loss(
            disc_generated_output, gen_output, target
        )
        disc_loss = discriminator_loss(disc_real_output, disc_generated_output)

    generator_gradients = gen_tape.gradient(gen_total_loss, generator.trainable_variables)
    discriminator_gradients = disc_tape.gradient(disc_loss, discriminator.trainable_variables)

    generator_optimizer.apply_gradients(  # STEP_BREAKPOINT
        zip(generator_gradients, generator.trainable_variables, strict=True)
    )
    discriminator_optimizer.apply_gradients(
        zip(discriminator_gradients, discriminator.trainable_variables, strict=True)
    )

    # tf.summary.scalar needs TensorBoard (not installed): tf.summary.write is what it calls
    with summary_writer.as_default():
        tf.summary.write("gen_total_loss", gen_total_loss, step=step // 1000)
        tf.summary.write("gen_gan_loss", gen_gan_loss, step=step // 1000)
        tf.summary.write("gen_l1_loss", gen_l1_loss, step=step // 1000)
        tf.summary.write("disc_loss", disc_loss, step=step // 1000)


def fit(train_ds, test_ds, steps):
    example_input, example_target = next(iter(test_ds.take(1)))
    start = time.time()

    for step, (input_image, target) in train_ds.repeat().take(steps).enumerate():
        if (step) % 1000 == 0:
            if step != 0:
                print(f"Time taken for 1000 steps: {time.time() - start:.2f} sec\n")

            start = time.time()

            shown = generate_images(generator, example_input, example_target)
            print(f"Step: {step // 1000}k, {len(shown)} images shown")  # FIT_BREAKPOINT

        train_step(input_image, target, step)

        # Training step
        if (step + 1) % 10 == 0:
            print(".", end="", flush=True)

        # Save (checkpoint) the model every 5k steps
        if (step + 1) % 5000 == 0:
            checkpoint.save(file_prefix=checkpoint_prefix)


fit(train_dataset, test_dataset, steps=1)
