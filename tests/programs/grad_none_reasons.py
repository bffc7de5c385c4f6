"""Each way a tape returns None, one variable (or tensor) per reason, plus a NaN/Inf
gradient, a watched plain tensor, and a breakpoint inside a recording tape."""

import numpy as np
import tensorflow as tf

w = tf.Variable([1.0, 2.0], name="w")

frozen = tf.Variable(3.0, trainable=False, name="frozen")
counter = tf.Variable(2, name="counter")  # int32: not differentiable
early = tf.Variable(5.0, name="early")
early_twice = early * 2.0  # read before the tape starts
with tf.GradientTape() as tape_basic:
    loss_basic = tf.reduce_sum(w * frozen) + tf.cast(counter, tf.float32) + early_twice
grads_basic = tape_basic.gradient(loss_basic, [w, frozen, counter, early])

unwatched = tf.Variable(1.5, name="unwatched")
with tf.GradientTape(watch_accessed_variables=False) as tape_manual:
    tape_manual.watch(w)
    loss_manual = tf.reduce_sum(w) * unwatched
grads_manual = tape_manual.gradient(loss_manual, [w, unwatched])

plain = tf.constant([1.0, 2.0, 3.0])  # never tape.watch()ed
watched_x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape() as tape_tensors:
    tape_tensors.watch(watched_x)
    loss_tensors = tf.reduce_sum(plain * watched_x * watched_x)
grads_tensors = tape_tensors.gradient(loss_tensors, [plain, watched_x])

via_numpy = tf.Variable([1.0, 2.0], name="via_numpy")
with tf.GradientTape() as tape_numpy:
    loss_numpy = tf.constant(np.sum(via_numpy.numpy() ** 2))
grad_numpy = tape_numpy.gradient(loss_numpy, via_numpy)

stopped = tf.Variable([1.0, 2.0], name="stopped")
used = tf.Variable(1.0, name="used")
with tf.GradientTape() as tape_stop:
    loss_stop = tf.reduce_sum(tf.stop_gradient(stopped * 2.0) * used)
grads_stop = tape_stop.gradient(loss_stop, [stopped, used])

ranked = tf.Variable([0.3, 0.9, 0.1], name="ranked")
with tf.GradientTape() as tape_argmax:
    loss_argmax = tf.cast(tf.argmax(ranked), tf.float32) * used
grads_argmax = tape_argmax.gradient(loss_argmax, [ranked, used])

exploding = tf.Variable([0.0, 4.0], name="exploding")
with tf.GradientTape() as tape_bad:
    loss_bad = tf.reduce_sum(tf.sqrt(exploding))
grad_bad = tape_bad.gradient(loss_bad, exploding)  # d sqrt(x)/dx at 0 is +Inf

bystander = tf.Variable(7.0, name="bystander")
with tf.GradientTape(persistent=True) as live:
    live_loss = tf.reduce_sum(w * 3.0)
    inside = True  # STOP_INSIDE_TAPE
# Inspecting bystander and w above must not have made the tape watch or record them.
untouched = [v.name for v in live.watched_variables()] == ["w:0"]
live_grads = live.gradient(live_loss, [w, bystander])
done = True  # STOP_AT_END
