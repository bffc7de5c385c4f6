"""A `tf.vectorized_map` body inside a `@tf.function` (TF's guide's per-example gradients
shape, synthetic): a breakpoint in the body."""

import tensorflow as tf


def per_example(v):
    squared = v * v
    return squared  # VECTORIZED_BODY


@tf.function
def batch_squares(x):
    return tf.vectorized_map(per_example, x)


for i in range(2):
    print("RESULT", batch_squares(tf.constant([1.0 + i, 2.0, 3.0])).numpy().tolist())
done = True  # END
