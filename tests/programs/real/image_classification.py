"""keras-io "Image classification from scratch" (fchollet), transcribed: the same
data_augmentation, Rescaling-first small Xception and the same loops over the first
batch. Synthetic images stand in for the Kaggle Cats vs Dogs download: what
`image_dataset_from_directory` yields (float32 RGB in [0, 255], int32 labels), at 64x64
and batch 16 instead of 180x180 and 128; the Xception is narrower, matplotlib's calls are
left out (not installed) and fit runs one epoch of two batches."""

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)
from tensorflow import keras
from tensorflow.keras import layers

tf.keras.utils.set_random_seed(0)  # one output, run after run (the suite compares outputs)
# and the same kernels' order of sums whatever the load: a suite run at load ~8 once printed
# 50.03% where every other run printed 49.96%
tf.config.experimental.enable_op_determinism()

image_size = (64, 64)
batch_size = 16

# What image_dataset_from_directory("PetImages", ...) yields: uint8 JPEG pixels decoded
# and resized to float32, labels 0 (cat) / 1 (dog).
# Pictures with a shape in them (a flip or rotation shows): a red-green ramp, a blue disc
# whose place and size vary, a little noise.
rng = np.random.default_rng(1337)
yy, xx = np.mgrid[0 : image_size[0], 0 : image_size[1]]
centres = rng.uniform(16, 48, size=(40, 2))
radii = rng.uniform(6, 14, size=(40, 1, 1))
disc = (yy - centres[:, :1, None]) ** 2 + (xx - centres[:, 1:, None]) ** 2 < radii**2
pixels = np.stack(
    [np.broadcast_to(xx * 4, disc.shape), np.broadcast_to(yy * 4, disc.shape), disc * 255], -1
)
pixels = np.clip(pixels + rng.normal(0, 8, pixels.shape), 0, 255).astype(np.uint8)
class_ids = rng.integers(0, 2, size=(40,), dtype=np.int32)
all_ds = tf.data.Dataset.from_tensor_slices((pixels, class_ids)).map(
    lambda img, label: (tf.cast(img, tf.float32), label)
)
train_ds = all_ds.take(32).batch(batch_size)
val_ds = all_ds.skip(32).batch(batch_size)

for images, labels in train_ds.take(1):
    for i in range(9):
        first = images[i].numpy().astype("uint8")  # plt.imshow(...) in the example
        title = int(labels[i])  # BATCH_BREAKPOINT

data_augmentation = keras.Sequential(
    [
        layers.RandomFlip("horizontal"),
        layers.RandomRotation(0.1),
    ]
)

for images, _ in train_ds.take(1):
    for i in range(9):  # noqa: B007 (the example's loop)
        augmented_images = data_augmentation(images)
        shown = augmented_images[0].numpy().astype("uint8")  # AUGMENT_BREAKPOINT

train_ds = train_ds.prefetch(buffer_size=32)
val_ds = val_ds.prefetch(buffer_size=32)


def make_model(input_shape, num_classes):
    inputs = keras.Input(shape=input_shape)

    # Entry block
    x = layers.Rescaling(1.0 / 255)(inputs)
    x = layers.Conv2D(8, 3, strides=2, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)

    x = layers.Conv2D(16, 3, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)

    previous_block_activation = x  # Set aside residual

    for size in [16, 32]:
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(size, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)

        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(size, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)

        x = layers.MaxPooling2D(3, strides=2, padding="same")(x)

        # Project residual
        residual = layers.Conv2D(size, 1, strides=2, padding="same")(previous_block_activation)
        x = layers.add([x, residual])  # Add back residual
        previous_block_activation = x  # Set aside next residual

    x = layers.SeparableConv2D(64, 3, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)

    x = layers.GlobalAveragePooling2D()(x)
    if num_classes == 2:
        activation = "sigmoid"
        units = 1
    else:
        activation = "softmax"
        units = num_classes

    x = layers.Dropout(0.5)(x)
    outputs = layers.Dense(units, activation=activation)(x)
    return keras.Model(inputs, outputs)


model = make_model(input_shape=image_size + (3,), num_classes=2)

# Apply `data_augmentation` to the training images.
train_ds = train_ds.map(
    lambda img, label: (data_augmentation(img), label),
    num_parallel_calls=tf.data.AUTOTUNE,
)
train_ds = train_ds.prefetch(tf.data.AUTOTUNE)

epochs = 1
model.compile(
    optimizer=keras.optimizers.Adam(1e-3),
    loss="binary_crossentropy",
    metrics=["accuracy"],
)
model.fit(train_ds, epochs=epochs, validation_data=val_ds, verbose=0)

# Run inference on new data (an image file in the example: one of the synthetic ones)
img_array = keras.preprocessing.image.img_to_array(pixels[5])
img_array = tf.expand_dims(img_array, 0)  # Create batch axis

predictions = model.predict(img_array, verbose=0)
score = float(predictions[0][0])
print(  # PREDICT_BREAKPOINT
    f"This image is {100 * (1 - score):.2f}% cat and {100 * score:.2f}% dog."
)
