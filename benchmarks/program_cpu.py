"""A real program's CPU to its end with no breakpoint (issues 27, 28 and 30): the debuggee's
CPU seconds (its own count at exit, tests/programs/real/probe.py) with no debugger, under
stock debugpy, under the plugin, and (``--before SRC``) under an earlier copy of the
plugin's package, the sides alternating in each round. Runs are tests/e2e/real_suite.py's
``plain_run`` and ``debug_run`` (real ``python -m debugpy.adapter`` sessions).

    git archive main src | tar -x -C /tmp/before
    python benchmarks/program_cpu.py --rounds 3 --before /tmp/before/src
    python benchmarks/program_cpu.py --program real/cyclegan.py --sides stock,after
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e import real_suite  # noqa: E402


def run_side(side: str, program: real_suite.Program, sources: dict[str, str]) -> float:
    if side == "none":
        run = real_suite.plain_run(program)
    else:
        saved = os.environ.get("PYTHONPATH")
        if side in sources:
            src = sources[side]
            extra = [src, os.path.join(src, "tf_debug_repr", "_pydevd_namespace")]
            os.environ["PYTHONPATH"] = os.pathsep.join([*extra, saved or ""]).rstrip(os.pathsep)
        walker = time.thread_time()  # debug_run adds its own thread's CPU: taken out
        try:
            run = real_suite.debug_run(
                program, "stock" if side == "stock" else "plugin", "compiled"
            )
        finally:
            if saved is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = saved
        run.cpu -= time.thread_time() - walker
    if run.failure or run.exit_code not in (0, None):
        raise SystemExit(f"{side}: {run.failure or run.exit_code}\n{run.console[-3000:]}")
    return run.cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--program", default="real/cyclegan.py")
    parser.add_argument("--before", help="an earlier copy of the package's src folder")
    parser.add_argument("--sides", default="", help="comma-separated: none,stock,before,after")
    parser.add_argument("--src", action="append", default=[], help="SIDE=SRC: another copy")
    args = parser.parse_args()
    sides = args.sides.split(",") if args.sides else ["stock", "after"]
    if args.before and not args.sides:
        sides = ["stock", "before", "after"]
    sources = dict(item.split("=", 1) for item in args.src)
    if args.before:
        sources["before"] = args.before
    program = next(p for p in real_suite.PROGRAMS if p.name == args.program)
    program = dataclasses.replace(program, stops=(), compiled=())
    found: dict[str, list[float]] = {side: [] for side in sides}
    for round_ in range(args.rounds):
        for side in sides:
            load = os.getloadavg()[0]
            cpu = run_side(side, program, sources)
            found[side].append(cpu)
            print(f"round {round_ + 1} {side:6s} load {load:4.1f}: CPU {cpu:6.2f} s", flush=True)
    print(f"\nload average at the end: {os.getloadavg()}")
    print(f"| | {' | '.join(sides)} |")
    print(f"|---|{'---|' * len(sides)}")
    cells = [
        f"{statistics.median(v):.2f} ({', '.join(f'{x:.2f}' for x in v)})" for v in found.values()
    ]
    print(f"| debuggee CPU (s), median (each), n = {args.rounds} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
