"""The benchmark's debuggee for Locals after a step (issue 17's frame): five tf.Variables and
eleven tensors of 10^6 float32 in a training-like loop. Each iteration makes eleven new
tensors; each line after the breakpoint changes one variable."""

import tensorflow as tf


def main():
    w0, w1, w2, w3, w4 = (
        tf.Variable(tf.random.stateless_normal([1000, 1000], seed=[i, 7])) for i in range(5)
    )
    for step in range(100_000):
        t00, t01, t02, t03, t04, t05, t06, t07, t08, t09, t10 = (
            tf.random.stateless_normal([1000, 1000], seed=[i, step]) for i in range(11)
        )
        w0.assign_add(t00 * 0.01)  # BREAKPOINT
        w1.assign_add(t01 * 0.01)
        w2.assign_add(t02 * 0.01)
        w3.assign_add(t03 * 0.01)
        w4.assign_add(t04 * 0.01)


main()
