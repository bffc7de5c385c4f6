"""A Keras ``fit``'s first trace by debugger (issues 27 and 30): the CPU seconds of each of
TF's traces in a real program (default: tests/programs/real/transformer_attention.py), run
with no debugger, under stock debugpy, under the plugin, and (``--before SRC``) under an
earlier copy of the plugin's package, the sides alternating in each round. A breakpoint is
set at the program's ``--marker`` line (default ``END_BREAKPOINT``: after ``fit``, so the
traces decide that no breakpoint lies in what they ran and the steps run compiled); each
stop is continued. The debuggee (programs/trace_cost.py) times the traces itself.

    python benchmarks/trace_cost.py --rounds 3
    git archive main src | tar -x -C /tmp/before
    python benchmarks/trace_cost.py --rounds 3 --before /tmp/before/src
    python benchmarks/trace_cost.py --sides stock,after,noact --env noact=TF_DEBUG_REPR_ACTIVATIONS=0
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sides

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

HERE = Path(__file__).parent
ROOT = HERE.parent
DEBUGGEE = str(HERE / "programs" / "trace_cost.py")
STOCK_NODELAY = str(HERE / "stock_nodelay")


def run_side(
    side: str, program: str, marker: str, sources: dict[str, str], envs: dict[str, dict]
) -> dict:
    out = tempfile.mktemp(prefix="tfdr-trace-", suffix=".json")
    env = {"TF_CPP_MIN_LOG_LEVEL": "2", "TRACE_PROGRAM": program, "TRACE_OUT": out}
    path = os.environ.get("PYTHONPATH", "")
    if side == "stock":
        env["TF_DEBUG_REPR_DISABLE"] = "1"
        env["PYTHONPATH"] = os.pathsep.join([STOCK_NODELAY, path]).rstrip(os.pathsep)
    elif side in sources:
        env["PYTHONPATH"] = sides.pythonpath(sources[side], path)
    env.update(envs.get(side, {}))
    start = time.perf_counter()
    if side == "none":
        subprocess.run(
            [sys.executable, DEBUGGEE],
            env={**os.environ, **env},
            cwd=os.path.dirname(program),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    else:
        client = DapClient()
        try:
            stop = client.start(
                launch_config(DEBUGGEE, env=env),
                {program: [line_of(program, marker)]},
                timeout=900,
            )
            while True:
                client.resume(stop["threadId"])
                try:
                    stop = client.wait_event("stopped", 900)
                except Exception:
                    break
        finally:
            client.close()
        for _ in range(100):
            if os.path.exists(out):
                break
            time.sleep(0.1)
    with open(out, encoding="utf-8") as f:
        result = json.load(f)
    os.unlink(out)
    result["wall"] = time.perf_counter() - start
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--program", default=str(ROOT / "tests" / "programs" / "real" / "transformer_attention.py")
    )
    parser.add_argument("--marker", default="END_BREAKPOINT")
    sides.add_arguments(parser)
    parser.add_argument("--env", action="append", default=[], help="SIDE=NAME=VALUE")
    parser.add_argument("--trace", default="multi_step_on_iterator", help="the trace to report")
    parser.add_argument("--names", action="store_true", help="print each outermost trace")
    args = parser.parse_args()
    order, sources = sides.chosen(args)
    envs: dict[str, dict] = {}
    for item in args.env:
        side, name, value = item.split("=", 2)
        envs.setdefault(side, {})[name] = value
    found: dict[str, list[tuple[float, float]]] = {side: [] for side in order}
    for round_ in range(args.rounds):
        for side in order:
            load = os.getloadavg()[0]
            result = run_side(side, args.program, args.marker, sources, envs)
            picked = [t for t in result["traces"] if args.trace in t["name"] and t["depth"] == 0]
            cpu = sum(t["cpu"] for t in picked)
            every = sum(t["cpu"] for t in result["traces"] if t["depth"] == 0)
            found[side].append((cpu, every))
            print(
                f"round {round_ + 1} {side:6s} load {load:4.1f}: {args.trace} trace CPU "
                f"{cpu:6.2f} s ({len(picked)} traces), every outermost trace {every:6.2f} s, "
                f"process CPU {result['process_cpu']:6.1f} s, wall {result['wall']:6.1f} s",
                flush=True,
            )
            if args.names:
                for t in result["traces"]:
                    if t["depth"] == 0:
                        print(f"    {t['cpu']:7.2f} s CPU  {t['name']}")
    print(f"\nload average at the end: {os.getloadavg()}")
    print(f"| | {' | '.join(order)} |")
    print(f"|---|{'---|' * len(order)}")
    for index, what in enumerate((f"{args.trace} trace CPU (s)", "every trace's CPU (s)")):
        cells = []
        for side in order:
            values = [v[index] for v in found[side]]
            cells.append(f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})")
        print(f"| {what}, median (range), n = {args.rounds} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
