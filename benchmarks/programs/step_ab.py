"""The debuggee of ``step_time.py --mode ab``: inside one debug session, the plugin's step
against the same step traced with capture off, alternating every step, so that the load of
the machine hits both alike (sessions compared with each other swing by more than 5% here).

``BENCH_MODEL`` (``transformer`` or ``resnet``, as ``session_models.py`` builds them),
``BENCH_ROUNDS`` rounds of four sides, the order reversed every other round: the step traced
as the plugin traces it and one traced with gradient and layer-output capture off, each
called through the plugin's ``Function.__call__`` wrapper and through the original. Per
round, each side's CPU time over the plain graph's through the original call. Then the
Python calls one step makes on each side (a counting profile hook). Printed as ``AB {json}``;
under stock debugpy (``TF_DEBUG_REPR_DISABLE=1``) the four sides are the same step (A/A)."""

import collections
import json
import os
import statistics
import sys
import time

import keras
import tensorflow as tf

MODEL = os.environ.get("BENCH_MODEL", "transformer")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "60"))
keras.utils.set_random_seed(0)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def never_called() -> None:
    return None  # NEVER: a breakpoint that is never hit


def transformer(vocab: int = 2000, length: int = 64, width: int = 128) -> keras.Model:
    tokens = keras.Input((length,), dtype="int32")
    positions = keras.ops.arange(length)
    x = keras.layers.Embedding(vocab, width)(tokens) + keras.layers.Embedding(length, width)(
        positions
    )
    for _ in range(2):
        attended = keras.layers.MultiHeadAttention(num_heads=4, key_dim=width // 4)(x, x)
        x = keras.layers.LayerNormalization(epsilon=1e-6)(x + attended)
        ffn = keras.Sequential(
            [keras.layers.Dense(4 * width, activation="relu"), keras.layers.Dense(width)]
        )
        x = keras.layers.LayerNormalization(epsilon=1e-6)(x + ffn(x))
    pooled = keras.layers.GlobalAveragePooling1D()(x)
    return keras.Model(tokens, keras.layers.Dense(10)(pooled))


if MODEL == "resnet":
    model = keras.applications.ResNet50(
        weights=None, input_shape=(64, 64, 3), classes=1000, classifier_activation=None
    )
    x = tf.random.stateless_normal([8, 64, 64, 3], seed=[1, 2])
    y = tf.random.stateless_uniform([8], seed=[3, 4], maxval=10, dtype=tf.int32)
else:
    model = transformer()
    x = tf.random.stateless_uniform([16, 64], seed=[1, 2], maxval=2000, dtype=tf.int32)
    y = tf.random.stateless_uniform([16], seed=[3, 4], maxval=10, dtype=tf.int32)
optimizer = keras.optimizers.Adam(1e-3)


def body(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss


plugin = "tf_debug_repr.gradients.capture" in sys.modules
call = tf.function(body)
for _ in range(3):
    float(call(x, y))
original_call = getattr(type(call).__call__, "__wrapped__", type(call).__call__)
if plugin:  # the second step is traced with the plugin's capture off
    from tf_debug_repr.gradients import activations, capture

    was = capture._enabled, activations._on
    capture._enabled, activations._on = False, False
plain = tf.function(body)
for _ in range(3):
    float(original_call(plain, x, y))
if plugin:
    capture._enabled, activations._on = was
ops = {
    name: len(f.get_concrete_function(x, y).graph.get_operations())
    for name, f in (("plugin", call), ("plain", plain))
}
sides = {
    "plugin graph, wrapped call": lambda: call(x, y),
    "plugin graph, original call": lambda: original_call(call, x, y),
    "plain graph, original call": lambda: original_call(plain, x, y),
    "plain graph, wrapped call": lambda: plain(x, y),
}
names = list(sides)
cpu: dict[str, list[float]] = {n: [] for n in names}
ratios: dict[str, list[float]] = {n: [] for n in names}
for round_ in range(ROUNDS):
    got = {}
    for name in names if round_ % 2 == 0 else names[::-1]:
        start = time.process_time()
        float(sides[name]())
        got[name] = (time.process_time() - start) * 1e3
        cpu[name].append(got[name])
    for name in names:
        ratios[name].append(got[name] / got[names[2]])

calls = {}
for name in names:
    seen: collections.Counter = collections.Counter()

    def hook(frame, event, arg, seen=seen):  # noqa: ANN001, ANN202
        if event == "call":
            seen[frame.f_code] += 1

    sys.setprofile(hook)
    float(sides[name]())
    sys.setprofile(None)
    calls[name] = sum(seen.values())
print(
    "AB",
    json.dumps(
        {
            "plugin": plugin,
            "ops": ops,
            "tracing_count": call.experimental_get_tracing_count(),
            "cpu_ms": {n: statistics.median(v) for n, v in cpu.items()},
            "cpu_ratio_vs_plain": {n: statistics.median(v) for n, v in ratios.items()},
            "python_calls": calls,
        }
    ),
)
done = True  # END
