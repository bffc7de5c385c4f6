"""A program that starts its own debug server (``debugpy.listen``), reads a dataset whose
map runs a ``tf.py_function`` on tf.data's threads before any client attached, then waits
for one: a later dataset's map function, with a breakpoint, stops on those same threads."""

import os

import debugpy

debugpy.listen(("127.0.0.1", int(os.environ["DEBUG_PORT"])))

import tensorflow as tf  # noqa: E402


def doubled(x):
    return x * 2  # a py_function: runs on tf.data's threads, no client yet


early = tf.data.Dataset.range(8).map(
    lambda x: tf.py_function(doubled, [x], tf.int64), num_parallel_calls=4
)
print("RESULT", [int(v) for v in early])
debugpy.wait_for_client()


def normalize(x):
    scaled = tf.cast(x, tf.float32) / 10.0
    return scaled  # BREAKPOINT


late = tf.data.Dataset.range(4).map(normalize, num_parallel_calls=4)
print("RESULT", [round(float(v), 2) for v in late])
done = True  # END
