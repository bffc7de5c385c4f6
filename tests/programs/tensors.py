"""Eager tensors and variables of many kinds, stopped at one breakpoint."""

import numpy as np
import tensorflow as tf

small = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]])
scalar = tf.constant(3.25)
vector = tf.range(1000, dtype=tf.float32) / 4.0
long_axis = tf.reshape(tf.range(250_000, dtype=tf.int32), [250_000, 1])
bad = tf.constant([1.0, 0.0, -1.0, 2.0, 3.0]) / tf.constant([1.0, 0.0, 0.0, 0.0, 1.0])
weights = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [3, 4]) / 8.0, name="weights")
frozen = tf.Variable([1, 2, 3], trainable=False, name="frozen")
big = tf.random.stateless_normal([1000, 1000], seed=[1, 2])
empty = tf.zeros([0, 3])
handle = weights.handle  # a resource tensor: no values to show

dtypes = {
    name: tf.constant(
        np.arange(6).reshape(2, 3) % 2 if name == "bool" else np.arange(6).reshape(2, 3),
        dtype=getattr(tf, name),
    )
    for name in [
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
        "complex64",
        "complex128",
    ]
}
dtypes["string"] = tf.constant([["a", "bc", "def"], ["", "g", "hi"]])
dtypes["scalar_string"] = tf.constant("hello")
dtypes["scalar_bool"] = tf.constant(True)
dtypes["scalar_int"] = tf.constant(7, dtype=tf.int64)
dtypes["empty_int"] = tf.zeros([0], dtype=tf.int32)
dtypes["complex_bad"] = tf.constant([1 + 2j, complex(float("nan"), 0.0)], dtype=tf.complex64)

sparse = tf.sparse.SparseTensor(indices=[[0, 1], [2, 3]], values=[1.5, -2.0], dense_shape=[3, 4])
ragged = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
slices = tf.IndexedSlices(
    values=tf.ones([2, 4]), indices=tf.constant([0, 5]), dense_shape=tf.constant([10, 4])
)
dataset = tf.data.Dataset.range(10).map(lambda x: x * 2).batch(3)
iterator = iter(dataset)
print("ready")  # BREAKPOINT
first = next(iterator)
print("first batch", first.numpy().tolist())
