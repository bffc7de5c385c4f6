"""TensorFlow's "Text generation with an RNN" tutorial (tensorflow/text,
docs/tutorials/text_generation.ipynb), transcribed: the text split into characters with
``tf.strings.unicode_split`` (a RaggedTensor), ``StringLookup`` both ways (``ids_from_chars``,
``chars_from_ids`` with ``invert=True``), the ``MyModel`` subclass (Embedding, a GRU returning
its ``states``, Dense), one ``model.fit``, the ``OneStep`` generator (a ``tf.keras.Model`` whose
``@tf.function generate_one_step`` masks ``[UNK]`` with a SparseTensor made dense and samples
with ``tf.random.categorical``), then the "customized training" part (``CustomTraining(MyModel)``
with its ``@tf.function train_step``) in the tutorial's own loop.

Replaced: the Shakespeare download by a 2 KB Shakespeare-like text built deterministically
(speaker names, verse from a fixed word list); sizes made tiny (seq_length 20, embedding_dim 16,
rnn_units 32, BATCH_SIZE 8, BUFFER_SIZE 100); ``fit`` one epoch of 2 steps; 10 characters
generated for one prompt (1000 for one and for five before); the custom loop one epoch of
2 steps. Left out: the ModelCheckpoint callback and ``save_weights`` (files), the
saved_model round trip of ``OneStep`` (files), CustomTraining's own ``model.fit``, and the
cells that only print examples. Keras 3 spellings: ``super().__init__()`` (the tutorial's
``super().__init__(self)`` passes the model as a positional argument, which Keras 3's Layer
refuses) and ``self.gru.get_initial_state(batch_size)`` (Keras 3 takes the batch size, not a
tensor); ``mean.reset_state()`` (``reset_states`` in Keras 2). Printed differently: the
generated text as its bytes' numbers (its characters are ``tf.random.categorical`` draws,
which differ where ``generate_one_step`` runs eagerly, and the suite compares outputs with
their numbers masked), and ``fit``'s loss instead of its progress line (``verbose=0``: that
line's time unit moves between ``s/step`` and ``ms/step``). Stopped in OneStep's
``__init__`` (the SparseTensor mask), inside the compiled ``generate_one_step`` and the
compiled ``train_step``, then at the program's end."""

import time

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)

tf.keras.utils.set_random_seed(0)  # Python, numpy, TF and Keras 3 (its initializers)


def synthetic_shakespeare(size=2048):
    """In place of shakespeare.txt: speakers' names in capitals, then verse, ~2 KB."""
    rng = np.random.default_rng(7)
    speakers = ["ROMEO", "JULIET", "MENENIUS", "First Citizen", "QUEEN ELIZABETH"]
    words = "the my thou thy love lord night sweet and of to what speak hath good art fair"
    words = words.split()
    parts = []
    while sum(len(p) for p in parts) < size:
        parts.append(f"{speakers[len(parts) % len(speakers)]}:\n")
        for _ in range(rng.integers(1, 3)):
            line = " ".join(rng.choice(words, size=rng.integers(4, 9)))
            parts.append(line.capitalize() + rng.choice([",", ".", ";", "?", "!"]) + "\n")
        parts.append("\n")
    return "".join(parts)[:size]


text = synthetic_shakespeare()
# length of text is the number of characters in it
print(f"Length of text: {len(text)} characters")

# The unique characters in the file
vocab = sorted(set(text))
print(f"{len(vocab)} unique characters")

example_texts = ["abcdefg", "xyz"]

chars = tf.strings.unicode_split(example_texts, input_encoding="UTF-8")

ids_from_chars = tf.keras.layers.StringLookup(vocabulary=list(vocab), mask_token=None)

ids = ids_from_chars(chars)

chars_from_ids = tf.keras.layers.StringLookup(
    vocabulary=ids_from_chars.get_vocabulary(), invert=True, mask_token=None
)

chars = chars_from_ids(ids)

print(tf.strings.reduce_join(chars, axis=-1).numpy())


def text_from_ids(ids):
    return tf.strings.reduce_join(chars_from_ids(ids), axis=-1)


all_ids = ids_from_chars(tf.strings.unicode_split(text, "UTF-8"))

ids_dataset = tf.data.Dataset.from_tensor_slices(all_ids)

for ids in ids_dataset.take(10):
    print(chars_from_ids(ids).numpy().decode("utf-8"))

seq_length = 20

sequences = ids_dataset.batch(seq_length + 1, drop_remainder=True)

for seq in sequences.take(1):
    print(chars_from_ids(seq))


def split_input_target(sequence):
    input_text = sequence[:-1]
    target_text = sequence[1:]
    return input_text, target_text


dataset = sequences.map(split_input_target)

for input_example, target_example in dataset.take(1):
    print("Input :", text_from_ids(input_example).numpy())
    print("Target:", text_from_ids(target_example).numpy())

# Batch size
BATCH_SIZE = 8

# Buffer size to shuffle the dataset
BUFFER_SIZE = 100

dataset = (
    dataset.shuffle(BUFFER_SIZE)
    .batch(BATCH_SIZE, drop_remainder=True)
    .prefetch(tf.data.experimental.AUTOTUNE)
)

# Length of the vocabulary in StringLookup Layer
vocab_size = len(ids_from_chars.get_vocabulary())

# The embedding dimension
embedding_dim = 16

# Number of RNN units
rnn_units = 32


class MyModel(tf.keras.Model):
    def __init__(self, vocab_size, embedding_dim, rnn_units):
        super().__init__()  # the tutorial: super().__init__(self)
        self.embedding = tf.keras.layers.Embedding(vocab_size, embedding_dim)
        self.gru = tf.keras.layers.GRU(rnn_units, return_sequences=True, return_state=True)
        self.dense = tf.keras.layers.Dense(vocab_size)

    def call(self, inputs, states=None, return_state=False, training=False):
        x = inputs
        x = self.embedding(x, training=training)
        if states is None:
            states = self.gru.get_initial_state(tf.shape(x)[0])  # the tutorial: (x)
        x, states = self.gru(x, initial_state=states, training=training)
        x = self.dense(x, training=training)

        if return_state:
            return x, states
        else:
            return x


model = MyModel(vocab_size=vocab_size, embedding_dim=embedding_dim, rnn_units=rnn_units)

for input_example_batch, target_example_batch in dataset.take(1):  # noqa: B007 (used below)
    example_batch_predictions = model(input_example_batch)
    print(example_batch_predictions.shape, "# (batch_size, sequence_length, vocab_size)")

model.summary()

sampled_indices = tf.random.categorical(example_batch_predictions[0], num_samples=1)
sampled_indices = tf.squeeze(sampled_indices, axis=-1).numpy()

print("Input:\n", text_from_ids(input_example_batch[0]).numpy())
print()
print("Next Char Predictions:\n", text_from_ids(sampled_indices).numpy())

loss = tf.losses.SparseCategoricalCrossentropy(from_logits=True)

example_batch_mean_loss = loss(target_example_batch, example_batch_predictions)
print(
    "Prediction shape: ",
    example_batch_predictions.shape,
    " # (batch_size, sequence_length, vocab_size)",
)
print("Mean loss:        ", example_batch_mean_loss)

model.compile(optimizer="adam", loss=loss)

EPOCHS = 1

history = model.fit(dataset, epochs=EPOCHS, steps_per_epoch=2, verbose=0)
print("fit loss:", history.history["loss"][-1])


class OneStep(tf.keras.Model):
    def __init__(self, model, chars_from_ids, ids_from_chars, temperature=1.0):
        super().__init__()
        self.temperature = temperature
        self.model = model
        self.chars_from_ids = chars_from_ids
        self.ids_from_chars = ids_from_chars

        # Create a mask to prevent "[UNK]" from being generated.
        skip_ids = self.ids_from_chars(["[UNK]"])[:, None]
        sparse_mask = tf.SparseTensor(
            # Put a -inf at each bad index.
            values=[-float("inf")] * len(skip_ids),
            indices=skip_ids,
            # Match the shape to the vocabulary
            dense_shape=[len(ids_from_chars.get_vocabulary())],
        )
        self.prediction_mask = tf.sparse.to_dense(sparse_mask)  # MASK_BREAKPOINT

    @tf.function
    def generate_one_step(self, inputs, states=None):
        # Convert strings to token IDs.
        input_chars = tf.strings.unicode_split(inputs, "UTF-8")
        input_ids = self.ids_from_chars(input_chars).to_tensor()

        # Run the model.
        # predicted_logits.shape is [batch, char, next_char_logits]
        predicted_logits, states = self.model(inputs=input_ids, states=states, return_state=True)
        # Only use the last prediction.
        predicted_logits = predicted_logits[:, -1, :]
        predicted_logits = predicted_logits / self.temperature
        # Apply the prediction mask: prevent "[UNK]" from being generated.
        predicted_logits = predicted_logits + self.prediction_mask

        # Sample the output logits to generate token IDs.
        predicted_ids = tf.random.categorical(predicted_logits, num_samples=1)
        predicted_ids = tf.squeeze(predicted_ids, axis=-1)  # GENERATE_BREAKPOINT

        # Convert from token ids to characters
        predicted_chars = self.chars_from_ids(predicted_ids)

        # Return the characters and model state.
        return predicted_chars, states


one_step_model = OneStep(model, chars_from_ids, ids_from_chars)

start = time.time()
states = None
next_char = tf.constant(["ROMEO:"])
result = [next_char]

for n in range(10):  # noqa: B007 (the tutorial's loop)
    next_char, states = one_step_model.generate_one_step(next_char, states=states)
    result.append(next_char)

result = tf.strings.join(result)
end = time.time()
# the text's bytes as numbers: its characters are random draws (see the docstring)
print("generated:", list(result[0].numpy()), "\n\n" + "_" * 80)


class CustomTraining(MyModel):
    @tf.function
    def train_step(self, inputs):
        inputs, labels = inputs
        with tf.GradientTape() as tape:
            predictions = self(inputs, training=True)
            loss = self.loss(labels, predictions)
        grads = tape.gradient(loss, model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, model.trainable_variables))  # STEP_BREAKPOINT

        return {"loss": loss}


model = CustomTraining(
    vocab_size=len(ids_from_chars.get_vocabulary()),
    embedding_dim=embedding_dim,
    rnn_units=rnn_units,
)

model.compile(
    optimizer=tf.keras.optimizers.Adam(),
    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
)

EPOCHS = 1

mean = tf.metrics.Mean()

for epoch in range(EPOCHS):
    start = time.time()

    mean.reset_state()  # the tutorial (Keras 2): reset_states()
    for batch_n, (inp, target) in enumerate(dataset.take(2)):
        logs = model.train_step([inp, target])
        mean.update_state(logs["loss"])

        if batch_n % 1 == 0:
            template = f"Epoch {epoch + 1} Batch {batch_n} Loss {logs['loss']:.4f}"
            print(template)

    print()
    print(f"Epoch {epoch + 1} Loss: {mean.result().numpy():.4f}")
    print("_" * 80)

print("done")  # END_BREAKPOINT
