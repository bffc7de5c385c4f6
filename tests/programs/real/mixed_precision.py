"""TensorFlow's "Mixed precision" guide, transcribed: the `mixed_float16` global policy,
Dense layers computing in float16 on float32 variables, a float32 softmax output, fit,
then the custom training loop with a LossScaleOptimizer. Synthetic digits (float32 in
[0, 1], 784 wide, uint8 labels) stand in for MNIST; 64 units instead of 4096, one batch
of 128, one epoch (four batches before: the three after the stop only traced and ran the
step, never looked at). Keras 3 renamed the loop's two calls: `get_scaled_loss` is
`scale_loss`, and `apply_gradients` unscales the gradients itself (no
`get_unscaled_gradients`)."""

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)
from tensorflow import keras
from tensorflow.keras import layers, mixed_precision

tf.keras.utils.set_random_seed(0)  # one output, run after run (the suite compares outputs)

policy = mixed_precision.Policy("mixed_float16")
mixed_precision.set_global_policy(policy)

inputs = keras.Input(shape=(784,), name="digits")
num_units = 64
dense1 = layers.Dense(num_units, activation="relu", name="dense_1")
x = dense1(inputs)
dense2 = layers.Dense(num_units, activation="relu", name="dense_2")
x = dense2(x)

# CORRECT: softmax and model output are float32
x = layers.Dense(10, name="dense_logits")(x)
outputs = layers.Activation("softmax", dtype="float32", name="predictions")(x)

model = keras.Model(inputs=inputs, outputs=outputs)
model.compile(
    loss="sparse_categorical_crossentropy",
    optimizer=keras.optimizers.RMSprop(),
    metrics=["accuracy"],
)

rng = np.random.default_rng(0)
x_train = rng.integers(0, 256, size=(128, 28, 28), dtype=np.uint8)
y_train = rng.integers(0, 10, size=(128,), dtype=np.uint8)
x_test, y_test = x_train[:128], y_train[:128]
x_train = x_train.reshape(128, 784).astype("float32") / 255
x_test = x_test.reshape(128, 784).astype("float32") / 255

initial_weights = model.get_weights()

history = model.fit(x_train, y_train, batch_size=128, epochs=1, validation_split=0.2, verbose=0)
test_scores = model.evaluate(x_test, y_test, verbose=0)
print("Test loss:", test_scores[0])

# Training the model with a custom training loop
optimizer = keras.optimizers.RMSprop()
optimizer = mixed_precision.LossScaleOptimizer(optimizer)

loss_object = tf.keras.losses.SparseCategoricalCrossentropy()
train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(10000).batch(128)
test_dataset = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(128)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        predictions = model(x)
        loss = loss_object(y, predictions)
        scaled_loss = optimizer.scale_loss(loss)
    scaled_gradients = tape.gradient(scaled_loss, model.trainable_variables)
    optimizer.apply_gradients(  # STEP_BREAKPOINT
        zip(scaled_gradients, model.trainable_variables, strict=True)
    )
    return loss


@tf.function
def test_step(x):
    return model(x, training=False)


model.set_weights(initial_weights)

for epoch in range(1):
    epoch_loss_avg = tf.keras.metrics.Mean()
    test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")
    for x, y in train_dataset:
        loss = train_step(x, y)
        epoch_loss_avg(loss)
    for x, y in test_dataset:
        predictions = test_step(x)
        test_accuracy.update_state(y, predictions)
    print(  # EPOCH_BREAKPOINT
        f"Epoch {epoch}: loss={epoch_loss_avg.result()}, test accuracy={test_accuracy.result()}"
    )
