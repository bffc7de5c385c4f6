"""Breakpoints where tensors have no value: inside tf.function tracing, and while a
Keras functional model is built."""

import keras
import tensorflow as tf

scale = tf.Variable(3.0, name="scale")


@tf.function(autograph=False)  # AutoGraph off: the Python body runs (once) while tracing
def traced(x):
    y = tf.matmul(x, x) * scale
    graph = y.graph
    ops_before = len(graph.get_operations())
    print("tracing")  # BREAKPOINT in tf.function
    ops_after = len(graph.get_operations())
    print("ops added while stopped:", ops_after - ops_before)
    return y + 1.0


result = traced(tf.ones([2, 2]))
print("result", result.numpy().tolist())

inputs = keras.Input((3,), name="features")
hidden = keras.layers.Dense(4, name="hidden")(inputs)
print("building")  # BREAKPOINT keras
model = keras.Model(inputs, hidden)
print("params", model.count_params())
