"""Gradients from compiled fit (no switch): at a callback stop after the last batch, the
weights' ∇ gradient rows hold what the compiled step applied. ``recompute`` gives the same
gradients eagerly, from the weights before that step and its batch."""

import os

import keras
import numpy as np
import tensorflow as tf

JIT = os.environ.get("TFDR_JIT") == "1"
MIRRORED = os.environ.get("TFDR_MIRRORED") == "1"
# A first kernel of 512x512 (2^18 elements): graph mode keeps its gradient as the factors of
# its MatMul (16x512 each) and a stop multiplies them again.
WIDE = os.environ.get("TFDR_WIDE") == "1"
FEATURES, UNITS = (512, 512) if WIDE else (5, 8)
# Two Conv2D layers on 6x6x8 pictures, the second's kernel 3x3x128x256 (294,912 elements):
# graph mode keeps its gradient as its Conv2DBackpropFilter's input and output gradient
# (16x6x6x128 and 16x2x2x256) and a stop runs that op again.
CONV = os.environ.get("TFDR_CONV") == "1"
strategy = tf.distribute.get_strategy()
if os.environ.get("TFDR_MIRRORED") == "one":  # the common one-GPU shape: one replica
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
if MIRRORED:  # two replicas on two logical CPUs: each computes half of every batch
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
if os.environ.get("TFDR_NO_FUSION") == "1":
    # Grappler fuses MatMul+BiasAdd+Tanh in graphs, which rounds differently from eager
    # ops: off, the compiled step's gradients must equal the eager recompute bit for bit.
    tf.config.optimizer.set_experimental_options({"remapping": False})
keras.utils.set_random_seed(5)
x = np.random.rand(*((64, 6, 6, 8) if CONV else (64, FEATURES))).astype("float32")
y = np.random.rand(64, 1).astype("float32")
LAST = 3  # 64 / 16 batches


def build():
    if CONV:
        return keras.Sequential(
            [
                keras.Input((6, 6, 8)),
                keras.layers.Conv2D(128, 3, padding="same", activation="tanh"),
                keras.layers.Conv2D(256, 3, strides=2),
                keras.layers.GlobalAveragePooling2D(),
                keras.layers.Dense(1),
            ]
        )
    return keras.Sequential(
        [
            keras.Input((FEATURES,)),
            keras.layers.Dense(UNITS, activation="tanh"),
            keras.layers.Dense(1),
        ]
    )


class Keep(keras.callbacks.Callback):
    """The weights before each step (compiled fit calls callbacks between steps)."""

    def on_train_batch_begin(self, batch, logs=None):
        self.before = [w.numpy() for w in self.model.trainable_weights]

    def on_train_batch_end(self, batch, logs=None):
        if batch == LAST:
            print(end="")  # CALLBACK_BREAKPOINT


def recompute(before):
    """The last step's gradients, eagerly, on a copy of the model with the weights it had."""
    clone = build()
    clone.compile(loss="mse")
    clone.set_weights(before)
    xb, yb = x[16 * LAST : 16 * (LAST + 1)], y[16 * LAST : 16 * (LAST + 1)]
    with tf.GradientTape() as tape:
        loss = clone.compute_loss(x=xb, y=yb, y_pred=clone(xb, training=True))
    return [g.numpy() for g in tape.gradient(loss, clone.trainable_weights)]


with strategy.scope():
    model = build()
    model.compile(optimizer="adam", loss="mse", jit_compile=JIT)
keep = Keep()
model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0, callbacks=[keep])
done = True  # END
