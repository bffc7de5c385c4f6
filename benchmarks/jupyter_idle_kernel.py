"""Benchmark: a Jupyter kernel nobody debugs, with tf-debug-repr installed vs stock.

ipykernel imports debugpy, and so pydevd and this plugin, in every kernel. The plugin must
then cost nothing: no capture hook, no views, nothing kept. Real kernels (ipykernel via
jupyter_client), alternating stock (TF_DEBUG_REPR_DISABLE=1) and plugin, each training a
25.2M-parameter Keras MLP with a custom GradientTape + Adam step. A third kind forces
capture on (TF_DEBUG_REPR_GRADIENTS=1: what every kernel paid before the gate). Prints per
kind: median step time, resident memory after the steps, whether a hook was installed.

    python benchmarks/jupyter_idle_kernel.py [--rounds 2] [--steps 8]
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import sys
import time

from jupyter_client.manager import start_new_kernel

SETUP = """\
import time, numpy as np, tensorflow as tf, keras
model = keras.Sequential([keras.Input((2048,)), keras.layers.Dense(4096, activation="relu"),
                          keras.layers.Dense(4096, activation="relu"), keras.layers.Dense(10)])
optimizer = keras.optimizers.Adam(1e-4)
x = tf.constant(np.random.default_rng(0).normal(size=(32, 2048)), tf.float32)
y = tf.constant(np.arange(32) % 10)

def train_step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(
            y, model(x), from_logits=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss

for _ in range(2):  # warm-up
    train_step()
"""

MEASURE = """\
times = []
for _ in range({steps}):
    t = time.perf_counter(); train_step(); times.append(time.perf_counter() - t)
"""

RESULT = (
    "(times, model.count_params(),"
    " int(open('/proc/self/statm').read().split()[1]) * __import__('os').sysconf('SC_PAGE_SIZE'),"
    " bool(getattr(tf.GradientTape.gradient, '_tf_debug_repr', False)))"
)


KINDS = {  # name -> the kernel's switches
    "stock": {"TF_DEBUG_REPR_DISABLE": "1"},
    "plugin": {},
    # What every kernel paid before the gate: capture installed at `import tensorflow`.
    "forced": {"TF_DEBUG_REPR_GRADIENTS": "1"},
}


def run_kernel(kind: str, steps: int) -> tuple[list[float], int, int, bool]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_DEBUG_REPR_")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    env.update(KINDS[kind])
    manager, client = start_new_kernel(kernel_name="python3", startup_timeout=120, env=env)
    try:
        client.execute_interactive(SETUP, timeout=600, store_history=False)
        reply = client.execute_interactive(
            MEASURE.format(steps=steps),
            timeout=600,
            user_expressions={"result": RESULT},
            store_history=False,
        )
        value = reply["content"]["user_expressions"]["result"]
        if value["status"] != "ok":
            raise RuntimeError(value)
        return ast.literal_eval(value["data"]["text/plain"])
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--steps", type=int, default=8)
    args = parser.parse_args()
    steps: dict[str, list[float]] = {kind: [] for kind in KINDS}
    rss: dict[str, list[float]] = {kind: [] for kind in KINDS}
    hooked: dict[str, set[bool]] = {kind: set() for kind in KINDS}
    params = 0
    for round_ in range(args.rounds):
        for kind in list(KINDS) if round_ % 2 == 0 else list(KINDS)[::-1]:
            start = time.perf_counter()
            times, params, resident, hook = run_kernel(kind, args.steps)
            steps[kind].extend(t * 1e3 for t in times)
            rss[kind].append(resident / 2**20)
            hooked[kind].add(hook)
            print(f"{kind}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    print(f"Jupyter kernel without a debugger client, Keras MLP of {params / 1e6:.1f}M params")
    print("| measure | stock | tf-debug-repr | ratio | capture forced on (`=1`) | ratio | n |")
    print("|---|---|---|---|---|---|---|")
    for name, data in (("step time (ms)", steps), ("resident memory after the steps (MiB)", rss)):
        a, b, c = (statistics.median(data[kind]) for kind in KINDS)
        n = len(data["plugin"])
        print(f"| {name} | {a:,.1f} | {b:,.1f} | {b / a:.2f}x | {c:,.1f} | {c / a:.2f}x | {n} |")
    flags = [sorted(hooked[kind]) for kind in KINDS]
    print(f"| capture hook installed | {flags[0]} | {flags[1]} | | {flags[2]} | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
