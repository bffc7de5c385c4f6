"""A program that calls a restored SavedModel function: it runs to its end in every
TF_DEBUG_REPR_EAGER mode (the global switch used to fail on it)."""

import os
import tempfile

import tensorflow as tf


class Scaler(tf.Module):
    def __init__(self):
        super().__init__()
        self.factor = tf.Variable(3.0)

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        return x * self.factor  # SAVED_BREAKPOINT (never hit: the restored copy has no Python)


path = os.path.join(tempfile.mkdtemp(), "scaler")
tf.saved_model.save(Scaler(), path)
restored = tf.saved_model.load(path)
result = restored(tf.constant([1.0, 2.0]))
total = float(tf.reduce_sum(result))
done = True  # END
