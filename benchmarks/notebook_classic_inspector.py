"""Benchmark: one refresh of the classic Notebook's Variable Inspector (``var_dic_list()``,
its own kernel code from ``jupyter_contrib_nbextensions``, run after every cell) in a
namespace holding a 2,000-layer Keras model and 10,000 tensors, with ``%load_ext
tf_debug_repr`` against the Inspector's own code. Real IPython shell, real TF, in one process.

Its own code raises ``UnboundLocalError`` on the first short value (a tensor), so it cannot be
timed as it is: the baseline is its own code with only that bug guarded (``_getcontentof``
wrapped: the text it meant), every other step its own. Two layouts of the 10,000 tensors:
``list`` (one list of them, as a list of batches) and ``names`` (10,000 names, the worst case
for a per-name refresh). For the plugin, ``first`` is a refresh with nothing kept (the rows
made afresh: a fresh wrap each round) and ``again`` a refresh with nothing changed since the
previous one (as the panel's refresh after a cell that changed nothing). Rounds alternate
between the three, in the same process; medians and (min-max) in ms, and the ratios.

    python benchmarks/notebook_classic_inspector.py [--rounds 9] [--layers 2000] [--tensors 10000]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
import types
from typing import Any, Callable

from IPython.core.interactiveshell import InteractiveShell

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), ".."))
from tests.e2e.test_jupyter_classic_inspector import classic_script  # noqa: E402

MODEL = """\
import tensorflow as tf
from tensorflow import keras

class Deep(keras.Model):
    def __init__(self, depth):
        super().__init__()
        self.blocks = [keras.layers.Dense(4) for _ in range(depth)]

    def call(self, x):
        for block in self.blocks:
            x = block(x)
        return x

model = Deep({layers})
_ = model(tf.ones((1, 4)))
"""
LIST = "tensors = [tf.fill((4,), float(i)) for i in range({tensors})]\n"
NAMES = "for i in range({tensors}):\n    globals()[f't{{i}}'] = tf.fill((4,), float(i))\n"


def timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1e3


def shell() -> Any:
    ip = InteractiveShell.instance()
    ip.kernel = types.SimpleNamespace(shell=ip)  # var_list.py reads get_ipython().kernel.shell
    return ip


def measure(layout: str, layers: int, tensors: int, rounds: int) -> dict[str, list[float]]:
    from tf_debug_repr.hosts.notebook import inspector, inspector_classic

    ip = shell()
    ip.user_ns.clear()
    ip.init_user_ns()
    ip.run_cell(MODEL.format(layers=layers))
    ip.run_cell((LIST if layout == "list" else NAMES).format(tensors=tensors))
    with contextlib.redirect_stdout(io.StringIO()):
        ip.run_cell(classic_script())  # defines its functions; its own first print raises
    ns = ip.user_ns
    stock_list, stock_content = ns["var_dic_list"], ns["_getcontentof"]
    guarded = inspector_classic._wrap_content(stock_content)

    def stock() -> str:
        ns["_getcontentof"] = guarded
        return stock_list()

    def ours_fresh() -> Callable[[], str]:
        ns["var_dic_list"], ns["_getcontentof"] = stock_list, stock_content
        inspector.wrap_classic(ns)
        return ns["var_dic_list"]

    times: dict[str, list[float]] = {"inspector": [], "first": [], "again": []}
    for _ in range(rounds):
        times["inspector"].append(timed(stock))
        ours = ours_fresh()
        times["first"].append(timed(ours))
        times["again"].append(timed(ours))
    assert isinstance(stock(), str) and ours_fresh()()  # both answer
    return times


def text(values: list[float]) -> str:
    return f"{statistics.median(values):,.1f} ({min(values):,.1f}-{max(values):,.1f})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--layers", type=int, default=2000)
    parser.add_argument("--tensors", type=int, default=10_000)
    args = parser.parse_args()
    print(f"{args.layers:,}-layer model, {args.tensors:,} tensors; ms, median (min-max)")
    print(
        "| layout | Inspector's own code | plugin, first | plugin, again | first / own | again / own |"
    )
    print("|---|---|---|---|---|---|")
    for layout in ("list", "names"):
        t = measure(layout, args.layers, args.tensors, args.rounds)
        own = statistics.median(t["inspector"])
        print(
            f"| {layout} | {text(t['inspector'])} | {text(t['first'])} | {text(t['again'])} | "
            f"{statistics.median(t['first']) / own:.2f} | {statistics.median(t['again']) / own:.3f} |"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
