"""A two-layer Keras model trained by a custom loop; ends by printing a digest of the
final weights (the capture on/off test compares it)."""

import hashlib

import tensorflow as tf

keras = __import__("tf_keras" if __import__("os").getenv("TF_USE_LEGACY_KERAS") == "1" else "keras")
keras.utils.set_random_seed(7)
tf.config.experimental.enable_op_determinism()

model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)]
)
optimizer = keras.optimizers.Adam(0.01)
x = tf.random.normal((32, 4))
y = tf.random.normal((32, 1))

for step in range(4):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    applied = step  # STOP_AFTER_GRADIENT

digest = hashlib.sha256(b"".join(w.numpy().tobytes() for w in model.weights)).hexdigest()
print(digest)  # STOP_AT_END
