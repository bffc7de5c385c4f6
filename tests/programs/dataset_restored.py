"""TF's SavedModel guide's shape: a preprocessing function exported with a tf.Module, loaded
back and given to `Dataset.map`: the dataset's function is only a graph (no Python)."""

import tempfile

import tensorflow as tf


class Preprocess(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def scale(self, x):
        scaled = x * 2.0
        return scaled + 1.0  # SOURCE_BREAKPOINT


export_dir = tempfile.mkdtemp()
tf.saved_model.save(Preprocess(), export_dir)
restored = tf.saved_model.load(export_dir)
numbers = tf.data.Dataset.range(4).map(lambda n: tf.cast(n, tf.float32))
mapped = numbers.map(restored.scale)  # MADE
print("RESULT", [float(v) for v in mapped.as_numpy_iterator()])
again = numbers.map(restored.scale)  # the same function: said once
print("RESULT", [float(v) for v in again.as_numpy_iterator()])
done = True  # END
