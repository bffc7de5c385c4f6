"""A breakpoint in a layer's call under a compiled fit (as in TF's word2vec tutorial's
``Word2Vec.call``): the step that holds the stop runs eagerly (its gradient recorded from
its tape), the later ones compiled (theirs from the optimizer's apply)."""

import keras
import numpy as np
import tensorflow as tf


class Scale(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 1), initializer="ones", name="w")

    def call(self, x):
        y = tf.matmul(x, self.w)
        return y  # CALL_STOP


model = keras.Sequential([keras.Input((4,)), Scale()])
model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
x = np.ones((48, 4), np.float32)
y = np.zeros((48, 1), np.float32)
model.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
w = model.layers[0].w
print("iterations", int(model.optimizer.iterations.numpy()))  # END_STOP
