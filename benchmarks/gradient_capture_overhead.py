"""What gradient capture costs per training step: a small Keras custom loop (eager
GradientTape + Adam), capture on vs off, in one process.

The hooks are installed as the plugin installs them (on TensorFlow/Keras import);
``set_gradient_capture`` switches them between rounds, which alternate on/off so that
drift in machine load hits both sides alike. Prints per-step medians and the ratio.

    .venv/bin/python benchmarks/gradient_capture_overhead.py [--rounds 10 --steps 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from tf_debug_repr.activation import startup as activation  # noqa: E402

activation.activate()  # before TF is imported, as debugpy's plugin load does

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
from hook_timing import timed_hooks  # noqa: E402

import tf_debug_repr  # noqa: E402
from tf_debug_repr.gradients import capture as gradient_capture  # noqa: E402


def build(width: int, depth: int):
    keras.utils.set_random_seed(0)
    layers = [keras.Input((32,))]
    layers += [keras.layers.Dense(width, activation="relu") for _ in range(depth)]
    layers.append(keras.layers.Dense(10))
    model = keras.Sequential(layers)
    optimizer = keras.optimizers.Adam(1e-3)
    x = tf.random.normal((64, 32))
    y = tf.random.uniform((64,), maxval=10, dtype=tf.int32)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    return model, step


def time_steps(step, steps: int) -> list[float]:
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--depth", type=int, default=3)
    args = parser.parse_args()

    # "on", not "auto": no debugger client is looking here, and capture is what is timed.
    tf_debug_repr.set_gradient_capture(True)
    assert getattr(tf.GradientTape.gradient, "_tf_debug_repr", False), "capture hooks not installed"
    model, step = build(args.width, args.depth)
    for _ in range(10):  # warm-up: first calls build the optimizer and kernels
        step()
    on: list[float] = []
    off: list[float] = []
    for round_ in range(args.rounds):
        for enabled in (True, False) if round_ % 2 == 0 else (False, True):
            tf_debug_repr.set_gradient_capture(enabled)
            (on if enabled else off).extend(time_steps(step, args.steps))
    spent = timed_hooks(gradient_capture)
    tf_debug_repr.set_gradient_capture(True)
    time_steps(step, args.steps)
    hook_per_step = sum(spent) / args.steps
    recorded = tf_debug_repr.gradient_info(model.trainable_variables[0])
    assert recorded is not None and recorded.record.count > 0, "capture recorded nothing"
    # (the timing wrappers live in this file, so the hook-timed steps count as a second target)
    count = sum(r.count for r in recorded.source.all_targets())

    params = sum(int(v.shape.num_elements()) for v in model.trainable_variables)
    median_on, median_off = statistics.median(on), statistics.median(off)
    print(
        f"model: {args.depth}x Dense({args.width}) + Dense(10), {len(model.trainable_variables)} "
        f"trainable variables, {params:,} params, batch 64, Adam, eager GradientTape loop"
    )
    print(
        f"steps timed: {len(on)} with capture on, {len(off)} off ({args.rounds} alternating rounds)"
    )
    print(f"capture off: median {median_off * 1e3:.3f} ms/step")
    print(f"capture on:  median {median_on * 1e3:.3f} ms/step")
    print(
        f"ratio on/off: {median_on / median_off:.3f} ({(median_on / median_off - 1) * 100:+.1f}%)"
    )
    print(
        f"time inside the capture hooks: {hook_per_step * 1e6:.0f} µs/step ({hook_per_step / median_off:.2%} of a step)"
    )
    print(
        f"gradients recorded per weight: {count} (10 warm-up + {len(on)} on + {args.steps} hook-timed), latest: {recorded.label}; records held: {gradient_capture.live_records()}"
    )


if __name__ == "__main__":
    main()
