"""Values for the tensor viewer's payload under a real debugpy session
(tests/e2e/test_viewer_payload.py): a tensor with a NaN, a variable, a Keras weight, the
gradient of a tape step, an image batch and a matrix whose payload is about 1 MB."""

import keras
import tensorflow as tf

cube = tf.reshape(tf.range(24, dtype=tf.float32), [2, 3, 4]) - 10.0
cube = tf.tensor_scatter_nd_update(cube, [[1, 2, 3]], [float("nan")])
w = tf.Variable([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]], name="w")
layer = keras.layers.Dense(3, kernel_initializer="ones", bias_initializer="zeros")
layer.build((None, 2))
layer.kernel.assign([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(w))
grad = tape.gradient(loss, w)  # 2 w

images = tf.cast(tf.reshape(tf.range(4 * 8 * 8 * 3) % 256, [4, 8, 8, 3]), tf.uint8)
# 198,000 cells: under the default budget at full resolution, 990,000 bytes before base64.
matrix = tf.reshape(tf.range(440 * 450, dtype=tf.float32), [440, 450]) / 1000.0
words = tf.constant(["a", "b"])
print("ready")  # BREAKPOINT
