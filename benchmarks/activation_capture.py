"""Activation capture's cost in a compiled Keras step: a step's time with it on against off.

Two copies of a model (same weights): one whose compiled train step was traced with
activation capture on (every layer's output and the batch written into shadows by the
step), one traced with it off. ``train_on_batch`` on each, ``--inner`` steps a side per
round, the sides' order alternating every round so that drift in the machine's load hits
both alike; medians of every step's time per side, their ratio, and the median of the
per-round ratios. Gradient capture is not installed on either side: this is the
activations' own cost. Memory held: the bytes the shadows hold after the last step.

    .venv/bin/python benchmarks/activation_capture.py [--model mlp|cnn] [--rounds 30 --inner 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def build(kind: str, seed: int = 0):
    import keras

    keras.utils.set_random_seed(seed)
    if kind == "mlp":  # 4.3M parameters, batch 256: ~1 MiB per hidden layer's output
        layers = [
            keras.Input((784,)),
            keras.layers.Dense(1024, activation="relu"),
            keras.layers.Dense(1024, activation="relu"),
            keras.layers.Dense(1024, activation="relu"),
            keras.layers.Dense(512, activation="tanh"),
            keras.layers.Dense(10),
        ]
    else:  # a small CNN on 32x32x3, batch 64: outputs larger than its weights
        layers = [
            keras.Input((32, 32, 3)),
            keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
            keras.layers.Conv2D(64, 3, padding="same", activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(128, 3, padding="same", activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(10),
        ]
    model = keras.Sequential(layers)
    model.compile(
        optimizer=keras.optimizers.Adam(1e-4),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="mlp", choices=["mlp", "cnn"])
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--inner", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()

    import keras
    import numpy as np
    import tensorflow as tf

    from tf_debug_repr.gradients import activations

    activations.install(keras, lambda: True)
    rng = np.random.default_rng(0)
    shape, batch = ((784,), 256) if args.model == "mlp" else ((32, 32, 3), 64)
    x = rng.random((batch, *shape), dtype=np.float32)
    y = rng.integers(0, 10, batch)
    models = {}
    for name, on in (("on", True), ("off", False)):
        activations.set_enabled(on)
        model = build(args.model)
        for _ in range(args.warmup):  # traced here, with the switch as it is now
            model.train_on_batch(x, y)
        models[name] = model
    activations.set_enabled(False)
    times: dict[str, list[float]] = {"on": [], "off": []}
    cpu: dict[str, list[float]] = {"on": [], "off": []}
    ratios = []
    for r in range(args.rounds):
        order = ("on", "off") if r % 2 == 0 else ("off", "on")
        means = {}
        for name in order:
            model = models[name]
            spent = []
            for _ in range(args.inner):
                start, start_cpu = time.perf_counter(), time.process_time()
                model.train_on_batch(x, y)
                spent.append(time.perf_counter() - start)
                cpu[name].append(time.process_time() - start_cpu)
            times[name] += spent
            means[name] = statistics.mean(spent)
        ratios.append(means["on"] / means["off"])
    kept = activations.outputs_of(models["on"].layers[0])
    result = {
        "model": args.model,
        "params": int(models["on"].count_params()),
        "device": "GPU" if tf.config.list_physical_devices("GPU") else "CPU",
        "steps_per_side": len(times["on"]),
        "median_ms_on": 1000 * statistics.median(times["on"]),
        "median_ms_off": 1000 * statistics.median(times["off"]),
        "ratio_of_medians": statistics.median(times["on"]) / statistics.median(times["off"]),
        "median_round_ratio": statistics.median(ratios),
        "median_cpu_ms_on": 1000 * statistics.median(cpu["on"]),
        "median_cpu_ms_off": 1000 * statistics.median(cpu["off"]),
        "cpu_ratio_of_medians": statistics.median(cpu["on"]) / statistics.median(cpu["off"]),
        "held_mib": activations.held_bytes() / (1 << 20),
        "captured": kept is not None and kept[0].value is not None,
        "off_side_captured": activations.outputs_of(models["off"].layers[0]) is not None,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
