"""Started by the user with ``python -m debugpy --listen ... --wait-for-client``."""

import tensorflow as tf

activations = tf.nn.relu(tf.constant([[-1.0, 2.0], [3.0, -4.0]]))
print("attached")  # BREAKPOINT
