"""Gradient capture on a big model: a Keras MLP of 25.2M parameters trained by a custom
``GradientTape`` step on synthetic data (Adam).

1. Step time, capture on vs off, in one process: rounds alternate on/off so that drift
   in machine load hits both sides alike; medians, and the time spent inside the hooks.
2. Resident memory after many steps, each setting in a fresh subprocess: capture off,
   capture on with the default budget for retained gradients, and on with a budget big
   enough to keep every gradient (what the budget saves).

    .venv/bin/python benchmarks/big_model_capture.py [--rounds 12 --steps 1 --memory-steps 12]

The default run takes about three minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time

from hook_timing import timed_hooks

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

WIDTH, INPUT, CLASSES, BATCH = 4096, 1024, 10, 32


def build():
    import keras
    import tensorflow as tf

    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((INPUT,)),
            keras.layers.Dense(WIDTH, activation="relu"),
            keras.layers.Dense(WIDTH, activation="relu"),
            keras.layers.Dense(INPUT, activation="relu"),
            keras.layers.Dense(CLASSES),
        ]
    )
    optimizer = keras.optimizers.Adam(1e-4)
    x = tf.random.normal((BATCH, INPUT))
    y = tf.random.uniform((BATCH,), maxval=CLASSES, dtype=tf.int32)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    return model, step


def resident_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def activate() -> None:
    from tf_debug_repr.activation import startup as activation

    activation.activate()  # before TF is imported, as debugpy's plugin load does


def time_on_off(rounds: int, steps: int) -> None:
    activate()
    import tf_debug_repr
    from tf_debug_repr.gradients import capture as gradient_capture

    tf_debug_repr.set_gradient_capture(True)
    model, step = build()
    params = sum(int(v.shape.num_elements()) for v in model.trainable_variables)
    # Timing wrappers first: the line asking for a gradient is then the same in every step.
    spent = timed_hooks(gradient_capture)
    for _ in range(2):  # warm-up: builds the optimizer's slots and kernels
        step()
    spent.clear()
    on: list[float] = []
    off: list[float] = []
    paired: list[float] = []  # per round: mean on / mean off (neighbours in time)
    calls_on = 0
    for round_ in range(rounds):
        times: dict[bool, list[float]] = {True: [], False: []}
        for enabled in (True, False) if round_ % 2 == 0 else (False, True):
            tf_debug_repr.set_gradient_capture(enabled)
            for _ in range(steps):
                start = time.perf_counter()
                step()
                times[enabled].append(time.perf_counter() - start)
            if enabled:
                calls_on += steps
        on += times[True]
        off += times[False]
        paired.append(statistics.fmean(times[True]) / statistics.fmean(times[False]))
    tf_debug_repr.set_gradient_capture(True)
    hook_per_step = sum(spent) / max(calls_on, 1)
    info = tf_debug_repr.gradient_info(model.trainable_variables[1])
    assert info is not None and info.label, "capture recorded nothing"
    median_on, median_off = statistics.median(on), statistics.median(off)
    kept = sum(1 for v in model.trainable_variables if tf_debug_repr.gradient_of(v) is not None)
    print(
        f"model: Dense {INPUT}->{WIDTH}->{WIDTH}->{INPUT}->{CLASSES}, {params:,} params "
        f"({params * 4 / 2**20:,.0f} MiB float32), batch {BATCH}, Adam, eager GradientTape step"
    )
    print(f"step time, {len(on)} steps on / {len(off)} off in {rounds} alternating rounds:")
    print(f"  capture off: median {median_off * 1e3:,.1f} ms/step")
    print(f"  capture on:  median {median_on * 1e3:,.1f} ms/step")
    print(f"  ratio on/off: {median_on / median_off:.3f} ({(median_on / median_off - 1):+.2%})")
    ratio = statistics.median(paired)
    print(f"  median of per-round ratios on/off: {ratio:.3f} ({ratio - 1:+.2%})")
    print(
        f"  inside the capture hooks: {hook_per_step * 1e3:.2f} ms/step "
        f"({hook_per_step / median_off:.2%} of a step)"
    )
    print(
        f"  retained: {gradient_capture.retained_bytes() / 2**20:,.1f} MiB of gradient values "
        f"(budget {gradient_capture.budget_bytes() / 2**20:,.0f} MiB), values kept for "
        f"{kept} of {len(model.trainable_variables)} weights, latest label {info.label!r}"
    )


def memory_child(steps: int) -> None:
    """Run in a subprocess: ``steps`` steps, then print resident memory as JSON."""
    capture_on = os.environ.get("TF_DEBUG_REPR_GRADIENTS") != "0"
    activate()
    import tf_debug_repr

    if capture_on:
        tf_debug_repr.set_gradient_capture(True)
    model, step = build()
    for _ in range(steps):
        step()
    gc.collect()
    from tf_debug_repr.gradients import capture as gradient_capture

    print(
        json.dumps(
            {
                "rss_mib": resident_mib(),
                "retained_mib": gradient_capture.retained_bytes() / 2**20,
            }
        )
    )


def memory(steps: int) -> None:
    settings = [
        ("capture off", {"TF_DEBUG_REPR_GRADIENTS": "0"}),
        ("capture on, default budget", {"TF_DEBUG_REPR_GRADIENTS": "1"}),
        (
            "capture on, budget 1024 MiB (keeps all)",
            {"TF_DEBUG_REPR_GRADIENTS": "1", "TF_DEBUG_REPR_GRADIENT_BUDGET_MB": "1024"},
        ),
    ]
    print(f"resident memory after {steps} steps (fresh process each):")
    base = None
    for label, env in settings:
        child_env = {
            k: v for k, v in os.environ.items() if not k.startswith("TF_DEBUG_REPR_GRADIENT")
        }
        child_env.update(env)
        out = subprocess.run(
            [sys.executable, __file__, "--memory-child", str(steps)],
            env=child_env,
            capture_output=True,
            text=True,
            timeout=1200,
            check=True,
        )
        result = json.loads(out.stdout.strip().splitlines()[-1])
        base = result["rss_mib"] if base is None else base
        print(
            f"  {label:42s} {result['rss_mib']:8,.0f} MiB  ({result['rss_mib'] - base:+,.0f} MiB;"
            f" gradient values held: {result['retained_mib']:,.1f} MiB)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--memory-steps", type=int, default=12)
    parser.add_argument("--memory-child", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child)
        return
    time_on_off(args.rounds, args.steps)
    if not args.skip_memory:
        memory(args.memory_steps)


if __name__ == "__main__":
    main()
