"""Python code a compiled function runs, one call away or more (TF's guides' shapes): plain
helpers at any depth, with jit_compile too, a tf.Module's method its compiled __call__ calls
("Introduction to modules"), bodies given to tf.cond/tf.while_loop/tf.map_fn, a tf.function
inside a tf.function, input_signature and reduce_retracing. A breakpoint in any of them stops
at every call, the first included, with eager values."""

import numpy as np
import tensorflow as tf


def scale(x):
    scaled = x * 2.0
    return scaled  # HELPER


def shift(x):
    return scale(x) + 1.0  # depth 1; `scale` is depth 2


@tf.function
def step(x):
    return shift(x)


def cube(x):
    cubed = x * x * x
    return cubed  # XLA_HELPER


@tf.function(jit_compile=True)
def xla_step(x):
    return cube(x) + 1.0


class Dense(tf.Module):  # TF's "Introduction to modules"
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.ones([in_features, out_features]) * 0.5, name="w")
        self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def __call__(self, x):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)  # MODULE_METHOD


class SequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    @tf.function
    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


def positive(x):
    doubled = x * 2.0
    return doubled  # COND_BRANCH


def body(i, acc):
    acc = acc + tf.cast(i, tf.float32)
    return i + 1, acc  # WHILE_BODY


def square(v):
    squared = v * v
    return squared  # MAP_FN


@tf.function
def control(x):
    y = tf.cond(tf.reduce_sum(x) > 0, lambda: positive(x), lambda: -x)
    _, total = tf.while_loop(lambda i, acc: i < 2, body, (tf.constant(0), tf.constant(0.0)))
    squares = tf.map_fn(square, x)
    return y, total, squares


@tf.function
def inner(x):
    plus = x + 1.0
    return plus  # INNER_FUNCTION


@tf.function
def outer(x):
    return inner(x) * 2.0


def norm(x):
    n = tf.reduce_sum(x * x)
    return n  # SIGNATURE_HELPER


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def with_signature(x):
    return norm(x)


def mean(x):
    m = tf.reduce_mean(x)
    return m  # RETRACING_HELPER


@tf.function(reduce_retracing=True)
def retracing(x):
    return mean(x)


untouched_runs = []


def untouched(x):
    untouched_runs.append(1)  # a Python side effect: once per trace, each call if eager
    return x - 1.0


@tf.function
def plain(x):  # no breakpoint in code it runs: stays compiled
    return untouched(x)


def late(x):
    return x * 10.0  # LATE_HELPER: a breakpoint set while the program runs


@tf.function
def late_step(x):
    return late(x)


model = SequentialModule()
results = []
for i in range(2):
    x = tf.constant([1.0, 2.0, 3.0]) + float(i)
    results.append(step(x))
    results.append(xla_step(x))
    results.append(model(tf.reshape(x, [1, 3])))
    results += list(control(x[:2]))
    results.append(outer(x))
    results.append(with_signature(x[: 2 + i]))
    results.append(retracing(x[: 2 + i]))
    results.append(plain(x))
    results.append(late_step(x))
traced_plain = plain.experimental_get_tracing_count()
results.append(late_step(tf.constant([1.0])))  # ADD_BREAKPOINTS
results.append(late_step(tf.constant([2.0])))
results.append(step(x))  # its breakpoint was removed: the graph traced at its first call
for r in results:
    print("RESULT", np.round(np.asarray(r), 4).tolist())
print("UNTOUCHED runs", len(untouched_runs), "traces", traced_plain)
done = True  # END
