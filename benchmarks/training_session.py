"""Benchmark (issue 27): every request at every stop of a real training session, plugin
against stock debugpy in the same run.

The debuggee (programs/training_session.py) trains a 21-layer Keras MLP (5.26M
parameters) with a compiled ``@tf.function`` step and stops in the Python loop after each
step. At each stop the client does what a user does: reads Locals, expands the model, a
layer, a variable, the optimizer, the two 10^6 variables (expanded at every stop, so
``Δ since last stop`` tracks them from the first), a Watch of ten tensors, and a hover.
Every request is timed once per stop (the first answer at that stop is what a user waits
for). Sessions alternate stock / plugin / plugin with ``TF_DEBUG_REPR_SNAPSHOT_MB=0`` (the
Δ snapshots' cost), the order reversed every other round; the table gives medians at the
first stop and at stops 2-6, with the plugin's min-max and the ratio to stock.

    python benchmarks/training_session.py --rounds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

PROGRAM = str(Path(__file__).parent / "programs" / "training_session.py")
Figures = dict[str, list[float]]
REQUESTS = [
    "Locals",
    "expand the model",
    "expand a layer",
    "expand a variable",
    "expand the optimizer",
    "expand two 10^6 variables",
    "Watch of ten tensors",
    "hover",
]


def ms(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1e3, out


def one_stop(client: DapClient, thread: int, when: str, figures: Figures) -> None:
    frame = client.top_frame(thread)["id"]
    scope = client.locals_reference(frame)
    took, rows = ms(lambda: client.variables(scope))
    figures[f"Locals, {when}"].append(took)
    by_name = {v.name: v for v in rows}  # type: ignore[attr-defined]
    took, children = ms(lambda: client.variables(by_name["model"].reference))
    figures[f"expand the model, {when}"].append(took)
    layers = client.variables(by_name["layers"].reference)
    first = next(v for v in layers if v.name.isdigit() and int(v.name) == 0)
    took, _ = ms(lambda: client.variables(first.reference))
    figures[f"expand a layer, {when}"].append(took)
    took, _ = ms(lambda: client.variables(by_name["big_a"].reference))
    figures[f"expand a variable, {when}"].append(took)
    took, _ = ms(lambda: client.variables(by_name["optimizer"].reference))
    figures[f"expand the optimizer, {when}"].append(took)
    took, _ = ms(lambda: [client.variables(by_name[n].reference) for n in ("big_a", "big_b")])
    figures[f"expand two 10^6 variables, {when}"].append(took)
    took, _ = ms(lambda: [client.evaluate(f"t{i}", frame, "watch") for i in range(10)])
    figures[f"Watch of ten tensors, {when}"].append(took)
    took, _ = ms(lambda: client.evaluate("model", frame, "hover"))
    figures[f"hover, {when}"].append(took)


def session(env: dict[str, str], stops: int, figures: Figures) -> None:
    client = DapClient()
    try:
        config = launch_config(
            PROGRAM, env={"TF_CPP_MIN_LOG_LEVEL": "2", "BENCH_STEPS": str(stops), **env}
        )
        stop = client.start(config, {PROGRAM: [line_of(PROGRAM, "BREAKPOINT")]}, timeout=300)
        thread = stop["threadId"]
        for index in range(stops):
            one_stop(client, thread, "first stop" if index == 0 else "stops 2-6", figures)
            client.resume(thread)
            if index + 1 < stops:
                thread = client.wait_event("stopped", 300)["threadId"]
    finally:
        client.close()


def table(results: dict[str, Figures], compared: str) -> str:
    lines = [
        "| request | stock | tf-debug-repr | ratio | tf-debug-repr min–max | n |",
        "|---|---|---|---|---|---|",
    ]
    for when in ("first stop", "stops 2-6"):
        for request in REQUESTS:
            measure = f"{request}, {when}"
            stock, other = results["stock"].get(measure), results[compared].get(measure)
            if not stock or not other:
                continue
            a, b = statistics.median(stock), statistics.median(other)
            lines.append(
                f"| {measure} | {a:,.1f} | {b:,.1f} | {b / a:.2f}x | "
                f"{min(other):,.1f}–{max(other):,.1f} | {len(other)} |"
            )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="sessions of each kind (3)")
    parser.add_argument("--stops", type=int, default=6, help="stops per session (6)")
    parser.add_argument("--no-snapshot-off", action="store_true", help="skip the =0 sessions")
    parser.add_argument(
        "--before",
        metavar="SRC",
        help="also run the package from SRC (a `git archive` of an earlier commit's src/, put "
        "first on the debuggee's PYTHONPATH) in the same alternation: before/after in one run",
    )
    parser.add_argument(
        "--stock-nodelay",
        action="store_true",
        help="also stock debugpy with TCP_NODELAY on its socket (benchmarks/stock_nodelay/)",
    )
    args = parser.parse_args()
    variants = {
        "stock": {"TF_DEBUG_REPR_DISABLE": "1"},
        "plugin": {},
        "snapshots off": {"TF_DEBUG_REPR_SNAPSHOT_MB": "0"},
    }
    if args.no_snapshot_off:
        del variants["snapshots off"]
    if args.stock_nodelay:
        here = str(Path(__file__).parent / "stock_nodelay")
        path = os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        variants["stock, TCP_NODELAY"] = {"TF_DEBUG_REPR_DISABLE": "1", "PYTHONPATH": path}
    if args.before:
        path = os.pathsep.join([args.before, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        variants["before"] = {"PYTHONPATH": path}
    results: dict[str, Figures] = {name: defaultdict(list) for name in variants}
    names = list(variants)
    for round_ in range(args.rounds):
        for name in names if round_ % 2 == 0 else names[::-1]:
            session(variants[name], args.stops, results[name])
        print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    print(f"load average: {os.getloadavg()}")
    print(table(results, "plugin"))
    if "snapshots off" in results:
        print("\nplugin with TF_DEBUG_REPR_SNAPSHOT_MB=0 against stock:\n")
        print(table(results, "snapshots off"))
    if "stock, TCP_NODELAY" in results:
        print("\nstock debugpy with TCP_NODELAY on its socket against stock:\n")
        print(table(results, "stock, TCP_NODELAY"))
        print("\ntf-debug-repr against stock debugpy with TCP_NODELAY:\n")
        print(
            table({"stock": results["stock, TCP_NODELAY"], "plugin": results["plugin"]}, "plugin")
        )
    if "before" in results:
        print(f"\nthe package from {args.before} (before) against stock:\n")
        print(table(results, "before"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
