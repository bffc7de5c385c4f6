"""Timed by benchmarks/compiled_capture.py under a real debugpy session: a Keras model with
its own train_step under compiled fit, and another compiled function beside it. Writes the
median step times to $TFDR_OUT."""

import json
import os
import statistics
import time

import keras
import numpy as np
import tensorflow as tf


class Model(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = self.compute_loss(x=x, y=y, y_pred=self(x, training=True))
        grads = tape.gradient(loss, self.trainable_variables)  # TRAIN_STEP_LINE
        self.optimizer.apply(grads, self.trainable_variables)
        return {"loss": loss}


def never_called():
    return None  # ELSEWHERE_LINE: a breakpoint outside compiled code (the control)


class Timer(keras.callbacks.Callback):
    def on_train_batch_begin(self, batch, logs=None):
        self.start = time.perf_counter()

    def on_train_batch_end(self, batch, logs=None):
        steps.append(time.perf_counter() - self.start)


keras.utils.set_random_seed(0)
inputs = keras.Input((256,))
hidden = keras.layers.Dense(1024, activation="relu")(inputs)
hidden = keras.layers.Dense(512, activation="relu")(hidden)
model = Model(inputs, keras.layers.Dense(10)(hidden))
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
x = np.random.rand(64 * 40, 256).astype("float32")
y = np.random.randint(0, 10, 64 * 40)
steps: list[float] = []
model.fit(x, y, batch_size=64, epochs=1, verbose=0, callbacks=[Timer()])


@tf.function
def other(v):
    return tf.reduce_sum(tf.nn.relu(tf.matmul(v, v, transpose_b=True)))


v = tf.random.normal([256, 256])
other(v)
others = []
for _ in range(50):
    start = time.perf_counter()
    other(v)
    others.append(time.perf_counter() - start)
with open(os.environ["TFDR_OUT"], "w") as f:
    json.dump(
        {
            "step_ms": statistics.median(steps[5:]) * 1e3,
            "other_ms": statistics.median(others) * 1e3,
        },
        f,
    )
