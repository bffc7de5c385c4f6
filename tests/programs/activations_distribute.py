"""Keras's compiled ``fit`` under a MirroredStrategy of two logical CPUs, stopped in a
callback after its last step: each layer's ``→ output`` row has a child per replica, each
equal to ``recompute(keep.before, replica)`` (that replica's part of the batch through the
layers, eagerly with TF ops, from the weights before the step), and the model's
``last step`` rows each replica's part of the batch. $TFDR_OUT gets the trained weights."""

import os

import numpy as np
import tensorflow as tf
from tensorflow import keras  # Keras 3, or Keras 2 where tf.keras is (TF 2.15, tf_keras)

# Grappler fuses Keras 2's MatMul+BiasAdd in the compiled step; on some CPUs (an AMD EPYC
# here: 197 of 200 small products) the fused kernel rounds apart from the eager ops of
# ``recompute``. Off, the step's outputs must equal the recompute bit for bit
# (tests/programs/activations_fit.py's TFDR_NO_FUSION; fusion on: tests/e2e/test_activations.py).
tf.config.optimizer.set_experimental_options({"remapping": False})
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
keras.utils.set_random_seed(5)
x = np.random.rand(32, 6).astype("float32")
y = np.random.rand(32, 1).astype("float32")
BATCH = 16
LAST = 1  # 32 / 16 batches
PART = BATCH // 2  # rows each replica gets


class Keep(keras.callbacks.Callback):
    """The weights before each step (compiled fit calls callbacks between steps)."""

    def on_train_batch_begin(self, batch, logs=None):
        self.before = [w.numpy() for w in self.model.weights]

    def on_train_batch_end(self, batch, logs=None):
        if batch == LAST:
            print(end="")  # CALLBACK_BREAKPOINT


def part(replica):
    start = BATCH * LAST + PART * replica
    return x[start : start + PART], y[start : start + PART]


def recompute(before, replica):
    h = tf.nn.relu(tf.matmul(part(replica)[0], before[0]) + before[1])
    return [h.numpy(), (tf.matmul(h, before[2]) + before[3]).numpy()]


with strategy.scope():
    model = keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(8, activation="relu", name="hidden"),
            keras.layers.Dense(1, name="out"),
        ]
    )
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
keep = Keep()
model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0, callbacks=[keep])
if os.environ.get("TFDR_OUT"):
    np.savez(os.environ["TFDR_OUT"], *[w.numpy() for w in model.weights])
done = True  # END
