"""Benchmark (issue 27): what recording one value's history entry costs at a stop, in
process (no debugger): ``forensics.history.figures`` on a fresh eager tensor (its values all
changed since the last stop, so nothing is cached), with the downsampled copy, for a 10^6
float32 vector and a float32[4096, 4096] matrix; the floor is one numpy pass (``!= 0``)
over the same buffer. Medians and min-max of ``--repeat`` runs.

    python benchmarks/history_figures.py --repeat 9
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    import numpy as np
    import tensorflow as tf

    from tf_debug_repr.forensics import history

    labels = {"step": None, "epoch": None, "batch": None}
    rng = np.random.default_rng(0)
    print(f"load average: {os.getloadavg()}")
    print("| value | history entry (ms) | min–max | one pass floor (ms) |")
    print("|---|---|---|---|")
    for name, shape in (("float32[1000000]", [1_000_000]), ("float32[4096, 4096]", [4096, 4096])):
        base = rng.standard_normal(shape).astype(np.float32)
        took, floor = [], []
        for i in range(args.repeat):
            tensor = tf.constant(base + np.float32(i))  # every element changed
            start = time.perf_counter()
            history.figures(tensor, i + 1, labels, want_copy=True)
            took.append((time.perf_counter() - start) * 1e3)
            view = tensor._numpy()
            start = time.perf_counter()
            np.count_nonzero(view != 0)
            floor.append((time.perf_counter() - start) * 1e3)
        print(
            f"| {name} | {statistics.median(took):.1f} | {min(took):.1f}–{max(took):.1f} | "
            f"{statistics.median(floor):.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
