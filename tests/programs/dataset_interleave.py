"""TF's tf.data guide's parallel interleave of files (synthetic: each "file" a dataset of
lines), with the default cycle length: its cycle length follows num_parallel_calls
(AUTOTUNE, then 2), so the two datasets yield their lines in different orders."""

import tensorflow as tf

opened = []  # the calls under way: a call made while another is not done would be here too


def read_file(index):
    opened.append(index)
    try:
        lines = tf.data.Dataset.range(3).map(lambda line: index * 10 + line)
        return lines  # INTERLEAVE_BREAKPOINT
    finally:
        opened.remove(index)


files = tf.data.Dataset.range(4)
autotuned = files.interleave(read_file, num_parallel_calls=tf.data.AUTOTUNE)
print("RESULT", [int(v) for v in autotuned.as_numpy_iterator()])
two = files.interleave(read_file, num_parallel_calls=2, deterministic=True)
print("RESULT", [int(v) for v in two.as_numpy_iterator()])
done = True  # END
