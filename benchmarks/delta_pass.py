"""Benchmark (issue 27): what a tracked variable costs at a stop, in process (no debugger),
against the floor of one numpy pass over its buffer.

For a float32 variable of 10^6 and of 10^7 elements, tracked as an expanded variable is
(its ``Δ since last stop`` snapshot and its history), each round makes a step (every
element written, ``assign_add``), starts a new stop, and times what the stop computes of
it: its change since the last stop (``snapshots.change_of``), its history entry
(``history.observe``) and its summary's figures (``views.summary``'s), together; then the
same at a stop where nothing wrote it; then the fused pass alone
(``one_pass.measure`` of the value and its snapshot), and without a snapshot (figures only). The floor, timed in the same round on
the same buffer: ``np.sum`` and a copy. Medians and min-max over ``--rounds``, of wall time and
of the process's CPU time (``time.process_time``: on a shared machine the wall time counts
other programs' turns on the cores too).

    python benchmarks/delta_pass.py --rounds 15

Run against another source tree (``PYTHONPATH=/tmp/before/src``) for before/after: the
fused pass alone is skipped where ``forensics.one_pass`` does not exist.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


CPU: dict[str, list[float]] = {}


def ms(fn: Callable[[], object], kind: str = "") -> float:
    """Wall milliseconds of ``fn``; its CPU milliseconds noted under ``kind``."""
    cpu = time.process_time()
    start = time.perf_counter()
    fn()
    wall = (time.perf_counter() - start) * 1e3
    CPU.setdefault(kind, []).append((time.process_time() - cpu) * 1e3)
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--sizes", default="1000000,10000000")
    args = parser.parse_args()
    import numpy as np
    import tensorflow as tf

    import tf_debug_repr
    from tf_debug_repr import views
    from tf_debug_repr.core.guards import host_view
    from tf_debug_repr.forensics import features, history, snapshots
    from tf_debug_repr.views import variables as variable_views

    try:
        from tf_debug_repr.forensics import one_pass
    except ImportError:
        one_pass = None  # type: ignore[assignment]

    views.build_table()
    features.register()
    snapshots.set_budget_mb(1024)
    print(f"tf_debug_repr from {os.path.dirname(tf_debug_repr.__file__)}")
    print(f"load average before: {os.getloadavg()}")
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        rng = np.random.default_rng(size)
        w = tf.Variable(rng.standard_normal(size).astype(np.float32) * 0.05)
        step = tf.constant(rng.standard_normal(size).astype(np.float32) * 1e-3)
        snapshots.next_stop()
        views.children(w)  # expanded: tracked from now on
        kinds: dict[str, list[float]] = {
            k: []
            for k in ("after a step", "unchanged", "fused pass", "figures only", "np.sum", "copy")
        }

        def stop_work(w: object = w) -> None:
            snapshots.change_of(w)
            history.observe(w, looked=False)
            views.summary(w)

        for _ in range(args.rounds):
            w.assign_add(step)  # a step: every element written
            snapshots.next_stop()
            kinds["after a step"].append(ms(stop_work, f"{size} after a step"))
            snapshots.next_stop()  # a stop where nothing wrote it
            kinds["unchanged"].append(ms(stop_work, f"{size} unchanged"))
            value = variable_views.read_value(w)
            buffer = host_view(value).reshape(-1)
            kinds["np.sum"].append(ms(functools.partial(np.sum, buffer), f"{size} np.sum"))
            kinds["copy"].append(ms(buffer.copy, f"{size} copy"))
            if one_pass is not None:
                then = tf.identity(value)  # a snapshot in a buffer of its own
                w.assign_add(step)
                now = variable_views.read_value(w)
                fused = functools.partial(one_pass.measure, now, then)
                kinds["fused pass"].append(ms(fused, f"{size} fused pass"))
                alone = functools.partial(one_pass.measure, now, None)
                kinds["figures only"].append(ms(alone, f"{size} figures only"))
                del then, now, value, buffer  # nothing of ours holds the variable's buffer
        floor = statistics.median(kinds["np.sum"])
        cpu_floor = statistics.median(CPU[f"{size} np.sum"])
        for kind, took in kinds.items():
            if not took:
                continue
            median = statistics.median(took)
            cpu = CPU[f"{size} {kind}"]
            cpu_median = statistics.median(cpu)
            rows.append(
                f"| float32[{size:,}] | {kind} | {median:.2f} ({min(took):.2f}–{max(took):.2f}) "
                f"| {median / floor:.1f}x | {cpu_median:.2f} ({min(cpu):.2f}–{max(cpu):.2f}) "
                f"| {cpu_median / cpu_floor:.1f}x |"
            )
        snapshots.clear()
        history.clear()
    print(f"load average after: {os.getloadavg()}")
    print(
        "| variable | what a stop computes | wall ms, median (min–max) | vs np.sum "
        "| CPU ms, median (min–max) | vs np.sum |"
    )
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
