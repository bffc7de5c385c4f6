"""A small Keras model trained by a custom loop, stopping after each step: what
``tf_debug_repr.report()`` writes at a breakpoint (gradients, layers, Δ, a NaN)."""

import tensorflow as tf

keras = __import__("tf_keras" if __import__("os").getenv("TF_USE_LEGACY_KERAS") == "1" else "keras")
keras.utils.set_random_seed(3)

model = keras.Sequential(
    [
        keras.Input((4,)),
        keras.layers.Dense(8, activation="relu", name="hidden"),
        keras.layers.Dense(1, name="out|<b>"),
    ]
)
optimizer = keras.optimizers.SGD(0.1)
x = tf.random.normal((16, 4))
y = tf.random.normal((16, 1))


def train_step(step):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    ratio = tf.constant([1.0, 0.0, -1.0]) / tf.constant([1.0, 0.0, 0.0])  # [1, nan, -inf]
    return loss, ratio  # BREAKPOINT


for step in range(3):
    train_step(step)
print("done")
