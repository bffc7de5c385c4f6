"""±Inf made on purpose (an attention mask, log(0) of a padded probability), then a NaN born
at a known line: TF_DEBUG_REPR_CHECK_NUMERICS=1 stops at the NaN only; =nan,inf at the mask."""

import numpy as np
import tensorflow as tf


def attend(scores, mask):
    masked = tf.where(mask, scores, -np.inf)  # MASK LINE: -Inf on purpose
    return tf.nn.softmax(masked)


def main():
    scores = tf.constant([[2.0, 1.0, 0.5], [0.1, 0.2, 0.3]])
    mask = tf.constant([[True, True, False], [True, False, False]])
    weights = attend(scores, mask)
    log_p = tf.math.log(tf.constant([0.5, 0.5, 0.0]))  # log(0): -Inf on purpose
    print("masked weights", weights.numpy().round(3).tolist(), "log_p", log_p.numpy().tolist())
    spread = tf.math.reduce_std(tf.ones([2, 3]), axis=1)  # constant rows: zeros
    ratio = spread / spread  # NAN BORN HERE: 0/0
    print("ratio", ratio.numpy().tolist())


main()
