"""A text classifier with a Transformer block, in the shape of keras-io's "Text
classification with Transformer" example (Apoorv Nandan): attention inside a layer's
`call()`, token and position embeddings, trained with `fit`. Synthetic tokens stand in
for IMDB."""

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)
from tensorflow import keras
from tensorflow.keras import layers

vocab_size, maxlen, embed_dim, num_heads, ff_dim = 200, 20, 16, 2, 16


class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = keras.Sequential(
            [layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)]
        )
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs, training=False):
        attn_output = self.att(inputs, inputs)
        attn_output = self.dropout1(attn_output, training=training)
        out1 = self.layernorm1(inputs + attn_output)
        ffn_output = self.ffn(out1)
        ffn_output = self.dropout2(ffn_output, training=training)
        result = self.layernorm2(out1 + ffn_output)  # BREAKPOINT
        return result


class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        positions = tf.range(start=0, limit=tf.shape(x)[-1], delta=1)
        return self.token_emb(x) + self.pos_emb(positions)


inputs = layers.Input(shape=(maxlen,))
x = TokenAndPositionEmbedding(maxlen, vocab_size, embed_dim)(inputs)
x = TransformerBlock(embed_dim, num_heads, ff_dim)(x)
x = layers.GlobalAveragePooling1D()(x)
x = layers.Dense(8, activation="relu")(x)
outputs = layers.Dense(2, activation="softmax")(x)
model = keras.Model(inputs=inputs, outputs=outputs)

rng = np.random.default_rng(0)
x_train = rng.integers(0, vocab_size, size=(16, maxlen))
y_train = rng.integers(0, 2, size=(16,))
model.compile(
    optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"], run_eagerly=True
)
model.fit(x_train, y_train, batch_size=8, epochs=1, verbose=0)
print("done")
