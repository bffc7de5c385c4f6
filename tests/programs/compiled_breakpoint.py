"""A breakpoint inside a @tf.function: that function runs eagerly while the breakpoint is
there (values at the stop, on every call); another tf.function stays compiled."""

import tensorflow as tf

w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")


def scale(x):
    return x * 2.0  # HELPER_BREAKPOINT


@tf.function
def step(x):
    y = tf.matmul(x, w)
    if tf.reduce_sum(y) > 0:  # a tensor `if`: AutoGraph's in a trace, Python's when eager
        y = y + 1.0
    z = scale(y)  # STEP_BREAKPOINT
    return z


@tf.function
def other(x):
    return x + 1.0  # never holds a breakpoint: stays compiled


x = tf.ones([1, 2])
results = []
for i in range(3):
    results.append(step(x + float(i)))
    other(x)
traced_other = other.experimental_get_tracing_count()
traced_step = step.experimental_get_tracing_count()
done = True  # END


def jitter(value):
    return value + 1.0  # MAP_BREAKPOINT: a helper of a Dataset.map function


mapped = [float(v) for v in tf.data.Dataset.range(3).map(lambda v: jitter(tf.cast(v, tf.float32)))]
mapped_done = True  # AFTER_MAP
