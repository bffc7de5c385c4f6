"""Benchmark: what ``%load_ext tf_debug_repr`` with a live ``%tf_table`` and the JupyterLab
Variable Inspector costs a notebook that trains a 25.2M-parameter Keras MLP, no debugger.

Real kernels (ipykernel via jupyter_client), alternating:
  stock   the plugin installed but not loaded (what every kernel has),
  loaded  ``%load_ext tf_debug_repr``, ``%tf_table live`` (refreshed by a post_run_cell hook
          after every cell) and the Inspector's own kernel script (``lckr_jupyterlab_
          variableinspector``) queried after every cell, as its panel does.
Each kernel runs one training step per cell; prints the median step time measured inside
the cell, the median round trip of a cell as the client sees it (the step, plus the table's
refresh and the Inspector's query in "loaded"), and the time of one table look and one
Inspector query by themselves, then the round trip of trivial cells (``n = …``, and the
Inspector's query after each in "loaded"): what a cell costs beyond its own work. The cells are sent as a notebook sends them
(``store_history: true``), the queries as the Inspector does (``store_history: false``). The namespace also holds the step's gradients (``grads``, a
list of 6 tensors, 25.2M elements), whose figures the table computes after each cell.

    python benchmarks/notebook_table.py [--rounds 2] [--cells 8]
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

SETUP = """\
import time, numpy as np, tensorflow as tf, keras
model = keras.Sequential([keras.Input((2048,)), keras.layers.Dense(4096, activation="relu"),
                          keras.layers.Dense(4096, activation="relu"), keras.layers.Dense(10)])
optimizer = keras.optimizers.Adam(1e-4)
x = tf.constant(np.random.default_rng(0).normal(size=(32, 2048)), tf.float32)
y = tf.constant(np.arange(32) % 10)
step_times = []

def train_step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(
            y, model(x), from_logits=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, grads

for _ in range(2):  # warm-up
    loss, grads = train_step()
"""
CELL = "t = time.perf_counter(); loss, grads = train_step(); step_times.append(time.perf_counter() - t)"
TRIVIAL = "n_cells = len(step_times)"  # a cell that changes nothing TF holds
QUERY = "_jupyterlab_variableinspector_dict_list()"
LOOK = "__import__('tf_debug_repr.hosts.notebook.table_view', fromlist=['x'])._magic.last_seconds"


def run(client, code: str, store_history: bool = False, **kwargs):
    """Execute ``code``; the user's cells keep their history (a notebook's do), the
    Inspector's queries do not (its front end sends ``store_history: false``)."""
    reply = client.execute_interactive(
        code, timeout=600, store_history=store_history, output_hook=lambda _msg: None, **kwargs
    )
    assert reply["content"]["status"] == "ok", reply["content"]
    return reply


def run_kernel(kind: str, cells: int) -> dict[str, list[float]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_DEBUG_REPR_")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    manager, client = start_new_kernel(kernel_name="python3", startup_timeout=120, env=env)
    out: dict[str, list[float]] = {"cell": [], "look": [], "query": [], "trivial": []}
    try:
        run(client, SETUP)
        if kind == "loaded":
            run(client, inspector_script(), silent=True)
            run(client, "%load_ext tf_debug_repr", store_history=True)
            run(client, "%tf_table live", store_history=True)
        for _ in range(cells):
            started = time.perf_counter()
            # user_expressions are read after the cell's post_run_cell hooks: this look
            # is the refresh that followed this very cell
            reply = run(
                client,
                CELL,
                store_history=True,
                user_expressions={"look": LOOK} if kind == "loaded" else {},
            )
            if kind == "loaded":
                run(client, QUERY)
            out["cell"].append(time.perf_counter() - started)
            if kind == "loaded":
                look = reply["content"]["user_expressions"]["look"]["data"]["text/plain"]
                out["look"].append(float(look))
                started = time.perf_counter()
                run(client, QUERY)
                out["query"].append(time.perf_counter() - started)
        for _ in range(cells):  # trivial cells: what a cell costs beyond its own work
            started = time.perf_counter()
            run(client, TRIVIAL, store_history=True)
            if kind == "loaded":
                run(client, QUERY)
            out["trivial"].append(time.perf_counter() - started)
        out["step"] = [
            float(t)
            for t in eval(  # noqa: S307 - our own kernel's list of floats
                run(client, "", user_expressions={"v": "step_times"})["content"][
                    "user_expressions"
                ]["v"]["data"]["text/plain"]
            )
        ]
        return out
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cells", type=int, default=8)
    args = parser.parse_args()
    kinds = ("stock", "loaded")
    data: dict[str, dict[str, list[float]]] = {k: {} for k in kinds}
    per_kernel: dict[str, list[float]] = {k: [] for k in kinds}  # each kernel's median step
    for round_ in range(args.rounds):
        for kind in kinds if round_ % 2 == 0 else kinds[::-1]:
            started = time.perf_counter()
            found = run_kernel(kind, args.cells)
            for key, values in found.items():
                data[kind].setdefault(key, []).extend(v * 1e3 for v in values)
            per_kernel[kind].append(statistics.median(found["step"]) * 1e3)
            print(f"{kind}: {time.perf_counter() - started:.0f} s", file=sys.stderr)

    def median(kind: str, key: str) -> float:
        return statistics.median(data[kind][key])

    def spread(kind: str, key: str) -> str:
        q = statistics.quantiles(data[kind][key], n=4)
        return f"{q[0]:,.1f}-{q[2]:,.1f}"

    print("Notebook, Keras MLP of 25.2M params, no debugger; medians in ms (interquartile range)")
    print("| measure | stock | %load_ext + live %tf_table + Inspector | ratio | n |")
    print("|---|---|---|---|---|")
    for key, label in (
        ("step", "training step (inside the cell)"),
        ("cell", "cell round trip"),
        ("trivial", "trivial cell round trip (+ Inspector query in loaded)"),
    ):
        a, b = median("stock", key), median("loaded", key)
        print(
            f"| {label} | {a:,.1f} ({spread('stock', key)}) | {b:,.1f} ({spread('loaded', key)})"
            f" | {b / a:.2f}x | {len(data['loaded'][key])} |"
        )
    ratios = [b / a for a, b in zip(per_kernel["stock"], per_kernel["loaded"], strict=True)]
    print(
        "| step ratio, kernel pair by kernel pair | | | "
        + ", ".join(f"{r:.2f}x" for r in ratios)
        + f" | {len(ratios)} |"
    )
    print(
        f"| one %tf_table look | | {median('loaded', 'look'):,.1f} | | {len(data['loaded']['look'])} |"
    )
    print(
        f"| one Inspector query | | {median('loaded', 'query'):,.1f} | | {len(data['loaded']['query'])} |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
