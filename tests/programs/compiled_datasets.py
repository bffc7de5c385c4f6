"""TF's tf.data guide, in its shapes (synthetic data): a dataset of features and labels
normalized by `Dataset.map` (parallel), kept by `filter`, batched and prefetched; files read
by `interleave` and `flat_map`; a map function with no breakpoint (it stays compiled); a
dataset made before a breakpoint is set in its function."""

import numpy as np
import tensorflow as tf

features = np.arange(12, dtype="float32").reshape(6, 2)
labels = np.array([0, 1, 1, 0, 1, 0], dtype="int64")
mean = features.mean(axis=0)
untouched_traces = []


def normalize(x, y):
    centred = x - mean
    scaled = centred / 4.0
    return scaled, y  # MAP_BREAKPOINT


def has_label(x, y):
    keep = tf.equal(y, 1)
    return keep  # FILTER_BREAKPOINT


def untouched(x, y):
    untouched_traces.append(1)  # Python: runs only while tf.data traces it (compiled)
    return x * 2.0, y


pipeline = (
    tf.data.Dataset.from_tensor_slices((features, labels))
    .map(normalize, num_parallel_calls=tf.data.AUTOTUNE)
    .filter(has_label)
    .batch(2)
    .prefetch(tf.data.AUTOTUNE)
)
for x, y in pipeline:
    print("RESULT", x.numpy().tolist(), y.numpy().tolist())
doubled = tf.data.Dataset.from_tensor_slices((features, labels)).map(
    untouched, num_parallel_calls=2
)
print("RESULT", [x.numpy().tolist() for x, _ in doubled.batch(3)])
print("UNTOUCHED", len(untouched_traces))


def read_file(index):  # the guide's interleave of files: each file a dataset of lines
    lines = tf.data.Dataset.range(3).map(lambda line: index * 10 + line)
    return lines  # INTERLEAVE_BREAKPOINT


def split_words(line):
    words = tf.strings.split(line)
    return tf.data.Dataset.from_tensor_slices(words)  # FLAT_MAP_BREAKPOINT


def late(x, y):
    return x + 1.0, y  # LATE_BREAKPOINT


source = tf.data.Dataset.from_tensor_slices((features, labels))
early = source.map(late)  # EARLY: made before the breakpoint in `late` is set
files = tf.data.Dataset.range(3).interleave(
    read_file, cycle_length=2, num_parallel_calls=tf.data.AUTOTUNE
)
print("RESULT", [int(v) for v in files.as_numpy_iterator()])
text = tf.data.Dataset.from_tensor_slices(["the quick fox", "jumps over", "the dog"])
print("RESULT", [w.decode() for w in text.flat_map(split_words).as_numpy_iterator()])
started = True  # ADD_BREAKPOINT
print("RESULT", [x.tolist() for x, _ in early.as_numpy_iterator()])
done = True  # END


def in_graph(x):
    return x * 3  # GRAPH_BREAKPOINT: a dataset made in a tf.compat.v1 graph


with tf.Graph().as_default():
    graph_dataset = tf.data.Dataset.range(2).map(in_graph)  # IN_GRAPH
print("RESULT", graph_dataset.element_spec)
finished = True  # LAST
