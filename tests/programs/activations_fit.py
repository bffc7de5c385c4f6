"""Activations and the batch from compiled steps, and a dataset preview.

A compiled ``fit`` stopped in a callback after its last step: each layer's ``→ output``
row must equal ``recompute(keep.before)`` (the layers run eagerly on that step's batch
with the weights from before the step) bit for bit, and the model's ``last step`` rows the
batch. A subclassed model trained by a custom ``@tf.function`` step: the layers its
``call`` reached have outputs, the one it never called has none. A ``Dataset.map``
pipeline: previewed at the stop between two reads, the program's iterator still gives what it
would have given ($TFDR_OUT gets the element it read next, and whether it matched)."""

import os

import keras
import numpy as np
import tensorflow as tf

if os.environ.get("TFDR_NO_FUSION") == "1":
    # Grappler fuses MatMul+BiasAdd+Tanh in graphs, which rounds differently from eager
    # ops: off, the compiled step's outputs must equal the eager recompute bit for bit.
    tf.config.optimizer.set_experimental_options({"remapping": False})
keras.utils.set_random_seed(3)
x = np.random.rand(64, 12).astype("float32")
y = np.random.rand(64, 1).astype("float32")
LAST = 3  # 64 / 16 batches


def build():
    return keras.Sequential(
        [
            keras.Input((12,)),
            keras.layers.Dense(32, activation="relu", name="hidden"),
            keras.layers.Dense(16, activation="tanh", name="squash"),
            keras.layers.Dense(1, activation="sigmoid", name="out"),
        ]
    )


class Keep(keras.callbacks.Callback):
    """The weights before each step (compiled fit calls callbacks between steps)."""

    def on_train_batch_begin(self, batch, logs=None):
        self.before = [w.numpy() for w in self.model.weights]

    def on_train_batch_end(self, batch, logs=None):
        if batch == LAST:
            print(end="")  # CALLBACK_BREAKPOINT


def recompute(before):
    """Each layer's output in the last step, eagerly, from the weights it had."""
    clone = build()
    clone.set_weights(before)
    h = tf.constant(x[16 * LAST :])
    found = []
    for layer in clone.layers:
        h = layer(h, training=True)
        found.append(h.numpy())
    return found


model = build()
model.compile(optimizer="adam", loss="mse")
keep = Keep()
model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0, callbacks=[keep])


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.first = keras.layers.Dense(8, activation="relu")
        self.second = keras.layers.Dense(1)
        self.unused = keras.layers.Dense(3)  # never called

    def call(self, inputs):
        return self.second(self.first(inputs))


net = Net()
optimizer = keras.optimizers.SGD(0.1)


@tf.function
def step(xb, yb):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(net(xb) - yb))
    grads = tape.gradient(loss, net.trainable_variables)
    optimizer.apply_gradients(zip(grads, net.trainable_variables))
    return loss


for i in range(3):
    before = [w.numpy() for w in net.first.weights]  # the first layer's, before this step
    loss = step(x[16 * i : 16 * (i + 1)], y[16 * i : 16 * (i + 1)])
    print(end="")  # LOOP_BREAKPOINT

ds = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2.0).batch(4)
expected = [e for e in ds.as_numpy_iterator()][:2]
iterator = iter(ds)
first = next(iterator)
print(end="")  # PREVIEW_BREAKPOINT
second = next(iterator).numpy()
same = bool(np.array_equal(second, expected[1]))
if os.environ.get("TFDR_OUT"):
    np.savez(os.environ["TFDR_OUT"], second=second, same=np.array(same))
done = True  # END
