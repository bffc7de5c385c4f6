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
from tf_debug_repr.viewer.payload import decode

PROGRAMS = Path(__file__).parent / "programs"
PROGRAM = str(PROGRAMS / "training_session.py")
MODELS_PROGRAM = str(PROGRAMS / "session_models.py")
MODELS = ("mlp", "resnet", "transformer", "distribute")
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
    "viewer payload of a weight",
]


def program_of(model: str) -> tuple[str, dict[str, str]]:
    """The debuggee and its environment for ``--model``: issue 27's MLP session
    (programs/training_session.py) or one of programs/session_models.py's models."""
    if model == "mlp":
        return PROGRAM, {}
    return MODELS_PROGRAM, {"BENCH_MODEL": model}


def payload_request(expression: str) -> str:
    """What the VS Code viewer evaluates for its first picture of ``expression``
    (vscode-ext/src/viewer/expression.js: the default axes, index, region and part)."""
    return (
        f"__import__('tf_debug_repr').view_payload(({expression}), "
        "axes=None, index=None, region=None, part=None)"
    )


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
    mlp = "big_a" in by_name  # programs/training_session.py; else session_models.py
    took, children = ms(lambda: client.variables(by_name["model"].reference))
    figures[f"expand the model, {when}"].append(took)
    if mlp:
        layers = client.variables(by_name["layers"].reference)
        layer = next(v for v in layers if v.name.isdigit() and int(v.name) == 0)
    else:
        layer = by_name["layer"]
    took, _ = ms(lambda: client.variables(layer.reference))
    figures[f"expand a layer, {when}"].append(took)
    variable = by_name["big_a" if mlp else "weight"]
    took, _ = ms(lambda: client.variables(variable.reference))
    figures[f"expand a variable, {when}"].append(took)
    took, _ = ms(lambda: client.variables(by_name["optimizer"].reference))
    figures[f"expand the optimizer, {when}"].append(took)
    if mlp:
        took, _ = ms(lambda: [client.variables(by_name[n].reference) for n in ("big_a", "big_b")])
        figures[f"expand two 10^6 variables, {when}"].append(took)
    took, _ = ms(lambda: [client.evaluate(f"t{i}", frame, "watch") for i in range(10)])
    figures[f"Watch of ten tensors, {when}"].append(took)
    took, _ = ms(lambda: client.evaluate("model", frame, "hover"))
    figures[f"hover, {when}"].append(took)
    request = payload_request("layers[0].kernel" if mlp else "weight")
    took, answer = ms(lambda: client.evaluate(request, frame, "clipboard"))
    payload = decode(answer["result"])  # type: ignore[index]
    if payload.get("error") is not None or "slice" not in payload:
        raise RuntimeError(f"the viewer's payload failed: {str(payload)[:300]}")
    figures[f"viewer payload of a weight, {when}"].append(took)


def session(env: dict[str, str], stops: int, figures: Figures, model: str = "mlp") -> None:
    program, model_env = program_of(model)
    client = DapClient()
    try:
        config = launch_config(
            program,
            env={"TF_CPP_MIN_LOG_LEVEL": "2", "BENCH_STEPS": str(stops), **model_env, **env},
        )
        stop = client.start(config, {program: [line_of(program, "BREAKPOINT")]}, timeout=600)
        thread = stop["threadId"]
        for index in range(stops):
            one_stop(client, thread, "first stop" if index == 0 else "stops 2-6", figures)
            client.resume(thread)
            if index + 1 < stops:
                thread = client.wait_event("stopped", 600)["threadId"]
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


def table_against_both(results: dict[str, Figures]) -> str:
    """Stock, stock with ``TCP_NODELAY`` and the plugin side by side: medians, the plugin's
    min-max, its ratio to each."""
    lines = [
        "| request (medians, ms) | stock | stock + `TCP_NODELAY` | tf-debug-repr (min–max) "
        "| vs stock | vs stock + `TCP_NODELAY` | n |",
        "|---|---|---|---|---|---|---|",
    ]
    for when in ("first stop", "stops 2-6"):
        for request in REQUESTS:
            measure = f"{request}, {when}"
            found = [results[k].get(measure) for k in ("stock", "stock, TCP_NODELAY", "plugin")]
            if not all(found):
                continue
            stock, tuned, ours = (statistics.median(f) for f in found)  # type: ignore[arg-type]
            other = found[2]
            lines.append(
                f"| {measure} | {stock:,.1f} | {tuned:,.1f} | {ours:,.1f} "
                f"({min(other):,.1f}–{max(other):,.1f}) | {ours / stock:.2f}x "  # type: ignore[arg-type]
                f"| {ours / tuned:.2f}x | {len(other)} |"  # type: ignore[arg-type]
            )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="sessions of each kind (3)")
    parser.add_argument("--stops", type=int, default=6, help="stops per session (6)")
    parser.add_argument(
        "--model",
        choices=MODELS,
        default="mlp",
        help="mlp: the 21-layer MLP (programs/training_session.py); resnet, transformer, "
        "distribute: programs/session_models.py",
    )
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
    loads = [os.getloadavg()[0]]
    for round_ in range(args.rounds):
        for name in names if round_ % 2 == 0 else names[::-1]:
            session(variants[name], args.stops, results[name], args.model)
            loads.append(os.getloadavg()[0])
        print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    print(
        f"model: {args.model}; load average (1 min) {min(loads):.1f}-{max(loads):.1f} "
        f"over the run, now {os.getloadavg()}"
    )
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
        print("\nall three:\n")
        print(table_against_both(results))
    if "before" in results:
        print(f"\nthe package from {args.before} (before) against stock:\n")
        print(table(results, "before"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
