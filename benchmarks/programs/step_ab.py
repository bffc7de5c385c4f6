"""The debuggee of ``step_time.py --mode ab``: inside one debug session, the plugin's step
against the same step traced with capture off, alternating every step, so that the load of
the machine hits both alike (sessions compared with each other swing by more than 5% here).

``BENCH_MODEL`` (``transformer`` or ``resnet``, built by ``session_builders.py`` as for
``session_models.py``),
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
import session_builders  # beside this file: the models session_models.py times
import tensorflow as tf

MODEL = os.environ.get("BENCH_MODEL", "transformer")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "60"))
keras.utils.set_random_seed(0)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def never_called() -> None:
    return None  # NEVER: a breakpoint that is never hit


model, x, y = session_builders.build(MODEL)
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
