"""How long ``tf_debug_repr.report()`` takes on a frame of 5,000 small tensors (Markdown and
JSON) and on a 200-layer Keras model: medians of 5, in process.

    .venv/bin/python benchmarks/report_frame.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_seconds(fn: Callable[[], object], rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    import keras
    import tensorflow as tf

    import tf_debug_repr

    names = {f"t{i}": tf.constant([float(i)]) for i in range(5_000)}
    for fmt in ("markdown", "json"):
        seconds = median_seconds(lambda f=fmt: tf_debug_repr.report(names, format=f))
        print(f"5,000 tensors, {fmt}: {seconds:.3f} s")
    layers = [keras.layers.Dense(32) for _ in range(200)]
    model = keras.Sequential([keras.Input((32,)), *layers])
    seconds = median_seconds(lambda: tf_debug_repr.report({"model": model}))
    print(f"a 200-layer model: {seconds:.3f} s")


if __name__ == "__main__":
    main()
