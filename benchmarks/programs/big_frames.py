"""The benchmark's debuggee for big values: a frame of 16 tensors of 10^6 float32, then
a frame holding one 2^28-element int8 tensor (256 MiB)."""

import numpy as np
import tensorflow as tf


def sixteen():
    t00, t01, t02, t03, t04, t05, t06, t07 = (
        tf.random.stateless_normal([1000, 1000], seed=[i, 0]) for i in range(8)
    )
    t08, t09, t10, t11, t12, t13, t14, t15 = (
        tf.random.stateless_normal([1000, 1000], seed=[i, 1]) for i in range(8)
    )
    print("ready")  # BREAKPOINT sixteen


def huge():
    values = np.random.default_rng(0).integers(-128, 128, size=1 << 28, dtype=np.int8)
    big = tf.constant(values)
    del values
    print("huge", big.shape)  # BREAKPOINT huge


sixteen()
huge()
