"""TensorFlow's "word2vec" tutorial (tensorflow/text, docs/tutorials/word2vec.ipynb),
transcribed: one sentence's vocabulary, its skip-grams with
``tf.keras.preprocessing.sequence.skipgrams``, negative sampling for one skip-gram with
``tf.random.log_uniform_candidate_sampler`` and one training example built from it,
``make_sampling_table``, the ``generate_training_data`` function (skip-grams per sequence, the
sampler per pair, the pairs whose negatives overlap the positive window discarded), a
``TextVectorization`` layer with the ``custom_standardization`` function
(``tf.strings.regex_replace``) adapted on a ``tf.data`` text dataset and mapped over it, the
training ``tf.data`` pipeline (``shuffle``, ``batch``, ``cache().prefetch()``), the
``Word2Vec(tf.keras.Model)`` subclass (two Embeddings, ``call`` with ``tf.einsum``),
``compile``/``fit``, then the trained embedding's weights (``get_layer('w2v_embedding')``) and
the vocabulary.

Replaced: the shakespeare.txt download (``get_file``, then ``TextLineDataset``) by 600 short
lines built deterministically (words of made-up syllables, some far more frequent than others)
given to ``tf.data.Dataset.from_tensor_slices`` (the tutorial's empty-line filter kept); sizes
made tiny (vocab_size 200, sequence_length 8, embedding_dim 16, BATCH_SIZE 64, BUFFER_SIZE
1000); ``fit`` one epoch of 3 steps, ``verbose=0``, its loss and accuracy printed instead of the
progress line; ``tqdm.tqdm(sequences)`` by ``sequences`` (tqdm is not installed here, and its
bar goes to stderr). Left out: the TensorBoard callback and the ``%tensorboard`` cells (files,
a notebook extension) and the vectors.tsv/metadata.tsv files (the vectors' count printed
instead). Kept although Keras 3 deprecates it: ``Embedding(..., input_length=...)`` (Keras 3
warns and ignores it, it does not fail). Stopped inside ``generate_training_data``'s loop just
after the negative sampling (eager code), inside ``Word2Vec.call`` (compiled under ``fit``),
then at the program's end."""

import re
import string
from collections import defaultdict

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)
from tensorflow.keras import layers

tf.keras.utils.set_random_seed(0)  # Python, numpy, TF and Keras 3 (its initializers)

SEED = 42
AUTOTUNE = tf.data.AUTOTUNE

# ------------------------------------------------------------------ one sentence

sentence = "The wide road shimmered in the hot sun"
tokens = list(sentence.lower().split())
print(len(tokens))

vocab, index = {}, 1  # start indexing from 1
vocab["<pad>"] = 0  # add a padding token
for token in tokens:
    if token not in vocab:
        vocab[token] = index
        index += 1
vocab_size = len(vocab)
print(vocab)

inverse_vocab = {index: token for token, index in vocab.items()}
print(inverse_vocab)

example_sequence = [vocab[word] for word in tokens]
print(example_sequence)

window_size = 2
positive_skip_grams, _ = tf.keras.preprocessing.sequence.skipgrams(
    example_sequence, vocabulary_size=vocab_size, window_size=window_size, negative_samples=0
)
print(len(positive_skip_grams))

for target, context in positive_skip_grams[:10]:
    print(f"({target}, {context}): ({inverse_vocab[target]}, {inverse_vocab[context]})")

# Get target and context words for one positive skip-gram.
target_word, context_word = positive_skip_grams[0]

# Set the number of negative samples per positive context.
num_ns = 4

context_class = tf.reshape(tf.constant(context_word, dtype="int64"), (1, 1))
negative_sampling_candidates, _, _ = tf.random.log_uniform_candidate_sampler(
    true_classes=context_class,  # class that should be sampled as 'positive'
    num_true=1,  # each positive skip-gram has 1 positive context class
    num_sampled=num_ns,  # number of negative context words to sample
    unique=True,  # all the negative samples should be unique
    range_max=vocab_size,  # pick index of the samples from [0, vocab_size]
    seed=SEED,  # seed for reproducibility
    name="negative_sampling",  # name of this operation
)
print(negative_sampling_candidates)
print([inverse_vocab[index.numpy()] for index in negative_sampling_candidates])

# Reduce a dimension so you can use concatenation (in the next step).
squeezed_context_class = tf.squeeze(context_class, 1)

# Concatenate a positive context word with negative sampled words.
context = tf.concat([squeezed_context_class, negative_sampling_candidates], 0)

# Label the first context word as `1` (positive) followed by `num_ns` `0`s (negative).
label = tf.constant([1] + [0] * num_ns, dtype="int64")
target = target_word

print(f"target_index    : {target}")
print(f"target_word     : {inverse_vocab[target_word]}")
print(f"context_indices : {context}")
print(f"context_words   : {[inverse_vocab[c.numpy()] for c in context]}")
print(f"label           : {label}")

print("target  :", target)
print("context :", context)
print("label   :", label)

sampling_table = tf.keras.preprocessing.sequence.make_sampling_table(size=10)
print(sampling_table)


# Generates skip-gram pairs with negative sampling for a list of sequences
# (int-encoded sentences) based on window size, number of negative samples
# and vocabulary size.
def generate_training_data(sequences, window_size, num_ns, vocab_size, seed):
    # Elements of each training example are appended to these lists.
    targets, contexts, labels = [], [], []

    # Build the sampling table for `vocab_size` tokens.
    sampling_table = tf.keras.preprocessing.sequence.make_sampling_table(vocab_size)

    # Iterate over all sequences (sentences) in the dataset.
    for sequence in sequences:  # the tutorial: tqdm.tqdm(sequences)
        # Generate positive skip-gram pairs for a sequence (sentence).
        positive_skip_grams, _ = tf.keras.preprocessing.sequence.skipgrams(
            sequence,
            vocabulary_size=vocab_size,
            sampling_table=sampling_table,
            window_size=window_size,
            negative_samples=0,
        )

        # Generate positive context windows for each target word in the sequence.
        window = defaultdict(list)
        for i in range(window_size, len(sequence) - window_size):
            window[sequence[i]].append(sequence[i - window_size : 1 + i + window_size])

        # Iterate over each positive skip-gram pair to produce training examples
        # with a positive context word and negative samples.
        for target_word, context_word in positive_skip_grams:
            context_class = tf.expand_dims(tf.constant([context_word], dtype="int64"), 1)
            negative_sampling_candidates, _, _ = tf.random.log_uniform_candidate_sampler(
                true_classes=context_class,
                num_true=1,
                num_sampled=num_ns,
                unique=True,
                range_max=vocab_size,
                seed=seed,
                name="negative_sampling",
            )

            # Discard iteration if negative samples overlap with positive context.
            for target in window[target_word]:  # SAMPLE_BREAKPOINT
                if not any(t in target for t in negative_sampling_candidates):
                    break  # All candidates are true negatives: use this skip_gram.
            else:
                continue  # Discard this skip_gram.

            # Build context and label vectors (for one target word).
            context = tf.concat([tf.squeeze(context_class, 1), negative_sampling_candidates], 0)
            label = tf.constant([1] + [0] * num_ns, dtype="int64")

            # Append each element from the training example to global lists.
            targets.append(target_word)
            contexts.append(context)
            labels.append(label)

    return targets, contexts, labels


# ------------------------------------------------------------------ the corpus


def synthetic_corpus(n_lines=600):
    """In place of shakespeare.txt: short lines of made-up words, a few far more frequent
    than the rest (as ``make_sampling_table`` assumes), a blank line now and then."""
    rng = np.random.default_rng(7)
    ends = ("a", "e", "i", "o", "u", "ar", "en", "is", "or", "an", "el", "um", "ot", "ik")
    words = [a + b for a in "bdfgklmnprstvz" for b in ends]
    weights = 1.0 / np.sqrt(np.arange(1, len(words) + 1))
    weights /= weights.sum()
    lines = []
    for n in range(n_lines):
        if n % 25 == 24:
            lines.append("")
            continue
        line = " ".join(rng.choice(words, size=rng.integers(4, 9), p=weights))
        lines.append(line.capitalize() + str(rng.choice([",", ".", ";", "?", "!", ":"])))
    return lines


lines = synthetic_corpus()  # the tutorial: open(path_to_file).read().splitlines()
for line in lines[:20]:
    print(line)

# the tutorial: tf.data.TextLineDataset(path_to_file).filter(...)
text_ds = tf.data.Dataset.from_tensor_slices(lines).filter(
    lambda x: tf.cast(tf.strings.length(x), bool)
)


# Now, create a custom standardization function to lowercase the text and
# remove punctuation.
def custom_standardization(input_data):
    lowercase = tf.strings.lower(input_data)
    return tf.strings.regex_replace(lowercase, "[%s]" % re.escape(string.punctuation), "")  # noqa: UP031


# Define the vocabulary size and the number of words in a sequence.
vocab_size = 200
sequence_length = 8

# Use the `TextVectorization` layer to normalize, split, and map strings to
# integers. Set the `output_sequence_length` length to pad all samples to the
# same length.
vectorize_layer = layers.TextVectorization(
    standardize=custom_standardization,
    max_tokens=vocab_size,
    output_mode="int",
    output_sequence_length=sequence_length,
)

vectorize_layer.adapt(text_ds.batch(1024))

# Save the created vocabulary for reference.
inverse_vocab = vectorize_layer.get_vocabulary()
print(inverse_vocab[:20])

# Vectorize the data in text_ds.
text_vector_ds = text_ds.batch(1024).prefetch(AUTOTUNE).map(vectorize_layer).unbatch()

sequences = list(text_vector_ds.as_numpy_iterator())
print(len(sequences))

for seq in sequences[:5]:
    print(f"{seq} => {[inverse_vocab[i] for i in seq]}")

targets, contexts, labels = generate_training_data(
    sequences=sequences, window_size=2, num_ns=4, vocab_size=vocab_size, seed=SEED
)

targets = np.array(targets)
contexts = np.array(contexts)
labels = np.array(labels)

print("\n")
print(f"targets.shape: {targets.shape}")
print(f"contexts.shape: {contexts.shape}")
print(f"labels.shape: {labels.shape}")

BATCH_SIZE = 64
BUFFER_SIZE = 1000
dataset = tf.data.Dataset.from_tensor_slices(((targets, contexts), labels))
dataset = dataset.shuffle(BUFFER_SIZE).batch(BATCH_SIZE, drop_remainder=True)
print(dataset)

dataset = dataset.cache().prefetch(buffer_size=AUTOTUNE)
print(dataset)

# ------------------------------------------------------------------ model and training


class Word2Vec(tf.keras.Model):
    def __init__(self, vocab_size, embedding_dim):
        super(Word2Vec, self).__init__()  # noqa: UP008 (the tutorial's spelling)
        self.target_embedding = layers.Embedding(
            vocab_size, embedding_dim, input_length=1, name="w2v_embedding"
        )
        self.context_embedding = layers.Embedding(
            vocab_size, embedding_dim, input_length=num_ns + 1
        )

    def call(self, pair):
        target, context = pair
        # target: (batch, dummy?)  # The dummy axis doesn't exist in TF2.7+
        # context: (batch, context)
        if len(target.shape) == 2:
            target = tf.squeeze(target, axis=1)
        # target: (batch,)
        word_emb = self.target_embedding(target)
        # word_emb: (batch, embed)
        context_emb = self.context_embedding(context)
        # context_emb: (batch, context, embed)
        dots = tf.einsum("be,bce->bc", word_emb, context_emb)
        # dots: (batch, context)
        return dots  # CALL_BREAKPOINT


embedding_dim = 16
word2vec = Word2Vec(vocab_size, embedding_dim)
word2vec.compile(
    optimizer="adam",
    loss=tf.keras.losses.CategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)

# the tutorial: epochs=20, callbacks=[tensorboard_callback], with its progress bar
history = word2vec.fit(dataset, epochs=1, steps_per_epoch=3, verbose=0)
print("fit loss:", history.history["loss"][-1], "accuracy:", history.history["accuracy"][-1])

weights = word2vec.get_layer("w2v_embedding").get_weights()[0]
vocab = vectorize_layer.get_vocabulary()

# the tutorial writes vectors.tsv and metadata.tsv here, one line per word but padding
print("vectors:", weights.shape, "words:", len(vocab) - 1)  # END_BREAKPOINT
