"""tf.function methods, every shape (TF's "Using the SavedModel format" guide, its DeepDream
tutorial, Keras layers and models): a breakpoint in one stops with values at every call, and
the program ends with the plain run's output."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf


class CustomModule(tf.Module):  # the SavedModel guide's module
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(2.0)

    @tf.function
    def __call__(self, x):
        y = x * self.v
        return y  # MODULE_CALL

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def mutate(self, new_v):
        self.v.assign(new_v)


class Dreamer(tf.Module):  # the DeepDream tutorial's shape: input_signature, a tf.range loop
    def __init__(self):
        super().__init__()
        self.kernel = tf.Variable([[0.5], [0.25], [0.125]])

    @tf.function(
        input_signature=(
            tf.TensorSpec(shape=[None, None, 3], dtype=tf.float32),
            tf.TensorSpec(shape=[], dtype=tf.int32),
            tf.TensorSpec(shape=[], dtype=tf.float32),
        )
    )
    def __call__(self, img, steps, step_size):
        loss = tf.constant(0.0)
        for _ in tf.range(steps):
            with tf.GradientTape() as tape:
                tape.watch(img)
                loss = tf.reduce_sum(tf.matmul(tf.reshape(img, [-1, 3]), self.kernel))
            gradients = tape.gradient(loss, img)
            img = img + gradients * step_size  # DREAM_STEP
        return loss, img


class Resizer(tf.Module):
    @tf.function(reduce_retracing=True)
    def total(self, x):
        s = tf.reduce_sum(x)
        return s  # RETRACING

    @tf.function(jit_compile=True)
    def fused(self, x):
        z = tf.tanh(x) * 0.0 + x * 3.0
        return z  # XLA_METHOD


class Doubler(keras.layers.Layer):  # a Keras layer whose call is a tf.function
    @tf.function
    def call(self, x):
        doubled = x * 2.0
        return doubled  # LAYER_CALL


class Counter(keras.Model):  # a Keras model with a compiled method of its own
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")

    @tf.function
    def score(self, x):
        out = self.dense(x)
        return out  # MODEL_METHOD


class Later(tf.Module):  # decorated after the class was made (class and instance)
    def __init__(self):
        super().__init__()
        self.offset = tf.Variable(10.0)

    def shift(self, x):
        shifted = x + self.offset
        return shifted  # LATE_CLASS

    def scale(self, x):
        scaled = x * self.offset
        return scaled  # LATE_INSTANCE


Later.shift = tf.function(Later.shift)

module = CustomModule()
dreamer = Dreamer()
resizer = Resizer()
doubler = Doubler()
counter = Counter()
later = Later()
later.scale = tf.function(later.scale)


@tf.function
def through(x):  # a compiled method called from another tf.function
    return module(x) + 1.0


results = []
for i in range(2):
    x = tf.constant([1.0, 2.0]) + float(i)
    results.append(module(x))
    module.mutate(3.0 + i)
    loss, img = dreamer(tf.ones([2, 2, 3]) * (i + 1), tf.constant(2), tf.constant(0.5))
    results += [loss, img]
    results.append(resizer.total(tf.ones([2 + i])))
    results.append(resizer.fused(x))
    results.append(doubler(x))
    results.append(counter.score(tf.reshape(x, [1, 2])))
    results.append(later.shift(x))
    results.append(later.scale(x))
    results.append(through(x))

path = os.path.join(tempfile.mkdtemp(), "module")
tf.saved_model.save(module, path)
restored = tf.saved_model.load(path)  # its __call__ has no Python: runs as under stock
results.append(restored(tf.constant([1.0, 2.0])))

for r in results:
    print("RESULT", np.round(np.asarray(r), 4).tolist())
done = True  # END
