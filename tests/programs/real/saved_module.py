"""TensorFlow's "Using the SavedModel format" guide, in its shape: a ``tf.Module`` with
compiled methods (``@tf.function __call__``, a method with an ``input_signature``), saved,
restored and called through the restored wrapper; then a Keras layer's method compiled with
``reduce_retracing``. Stopped inside the compiled ``__call__`` (on ``return y``) and after
the restore, at the Python level."""

import os
import tempfile

import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)


class CustomModule(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(1.0)

    @tf.function
    def __call__(self, x):
        print("Tracing with", x)
        y = x * self.v
        return y  # MODULE_BREAKPOINT

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def mutate(self, new_v):
        self.v.assign(new_v)


class Scale(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

    @tf.function(reduce_retracing=True)
    def scaled(self, x):
        return x * self.w


module = CustomModule()
print(float(module(tf.constant(0.0))))
print(module(tf.constant([0.0, 1.0, 2.0])).numpy().tolist())
module.mutate(2.0)

module_with_signature_path = os.path.join(tempfile.mkdtemp(), "module_with_signature")
call = module.__call__.get_concrete_function(tf.TensorSpec(None, tf.float32))
tf.saved_model.save(module, module_with_signature_path, signatures=call)
imported = tf.saved_model.load(module_with_signature_path)
restored = imported(tf.constant(3.0))
print("restored:", float(restored))
signature = imported.signatures["serving_default"]
print(sorted(signature.structured_outputs))

layer = Scale()
layer.build((4,))
for n in range(3):
    out = layer.scaled(tf.ones((n + 1, 4)))
print(out.numpy().tolist())  # RESTORED_BREAKPOINT
print("done")
