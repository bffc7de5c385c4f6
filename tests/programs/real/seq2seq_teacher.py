"""TensorFlow's "Neural machine translation with attention" tutorial (its classic form), in its
shape: a GRU encoder, Bahdanau attention, a GRU decoder, and a ``@tf.function`` train step that
feeds the decoder the target's previous token (teacher forcing). Synthetic token ids stand in
for the Spanish-English pairs; 16 units, one batch, one epoch (three batches and two epochs
before: what ran after the stops only traced and ran the step, never looked at). Stopped inside the compiled
step's teacher-forcing loop, then in the Python epoch loop."""

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)

tf.keras.utils.set_random_seed(0)  # Python, numpy, TF and Keras 3 (its initializers)
BATCH_SIZE = 8
vocab_inp_size, vocab_tar_size = 30, 24
embedding_dim, units = 8, 16
max_length_inp, max_length_targ = 7, 6

rng = np.random.default_rng(0)
input_tensor = rng.integers(1, vocab_inp_size, size=(8, max_length_inp)).astype("int32")
target_tensor = rng.integers(3, vocab_tar_size, size=(8, max_length_targ)).astype("int32")
target_tensor[:, 0] = 1  # <start>
dataset = tf.data.Dataset.from_tensor_slices((input_tensor, target_tensor)).batch(BATCH_SIZE)
steps_per_epoch = len(input_tensor) // BATCH_SIZE


class Encoder(tf.keras.Model):
    def __init__(self, vocab_size, embedding_dim, enc_units, batch_sz):
        super().__init__()
        self.batch_sz = batch_sz
        self.enc_units = enc_units
        self.embedding = tf.keras.layers.Embedding(vocab_size, embedding_dim)
        self.gru = tf.keras.layers.GRU(
            self.enc_units, return_sequences=True, return_state=True, seed=1
        )

    def call(self, x, hidden):
        x = self.embedding(x)
        output, state = self.gru(x, initial_state=hidden)
        return output, state

    def initialize_hidden_state(self):
        return tf.zeros((self.batch_sz, self.enc_units))


class BahdanauAttention(tf.keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.W1 = tf.keras.layers.Dense(units)
        self.W2 = tf.keras.layers.Dense(units)
        self.V = tf.keras.layers.Dense(1)

    def call(self, query, values):
        query_with_time_axis = tf.expand_dims(query, 1)
        score = self.V(tf.nn.tanh(self.W1(query_with_time_axis) + self.W2(values)))
        attention_weights = tf.nn.softmax(score, axis=1)
        context_vector = attention_weights * values
        context_vector = tf.reduce_sum(context_vector, axis=1)
        return context_vector, attention_weights


class Decoder(tf.keras.Model):
    def __init__(self, vocab_size, embedding_dim, dec_units, batch_sz):
        super().__init__()
        self.batch_sz = batch_sz
        self.dec_units = dec_units
        self.embedding = tf.keras.layers.Embedding(vocab_size, embedding_dim)
        self.gru = tf.keras.layers.GRU(
            self.dec_units, return_sequences=True, return_state=True, seed=2
        )
        self.fc = tf.keras.layers.Dense(vocab_size)
        self.attention = BahdanauAttention(self.dec_units)

    def call(self, x, hidden, enc_output):
        context_vector, attention_weights = self.attention(hidden, enc_output)
        x = self.embedding(x)
        x = tf.concat([tf.expand_dims(context_vector, 1), x], axis=-1)
        output, state = self.gru(x)
        output = tf.reshape(output, (-1, output.shape[2]))
        x = self.fc(output)
        return x, state, attention_weights


encoder = Encoder(vocab_inp_size, embedding_dim, units, BATCH_SIZE)
decoder = Decoder(vocab_tar_size, embedding_dim, units, BATCH_SIZE)
optimizer = tf.keras.optimizers.Adam()
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")


def loss_function(real, pred):
    mask = tf.math.logical_not(tf.math.equal(real, 0))
    loss_ = loss_object(real, pred)
    mask = tf.cast(mask, dtype=loss_.dtype)
    loss_ *= mask
    return tf.reduce_mean(loss_)


@tf.function
def train_step(inp, targ, enc_hidden):
    loss = 0
    with tf.GradientTape() as tape:
        enc_output, enc_hidden = encoder(inp, enc_hidden)
        dec_hidden = enc_hidden
        dec_input = tf.expand_dims([1] * BATCH_SIZE, 1)
        # Teacher forcing - feeding the target as the next input
        for t in range(1, targ.shape[1]):
            predictions, dec_hidden, _ = decoder(dec_input, dec_hidden, enc_output)
            loss += loss_function(targ[:, t], predictions)
            dec_input = tf.expand_dims(targ[:, t], 1)  # TEACHER_BREAKPOINT
    batch_loss = loss / int(targ.shape[1])
    variables = encoder.trainable_variables + decoder.trainable_variables
    gradients = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(gradients, variables, strict=True))
    return batch_loss


for epoch in range(1):
    enc_hidden = encoder.initialize_hidden_state()
    total_loss = 0
    for batch, (inp, targ) in enumerate(dataset.take(steps_per_epoch)):  # noqa: B007
        batch_loss = train_step(inp, targ, enc_hidden)
        total_loss += batch_loss
    print(f"Epoch {epoch + 1} Loss {float(total_loss / steps_per_epoch):.4f}")  # EPOCH_BREAKPOINT
print("done")
