"""TensorFlow's "quickstart for experts" tutorial in shape: a subclassed model, a
compiled `tf.function` train step, loss and accuracy metrics. Synthetic digits stand in
for MNIST."""

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)
from tensorflow.keras import Model
from tensorflow.keras.layers import Conv2D, Dense, Flatten

tf.keras.utils.set_random_seed(0)  # one output, run after run (the suite compares outputs)


class MyModel(Model):
    def __init__(self):
        super().__init__()
        self.conv1 = Conv2D(8, 3, activation="relu")
        self.flatten = Flatten()
        self.d1 = Dense(32, activation="relu")
        self.d2 = Dense(10)

    def call(self, x):
        x = self.conv1(x)
        x = self.flatten(x)
        x = self.d1(x)
        return self.d2(x)


rng = np.random.default_rng(0)
x_train = rng.random((64, 28, 28, 1), dtype=np.float32)
y_train = rng.integers(0, 10, size=(64,))
train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(64, seed=0).batch(32)

model = MyModel()
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = tf.keras.optimizers.Adam()
train_loss = tf.keras.metrics.Mean(name="train_loss")
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        predictions = model(images, training=True)
        loss = loss_object(labels, predictions)
    gradients = tape.gradient(loss, model.trainable_variables)  # TRACE_BREAKPOINT
    optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))
    train_loss(loss)
    train_accuracy(labels, predictions)


for epoch in range(2):
    train_loss.reset_state()
    train_accuracy.reset_state()
    for images, labels in train_ds:
        train_step(images, labels)
    print(f"epoch {epoch + 1}: loss {float(train_loss.result()):.4f}")  # EPOCH_BREAKPOINT
print("done")
