"""A subclassed model built by an eager call (no output shape known), then called on a
symbolic ``keras.Input`` (its output shape known from then on, weights unchanged)."""

import keras
import numpy as np


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(3)

    def call(self, inputs):
        return self.dense(inputs)


net = Net()
net(np.zeros((2, 5), "float32"))
print(end="")  # EAGER_BREAKPOINT
symbolic = net(keras.Input((5,)))
print(end="")  # SYMBOLIC_BREAKPOINT
