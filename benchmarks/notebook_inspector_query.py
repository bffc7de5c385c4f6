"""Benchmark: one JupyterLab Variable Inspector query (its own kernel script, after
``%load_ext tf_debug_repr`` and ``%tf_table live``) in a small namespace as issue 33's
reader had it (a fitted Keras model, ``w``, ``x``, ``grads``), then with big containers of
tensors added (1,000, 2,000 and 25,000 in lists, 2,000 in a dict), and the round trip of a
trivial cell followed by a query, as the open panel does. Real ipykernel via jupyter_client.

    python benchmarks/notebook_inspector_query.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from jupyter_client.manager import start_new_kernel

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from e2e.test_jupyter_inspector import inspector_script  # noqa: E402

SMALL = """\
import numpy as np, tensorflow as tf, keras
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(2)])
model.compile(optimizer="adam", loss="mse")
history = model.fit(np.ones((16, 4), "float32"), np.ones((16, 2), "float32"), epochs=1, verbose=0)
w = tf.Variable(tf.ones((3, 2)))
x = tf.constant([2.0, 6.0])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(tf.ones((2, 4))))
grads = tape.gradient(loss, model.trainable_variables)
"""
BIG = """\
tensors_1000 = [tf.fill((4,), float(i)) for i in range(1000)]
tensors = [tf.fill((4,), float(i)) for i in range(2000)]
by_name = {f"t{i}": t for i, t in enumerate(tensors)}
many = tensors * 12 + [tensors[0]]
"""
QUERY = "_jupyterlab_variableinspector_dict_list()"


def run(client, code: str, store_history: bool = False) -> None:
    reply = client.execute_interactive(
        code, timeout=600, store_history=store_history, output_hook=lambda _msg: None
    )
    assert reply["content"]["status"] == "ok", reply["content"]


def timed(client, code: str, repeats: int, history: bool = False) -> list[float]:
    found = []
    for _ in range(repeats):
        started = time.perf_counter()
        run(client, code, history)
        if history:
            run(client, QUERY)
        found.append((time.perf_counter() - started) * 1e3)
    return found


def text(values: list[float]) -> str:
    q = statistics.quantiles(values, n=4)
    return f"{statistics.median(values):,.1f} ({q[0]:,.1f}-{q[2]:,.1f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_DEBUG_REPR_")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    manager, client = start_new_kernel(kernel_name="python3", startup_timeout=120, env=env)
    try:
        run(client, SMALL, True)
        run(client, inspector_script())
        run(client, "%load_ext tf_debug_repr", True)
        run(client, "%tf_table live", True)
        rows = [
            ("query, small namespace", timed(client, QUERY, args.repeats)),
            ("trivial cell + query", timed(client, "n = 1", args.repeats, history=True)),
        ]
        run(client, BIG, True)
        rows.append(
            ("query, + 1,000/2,000/25,000-tensor lists, dict", timed(client, QUERY, args.repeats))
        )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    print(f"milliseconds, median (interquartile range) of {args.repeats}")
    for label, values in rows:
        print(f"| {label} | {text(values)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
