"""The models and batches of the step and session benchmarks, built in one place so that
``session_models.py`` (a training session's stops) and ``step_ab.py`` (one step against
another) time the same graph. Imported by those debuggees, whose folder is the first entry
of their ``sys.path``; each sets Keras's random seed before building.

- ``resnet``: ``keras.applications.ResNet50(weights=None)`` on 64x64 inputs, 10 classes
  (23.6M parameters, 320 weights), batch 8;
- ``transformer``: token and position embeddings, 2 blocks of ``MultiHeadAttention`` + a
  feed-forward ``Sequential`` + ``LayerNormalization``, a pooled classifier, batch 16.
"""

import keras
import tensorflow as tf

MODELS = ("resnet", "transformer")


def transformer(vocab: int = 2000, length: int = 64, width: int = 128) -> keras.Model:
    tokens = keras.Input((length,), dtype="int32")
    positions = keras.ops.arange(length)
    x = keras.layers.Embedding(vocab, width)(tokens) + keras.layers.Embedding(length, width)(
        positions
    )
    for _ in range(2):
        attended = keras.layers.MultiHeadAttention(num_heads=4, key_dim=width // 4)(x, x)
        x = keras.layers.LayerNormalization(epsilon=1e-6)(x + attended)
        ffn = keras.Sequential(
            [keras.layers.Dense(4 * width, activation="relu"), keras.layers.Dense(width)]
        )
        x = keras.layers.LayerNormalization(epsilon=1e-6)(x + ffn(x))
    pooled = keras.layers.GlobalAveragePooling1D()(x)
    return keras.Model(tokens, keras.layers.Dense(10)(pooled))


def resnet() -> keras.Model:
    return keras.applications.ResNet50(
        weights=None, input_shape=(64, 64, 3), classes=1000, classifier_activation=None
    )


def build(name: str) -> tuple[keras.Model, tf.Tensor, tf.Tensor]:
    """``name``'s model and its batch (inputs, labels): stateless random values, the same
    in every run."""
    if name == "resnet":
        model = resnet()  # first, as the programs built it before their batches
        x = tf.random.stateless_normal([8, 64, 64, 3], seed=[1, 2])
        y = tf.random.stateless_uniform([8], seed=[3, 4], maxval=10, dtype=tf.int32)
        return model, x, y
    if name == "transformer":
        model = transformer()
        x = tf.random.stateless_uniform([16, 64], seed=[1, 2], maxval=2000, dtype=tf.int32)
        y = tf.random.stateless_uniform([16], seed=[3, 4], maxval=10, dtype=tf.int32)
        return model, x, y
    raise ValueError(f"{name!r}: one of {MODELS}")
