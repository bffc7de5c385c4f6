"""The benchmark's debuggee: a frame holding 16 tensors of 10^6 float32 elements,
plus one of 2^26 elements (256 MiB) for the size-independence figure."""

import tensorflow as tf

t00, t01, t02, t03, t04, t05, t06, t07 = (
    tf.random.stateless_normal([1000, 1000], seed=[i, 0]) for i in range(8)
)
t08, t09, t10, t11, t12, t13, t14, t15 = (
    tf.random.stateless_normal([1000, 1000], seed=[i, 1]) for i in range(8)
)
print("ready")  # BREAKPOINT
huge = tf.random.stateless_uniform([1 << 26], seed=[3, 3])
print("huge")  # BREAKPOINT huge
