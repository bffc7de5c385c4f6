"""Benchmark (issues 27 and 28): a training step's time under the debugger where nobody
stops, plugin against stock debugpy (``TF_DEBUG_REPR_DISABLE=1``) in the same run.

The debuggee is ``programs/session_models.py`` (``--model``): it times each compiled step
itself (the call and reading its loss) and prints the times at the end; the first
``--skip`` steps (the trace) are left out. Two modes:

- ``nostop`` (issue 27: within 1.02x stock): a client attached, one breakpoint in the same
  file on a line never run; the program runs through.
- ``shown`` (issue 28: history and activations on, within 1.03x stock): a breakpoint after
  the first step, where the client makes the requests of ``training_session.py``'s stop
  (Locals, the model, a layer, a weight, the optimizer, a Watch of ten tensors, hover, the
  viewer's payload: what history tracks from then on), then continues; the steps after it
  run without stopping, and a last stop after the loop reads the debuggee's resident memory
  and, with the plugin, the bytes history, activations, ``Δ`` snapshots and gradient capture
  hold.

Sessions alternate stock / plugin, the order reversed every other round; per round, the
ratio of the plugin's median step to stock's; the table gives the median of those ratios
and their min-max.

- ``ab``: one plugin session of ``programs/step_ab.py``: the plugin's step against the
  same step traced with capture off, with and without the call wrapper, alternating every
  step in that one process (``--rounds`` rounds of its four sides; ``--also`` is ignored).

    python benchmarks/step_time.py --model resnet --mode shown --rounds 3
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import sys
from collections import defaultdict

from training_session import Figures, one_stop, program_of

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

MEMORY = (
    "__import__('json').dumps({'rss_mib': [int(line.split()[1]) / 1024 for line in "
    "open('/proc/self/status') if line.startswith('VmRSS')][0]})"
)
HELD = {
    "history": "tf_debug_repr.forensics.history",
    "activations": "tf_debug_repr.gradients.activations",
    "Δ snapshots": "tf_debug_repr.forensics.snapshots",
}


def step_times(output: str, skip: int) -> list[float]:
    """The step times (ms) the debuggee printed as ``STEP_MS [...]``, less the first
    ``skip``."""
    for line in reversed(output.splitlines()):
        if line.startswith("STEP_MS "):
            return [float(t) for t in json.loads(line[len("STEP_MS ") :])][skip:]
    raise ValueError("the debuggee printed no STEP_MS line")


def held(client: DapClient, frame: int, plugin: bool) -> dict[str, float]:
    """MiB the debuggee holds at this stop: resident, and (plugin) each store's own count."""

    def read(expression: str) -> object:
        return ast.literal_eval(client.evaluate(expression, frame, "repl")["result"])

    out = {"resident": json.loads(str(read(MEMORY)))["rss_mib"]}
    if plugin:
        for name, module in HELD.items():
            out[name] = float(str(read(f"__import__({module!r}, fromlist=['_']).held_bytes()")))
        capture = "__import__('tf_debug_repr.gradients.capture', fromlist=['_']).retained_bytes()"
        out["gradient values (eager capture)"] = float(str(read(capture)))
        compiled = "__import__('tf_debug_repr.gradients.compiled', fromlist=['_'])._shadow_bytes"
        out["gradient shadows (compiled steps)"] = float(str(read(compiled)))
        for name in out:
            if name != "resident":
                out[name] /= 1 << 20
    return out


def session(model: str, mode: str, env: dict[str, str], steps: int, skip: int) -> tuple:
    """One debug session: its step times (ms) and, in ``shown`` mode, what it holds."""
    program, model_env = program_of(model)
    full_env = {"TF_CPP_MIN_LOG_LEVEL": "2", "BENCH_STEPS": str(steps), **model_env, **env}
    client = DapClient()
    memory: dict[str, float] = {}
    try:
        config = launch_config(program, env=full_env)
        if mode == "nostop":
            client.configure(config, {program: [line_of(program, "NEVER")]}, timeout=600)
        else:
            first = {"line": line_of(program, "BREAKPOINT"), "condition": "step == 0"}
            end = line_of(program, "END")
            stop = client.start(config, {program: [first, end]}, timeout=600)
            one_stop(client, stop["threadId"], "first stop", defaultdict(list))
            client.resume(stop["threadId"])
            thread = client.wait_event("stopped", 900)["threadId"]
            frame = client.top_frame(thread)["id"]
            memory = held(client, frame, "TF_DEBUG_REPR_DISABLE" not in env)
            client.resume(thread)
        client.wait_event("terminated", 900)
        return step_times("".join(client.output), skip), memory
    finally:
        client.close()


def ratio_row(label: str, stock: list[list[float]], ours: list[list[float]]) -> str:
    """A table row: each side's median step over all rounds, the median per-round ratio of
    medians and its min-max."""
    ratios = [statistics.median(b) / statistics.median(a) for a, b in zip(stock, ours, strict=True)]
    a = statistics.median(t for r in stock for t in r)
    b = statistics.median(t for r in ours for t in r)
    n = sum(len(r) for r in ours)
    return (
        f"| {label} | {a:,.1f} | {b:,.1f} | {statistics.median(ratios):.3f}x "
        f"({min(ratios):.3f}–{max(ratios):.3f}) | {len(ratios)} | {n} |"
    )


def one_process_ab(model: str, rounds: int) -> int:
    """``--mode ab``: the debuggee's own alternation, printed as it reports it."""
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "step_ab.py")
    env = {"TF_CPP_MIN_LOG_LEVEL": "2", "BENCH_MODEL": model, "BENCH_ROUNDS": str(rounds)}
    client = DapClient()
    try:
        client.configure(
            launch_config(program, env=env), {program: [line_of(program, "NEVER")]}, timeout=600
        )
        client.wait_event("terminated", 1800)
        output = "".join(client.output)
    finally:
        client.close()
    found = [line for line in output.splitlines() if line.startswith("AB ")]
    if not found:
        print(output[-3000:])
        return 1
    print(f"model: {model}, one plugin session, {rounds} rounds; load average {os.getloadavg()}")
    for key, value in json.loads(found[-1][3:]).items():
        print(f"- {key}: {value}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", choices=("resnet", "transformer", "distribute"), default="resnet"
    )
    parser.add_argument("--mode", choices=("nostop", "shown", "ab"), default="nostop")
    parser.add_argument("--rounds", type=int, default=3, help="(ab: rounds of steps, 3)")
    parser.add_argument("--steps", type=int, default=12, help="steps per session (12)")
    parser.add_argument("--skip", type=int, default=2, help="first steps not counted (2)")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="also the plugin with this setting (TF_DEBUG_REPR_ACTIVATIONS=0), in the same "
        "alternation",
    )
    args = parser.parse_args()
    if args.mode == "ab":
        return one_process_ab(args.model, args.rounds)
    variants = {"stock": {"TF_DEBUG_REPR_DISABLE": "1"}, "plugin": {}}
    for setting in args.also:
        name, value = setting.split("=", 1)
        variants[f"plugin, {setting}"] = {name: value}
    times: dict[str, list[list[float]]] = {name: [] for name in variants}
    memory: dict[str, Figures] = {name: defaultdict(list) for name in variants}
    loads = [os.getloadavg()[0]]
    names = list(variants)
    for round_ in range(args.rounds):
        for name in names if round_ % 2 == 0 else names[::-1]:
            steps, held_mib = session(args.model, args.mode, variants[name], args.steps, args.skip)
            times[name].append(steps)
            for key, value in held_mib.items():
                memory[name][key].append(value)
            loads.append(os.getloadavg()[0])
        print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    print(
        f"model: {args.model}, mode: {args.mode}; load average (1 min) "
        f"{min(loads):.1f}-{max(loads):.1f} over the run, now {os.getloadavg()}"
    )
    print(
        "| step time (ms) | stock | tf-debug-repr | ratio, median per round (min–max) "
        "| rounds | steps |"
    )
    print("|---|---|---|---|---|---|")
    for name in names[1:]:
        print(ratio_row(f"{args.model}, {args.mode}, {name}", times["stock"], times[name]))
    print()  # a line right after a table would read as one of its rows
    for name in names:
        print(
            f"- {name} per round: "
            + "; ".join(
                f"{statistics.median(r):.1f} ({min(r):.1f}-{max(r):.1f})" for r in times[name]
            )
        )
    if args.mode == "shown":
        print("\n| held at the last stop (MiB) | stock | tf-debug-repr (min–max) |")
        print("|---|---|---|")
        for key, values in memory["plugin"].items():  # the plugin with its defaults
            stock = memory["stock"].get(key)
            text = f"{statistics.median(stock):,.1f}" if stock else "–"
            print(
                f"| {key} | {text} | {statistics.median(values):,.3f} "
                f"({min(values):,.3f}–{max(values):,.3f}) |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
