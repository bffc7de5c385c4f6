"""Four shapes of real programs where the plugin's views used to show error rows or call
the program's code more than stock debugpy (issue 26): a subclassed model with attention
layers in the shape of TF's transformer tutorial (``CrossAttention`` over
``MultiHeadAttention``, stopped in its ``call``); a custom ``train_step`` with
``compile_metrics`` before its first step (keras-io's knowledge distillation); a restored
SavedModel's concrete function whose output shape is unknown, beside big string tensors;
a user ``tf.Module`` with ``@property`` ``device`` and ``shape`` that count their calls.
Synthetic data, a few steps, ``run_eagerly=True`` so breakpoints in ``call`` and
``train_step`` are hit."""

import os
import tempfile

os.environ["KERAS_BACKEND"] = "tensorflow"

import keras
import numpy as np
import tensorflow as tf

PROBE_CALLS = {"device": 0, "shape": 0}


class LooksLikeATensor(tf.Module):
    """A user class with tensor-like properties: reading them is the program's code."""

    def __init__(self):
        super().__init__(name="looks_like_a_tensor")
        self.w = tf.Variable([1.0, 2.0], name="w")

    @property
    def device(self):
        PROBE_CALLS["device"] += 1
        return "/job:worker/replica:0/task:0/device:CPU:0"

    @property
    def shape(self):
        PROBE_CALLS["shape"] += 1
        return (2,)


class BaseAttention(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__()
        self.mha = keras.layers.MultiHeadAttention(**kwargs)
        self.layernorm = keras.layers.LayerNormalization()
        self.add = keras.layers.Add()


class CrossAttention(BaseAttention):
    def call(self, x, context):
        attn_output, attn_scores = self.mha(
            query=x, key=context, value=context, return_attention_scores=True
        )
        self.last_attn_scores = attn_scores
        x = self.add([x, attn_output])
        x = self.layernorm(x)
        return x  # BREAKPOINT_ATTENTION


class Decoder(keras.Model):
    def __init__(self):
        super().__init__()
        self.embedding = keras.layers.Dense(8)
        self.cross_attention = CrossAttention(num_heads=2, key_dim=4)
        self.final = keras.layers.Dense(3)

    def call(self, inputs):
        context, x = inputs
        x = self.embedding(x)
        x = self.cross_attention(x, self.embedding(context))
        return self.final(x)


class Distiller(keras.Model):
    def __init__(self, student):
        super().__init__()
        self.student = student
        self.loss_tracker = keras.metrics.Mean(name="loss")

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            predictions = self.student(x, training=True)
            loss = self.compute_loss(y=y, y_pred=predictions)
        metrics = self.metrics  # BREAKPOINT_METRICS
        grads = tape.gradient(loss, self.student.trainable_weights)
        self.optimizer.apply(grads, self.student.trainable_weights)
        self.loss_tracker.update_state(loss)
        for metric in metrics:
            if metric.name == "compile_metrics":
                metric.update_state(y, predictions)
        return {m.name: m.result() for m in metrics}


def attention_model():
    decoder = Decoder()
    context = np.random.default_rng(0).normal(size=(2, 5, 6)).astype("float32")
    x = np.random.default_rng(1).normal(size=(2, 4, 6)).astype("float32")
    return decoder((context, x))


def distillation():
    student = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)], name="student")
    distiller = Distiller(student)
    distiller.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[keras.metrics.SparseCategoricalAccuracy()],
        run_eagerly=True,
    )
    x = np.random.default_rng(2).normal(size=(8, 4)).astype("float32")
    y = np.arange(8) % 3
    distiller.fit(x, y, batch_size=4, epochs=1, verbose=0)


class Doubler(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def __call__(self, x):
        return x * 2.0


def restored():
    folder = tempfile.mkdtemp()
    tf.saved_model.save(Doubler(), folder)
    loaded = tf.saved_model.load(folder)
    call = loaded.__call__.concrete_functions[0]
    traced = loaded.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
    doubled = call(tf.constant([1.0, 2.0]))
    big_strings = tf.constant(["x" * 1_000_000, "y" * 1_000_000, "z" * 1_000_000])
    probe = LooksLikeATensor()
    holder = tf.Module(name="holder")
    holder.probe = probe
    looked = (doubled.shape, big_strings.shape, holder.name, traced.name)
    print("looked", looked)  # BREAKPOINT_RESTORED
    print("probe calls", PROBE_CALLS["device"], PROBE_CALLS["shape"])


attention_model()
distillation()
restored()
print("done")
