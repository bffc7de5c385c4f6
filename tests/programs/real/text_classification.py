"""keras-io "Text classification from scratch" (Omernick, Chollet), transcribed: the same
custom standardization, TextVectorization adapted on the text, the 1-D convnet and the
end-to-end string model. Synthetic reviews (with the IMDB files' ``<br />`` tags and
punctuation) stand in for the aclImdb download: what ``text_dataset_from_directory``
yields, string[32] batches and int32 labels. Widths are smaller (16 instead of 128), one
epoch of three batches."""

import os

os.environ["KERAS_BACKEND"] = "tensorflow"

import re
import string

import keras
import numpy as np
import tensorflow as tf
from keras import layers
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)

batch_size = 32

# What text_dataset_from_directory(train_dir, ...) yields: the text files' contents as
# tf.string, labels 0 ("pos") / 1 ("neg").
rng = np.random.default_rng(1337)
good = ["great", "wonderful", "moving", "brilliant", "fun", "superb"]
bad = ["awful", "boring", "dull", "terrible", "waste", "mess"]
neutral = ["the", "a", "film", "movie", "plot", "actor", "scene", "and", "it", "was", "of"]


def review(label):
    words = list(rng.choice(neutral, size=rng.integers(20, 120)))
    mood = bad if label else good
    for _ in range(5):
        words.insert(rng.integers(0, len(words)), str(rng.choice(mood)))
    text = " ".join(words).capitalize() + "."
    return text.replace(" it ", " it!<br /><br />It ", 1)


labels_all = rng.integers(0, 2, size=(160,)).astype(np.int32)
texts_all = [review(label) for label in labels_all]
raw_train_ds = tf.data.Dataset.from_tensor_slices((texts_all[:96], labels_all[:96])).batch(
    batch_size
)
raw_val_ds = tf.data.Dataset.from_tensor_slices((texts_all[96:128], labels_all[96:128])).batch(
    batch_size
)
raw_test_ds = tf.data.Dataset.from_tensor_slices((texts_all[128:], labels_all[128:])).batch(
    batch_size
)

print(f"Number of batches in raw_train_ds: {raw_train_ds.cardinality()}")

for text_batch, label_batch in raw_train_ds.take(1):
    for i in range(5):
        print(text_batch.numpy()[i])  # BATCH_BREAKPOINT
        print(label_batch.numpy()[i])


def custom_standardization(input_data):
    lowercase = tf.strings.lower(input_data)
    stripped_html = tf.strings.regex_replace(lowercase, "<br />", " ")
    return tf.strings.regex_replace(stripped_html, f"[{re.escape(string.punctuation)}]", "")


# Model constants.
max_features = 20000
embedding_dim = 16
sequence_length = 500

vectorize_layer = keras.layers.TextVectorization(
    standardize=custom_standardization,
    max_tokens=max_features,
    output_mode="int",
    output_sequence_length=sequence_length,
)

# Let's make a text-only dataset (no labels):
text_ds = raw_train_ds.map(lambda x, y: x)
# Let's call `adapt`:
vectorize_layer.adapt(text_ds)


def vectorize_text(text, label):
    text = tf.expand_dims(text, -1)
    return vectorize_layer(text), label


# Vectorize the data.
train_ds = raw_train_ds.map(vectorize_text)
val_ds = raw_val_ds.map(vectorize_text)
test_ds = raw_test_ds.map(vectorize_text)

train_ds = train_ds.cache().prefetch(buffer_size=10)
val_ds = val_ds.cache().prefetch(buffer_size=10)
test_ds = test_ds.cache().prefetch(buffer_size=10)

# A integer input for vocab indices.
inputs = keras.Input(shape=(None,), dtype="int64")
x = layers.Embedding(max_features, embedding_dim)(inputs)
x = layers.Dropout(0.5)(x)

# Conv1D + global max pooling
x = layers.Conv1D(16, 7, padding="valid", activation="relu", strides=3)(x)
x = layers.Conv1D(16, 7, padding="valid", activation="relu", strides=3)(x)
x = layers.GlobalMaxPooling1D()(x)

# We add a vanilla hidden layer:
x = layers.Dense(16, activation="relu")(x)
x = layers.Dropout(0.5)(x)

predictions = layers.Dense(1, activation="sigmoid", name="predictions")(x)

model = keras.Model(inputs, predictions)
model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])

epochs = 1
model.fit(train_ds, validation_data=val_ds, epochs=epochs, verbose=0)

model.evaluate(test_ds, verbose=0)

# A string input
inputs = keras.Input(shape=(1,), dtype="string")
# Turn strings into vocab indices
indices = vectorize_layer(inputs)
# Turn vocab indices into predictions
outputs = model(indices)

# Our end to end model
end_to_end_model = keras.Model(inputs, outputs)
end_to_end_model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])

# Test it with `raw_test_ds`, which yields raw strings
end_to_end_model.evaluate(raw_test_ds, verbose=0)  # END_BREAKPOINT
# Not in the example: what a user adds to look at the indices the model is fed.
vectorized_batch = vectorize_layer(tf.expand_dims(text_batch, -1))
print(vectorized_batch.shape)  # VECTOR_BREAKPOINT
