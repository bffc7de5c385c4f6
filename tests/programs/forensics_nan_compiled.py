"""A training step that makes a NaN, forward or backward, run as a tf.function, with XLA,
or eagerly (argv: graph|xla|eager forward|backward), in the shape of TF's custom training
loop guide: a Keras model, a GradientTape step, an optimizer applying the gradients."""

import sys

import keras
import tensorflow as tf

MODE = sys.argv[1] if len(sys.argv) > 1 else "graph"
KIND = sys.argv[2] if len(sys.argv) > 2 else "backward"

model = keras.Sequential(
    [keras.Input((2,)), keras.layers.Dense(2, kernel_initializer="zeros", name="head")]
)
optimizer = keras.optimizers.SGD(0.1)
steps = tf.Variable(0, name="steps")


def step(x):
    steps.assign_add(1)
    with tf.GradientTape() as tape:
        d = model(x)  # all zeros
        if KIND == "forward":  # noqa: SIM108 (a line each: the tests name them)
            spread = tf.sqrt(d - 1.0)  # FORWARD NAN: sqrt of -1
        else:
            spread = tf.norm(d)  # BACKWARD NAN: the norm's gradient at 0 is 0/0
        loss = tf.reduce_sum(spread) + tf.reduce_sum(x)
    grads = tape.gradient(loss, model.trainable_variables)  # GRADIENT LINE
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss


if MODE == "graph":
    run = tf.function(step)
elif MODE == "xla":
    run = tf.function(step, jit_compile=True)
else:
    run = step


def main():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    loss = run(x)  # CALL LINE
    kernel = model.trainable_variables[0]
    print("loss", float(loss), "steps", int(steps.numpy()))
    print("kernel finite", bool(tf.reduce_all(tf.math.is_finite(kernel))))


main()
