"""A tf.function with a tensor `if` (AutoGraph's), called inside a Dataset.map function:
TF's pix2pix tutorial's random_jitter. tf.data traces the map function even in debug
mode; run_functions_eagerly alone made the nested tf.function run as plain Python in that
trace, where the `if` raises. Under TF_DEBUG_REPR_EAGER=1 the program must still run and
stop inside the function, with real values."""

import tensorflow as tf


@tf.function()
def random_jitter(image):
    if tf.random.uniform(()) > 0.5:
        image = tf.image.flip_left_right(image)
    flipped = image
    return flipped  # STOP_IN_JITTER


def load_image_train(image):
    return random_jitter(image) * 2.0


dataset = tf.data.Dataset.from_tensor_slices(tf.ones([2, 4, 4, 3])).map(load_image_train)
items = [t.shape for t in dataset]
print("done", len(items))  # DONE
