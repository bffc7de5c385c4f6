"""keras-io "Image segmentation with a U-Net-like architecture" (fchollet), transcribed:
the same `Sequence` that loads images and trimap masks (uint8, classes 0-2 after the
"-= 1"), the Xception-style U-Net with Conv2DTranspose and UpSampling2D, fit with
sparse categorical crossentropy, predicted masks by argmax. The Oxford Pets download is
replaced by synthetic pictures: `load_img` draws a pet-like ellipse (its trimap: 1 pet,
2 background, 3 border) instead of reading a file, and PIL's display is left out (not
installed). 64x64 instead of 160x160, batch 4, narrower filters, one epoch."""

import os
import random

import numpy as np
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)
from tensorflow import keras
from tensorflow.keras import layers

input_dir = "images/"
target_dir = "annotations/trimaps/"
img_size = (64, 64)
num_classes = 3
batch_size = 4

input_img_paths = [os.path.join(input_dir, f"pet_{i:03d}.jpg") for i in range(24)]
target_img_paths = [os.path.join(target_dir, f"pet_{i:03d}.png") for i in range(24)]


def load_img(path, target_size, color_mode="rgb"):
    """In place of keras.utils.load_img on the downloaded files: the picture (or its
    trimap) of a synthetic pet, the same for an image and its mask."""
    index = int(path.rsplit("_", 1)[1].split(".")[0])
    rng = np.random.default_rng(index)
    yy, xx = np.mgrid[0 : target_size[0], 0 : target_size[1]]
    cy, cx = rng.uniform(0.3, 0.7, 2) * target_size
    ry, rx = rng.uniform(0.15, 0.3, 2) * target_size
    r = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2
    if color_mode == "grayscale":
        trimap = np.where(r < 0.8, 1, np.where(r < 1.2, 3, 2)).astype(np.uint8)
        return trimap
    fur = rng.uniform(60, 200, 3)
    picture = np.where((r < 1)[..., None], fur, [90, 140, 90]) + rng.normal(
        0, 10, (*target_size, 3)
    )
    return np.clip(picture, 0, 255).astype(np.uint8)


class OxfordPets(keras.utils.Sequence):
    """Helper to iterate over the data (as Numpy arrays)."""

    def __init__(self, batch_size, img_size, input_img_paths, target_img_paths):
        super().__init__()
        self.batch_size = batch_size
        self.img_size = img_size
        self.input_img_paths = input_img_paths
        self.target_img_paths = target_img_paths

    def __len__(self):
        return len(self.target_img_paths) // self.batch_size

    def __getitem__(self, idx):
        """Returns tuple (input, target) correspond to batch #idx."""
        i = idx * self.batch_size
        batch_input_img_paths = self.input_img_paths[i : i + self.batch_size]
        batch_target_img_paths = self.target_img_paths[i : i + self.batch_size]
        x = np.zeros((self.batch_size,) + self.img_size + (3,), dtype="float32")
        for j, path in enumerate(batch_input_img_paths):
            img = load_img(path, target_size=self.img_size)
            x[j] = img
        y = np.zeros((self.batch_size,) + self.img_size + (1,), dtype="uint8")
        for j, path in enumerate(batch_target_img_paths):
            img = load_img(path, target_size=self.img_size, color_mode="grayscale")
            y[j] = np.expand_dims(img, 2)
            # Ground truth labels are 1, 2, 3. Subtract one to make them 0, 1, 2:
            y[j] -= 1
        return x, y  # BATCH_BREAKPOINT


def get_model(img_size, num_classes):
    inputs = keras.Input(shape=img_size + (3,))

    ### [First half of the network: downsampling inputs] ###

    # Entry block
    x = layers.Conv2D(8, 3, strides=2, padding="same")(inputs)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)

    previous_block_activation = x  # Set aside residual

    # Blocks 1, 2, 3 are identical apart from the feature depth.
    for filters in [16, 32, 64]:
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)

        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)

        x = layers.MaxPooling2D(3, strides=2, padding="same")(x)

        # Project residual
        residual = layers.Conv2D(filters, 1, strides=2, padding="same")(previous_block_activation)
        x = layers.add([x, residual])  # Add back residual
        previous_block_activation = x  # Set aside next residual

    ### [Second half of the network: upsampling inputs] ###

    for filters in [64, 32, 16, 8]:
        x = layers.Activation("relu")(x)
        x = layers.Conv2DTranspose(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)

        x = layers.Activation("relu")(x)
        x = layers.Conv2DTranspose(filters, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)

        x = layers.UpSampling2D(2)(x)

        # Project residual
        residual = layers.UpSampling2D(2)(previous_block_activation)
        residual = layers.Conv2D(filters, 1, padding="same")(residual)
        x = layers.add([x, residual])  # Add back residual
        previous_block_activation = x  # Set aside next residual

    # Add a per-pixel classification layer
    outputs = layers.Conv2D(num_classes, 3, activation="softmax", padding="same")(x)

    # Define the model
    model = keras.Model(inputs, outputs)
    return model


# Free up RAM in case the model definition cells were run multiple times
keras.backend.clear_session()

# Build model
model = get_model(img_size, num_classes)

# Split our img paths into a training and a validation set
val_samples = 8
random.Random(1337).shuffle(input_img_paths)
random.Random(1337).shuffle(target_img_paths)
train_input_img_paths = input_img_paths[:-val_samples]
train_target_img_paths = target_img_paths[:-val_samples]
val_input_img_paths = input_img_paths[-val_samples:]
val_target_img_paths = target_img_paths[-val_samples:]

# Instantiate data Sequences for each split
train_gen = OxfordPets(batch_size, img_size, train_input_img_paths, train_target_img_paths)
val_gen = OxfordPets(batch_size, img_size, val_input_img_paths, val_target_img_paths)

model.compile(optimizer="rmsprop", loss="sparse_categorical_crossentropy")

epochs = 1
model.fit(train_gen, epochs=epochs, validation_data=val_gen, verbose=0)

# Generate predictions for all images in the validation set
val_gen = OxfordPets(batch_size, img_size, val_input_img_paths, val_target_img_paths)
val_preds = model.predict(val_gen, verbose=0)


def display_mask(i):
    """Quick utility to display a model's prediction."""
    mask = np.argmax(val_preds[i], axis=-1)
    mask = np.expand_dims(mask, axis=-1)
    return mask  # MASK_BREAKPOINT (the example shows it with PIL's ImageOps)


# Display results for validation image #5
i = 5
display_mask(i)
