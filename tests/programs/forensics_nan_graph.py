"""A NaN born inside a tf.function: the log of a negative value."""

import tensorflow as tf


@tf.function
def loss_of(values):
    logs = tf.math.log(values)  # NAN OP CREATED HERE
    return tf.reduce_mean(logs)


def main():
    values = tf.constant([1.0, 2.0, -3.0])
    loss = loss_of(values)  # GRAPH CALL
    print("loss", float(loss))


main()
