"""The benchmark's debuggee for issue 27: a training session as a new user writes it.

A 21-layer Keras MLP (5.26M parameters), Adam, a compiled ``@tf.function`` train step, and
a breakpoint in the Python loop after each step. Beside it, two tf.Variables of 10^6
float32 that each step changes (what ``Δ since last stop`` tracks once they are shown), and
ten small tensors for a Watch."""

import os

import keras
import tensorflow as tf

_profile = None
if os.environ.get("BENCH_PROFILE"):  # cProfile of the plugin's answers, on pydevd's thread
    import cProfile
    import functools

    from tf_debug_repr.hosts.pydevd import adapter

    _profile = cProfile.Profile()
    _depth = [0]

    def _profiled(fn):  # type: ignore[no-untyped-def]
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
            _depth[0] += 1
            if _depth[0] == 1:
                _profile.enable()
            try:
                return fn(*args, **kwargs)
            finally:
                _depth[0] -= 1
                if _depth[0] == 0:
                    _profile.disable()

        return wrapper

    adapter._children = _profiled(adapter._children)
    adapter._summary_in = _profiled(adapter._summary_in)
    adapter._container_summary = _profiled(adapter._container_summary)

STEPS = int(os.environ.get("BENCH_STEPS", "7"))
layers = [keras.layers.Dense(512, activation="relu") for _ in range(20)]
model = keras.Sequential([keras.Input((512,)), *layers, keras.layers.Dense(10)])
optimizer = keras.optimizers.Adam(1e-3)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
x = tf.random.stateless_normal([64, 512], seed=[1, 2])
y = tf.random.stateless_uniform([64], seed=[3, 4], maxval=10, dtype=tf.int32)
big_a = tf.Variable(tf.zeros([1_000_000]))
big_b = tf.Variable(tf.ones([1_000_000]))
t0, t1, t2, t3, t4, t5, t6, t7, t8, t9 = (tf.fill([64], float(i)) for i in range(10))


@tf.function
def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    big_a.assign_add(tf.ones_like(big_a))
    big_b.assign(big_b * 1.5)
    return loss


for step in range(STEPS):
    loss = train_step(x, y)
    if _profile is not None:  # what the stops before this one cost, on this thread
        _profile.dump_stats(os.environ["BENCH_PROFILE"])
    print("step", step, float(loss))  # BREAKPOINT
