"""A real program's CPU to its end with no breakpoint (issues 27, 28 and 30): the debuggee's
CPU seconds (its own count at exit, tests/programs/real/probe.py) with no debugger, under
stock debugpy, under the plugin, and (``--before SRC``) under an earlier copy of the
plugin's package, the sides alternating in each round. Debug runs are tests/e2e/real_suite.py's
``debug_run`` (real ``python -m debugpy.adapter`` sessions).

    git archive main src | tar -x -C /tmp/before
    python benchmarks/program_cpu.py --rounds 3 --before /tmp/before/src
    python benchmarks/program_cpu.py --program real/cyclegan.py --sides stock,after
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sides  # noqa: E402

from tests.e2e import real_suite  # noqa: E402


def plain_cpu(program: real_suite.Program) -> float:
    """The program with no debugger: its CPU seconds, as its probe wrote them at its exit."""
    with tempfile.TemporaryDirectory() as scratch:
        probe_out = os.path.join(scratch, "reads.json")
        done = subprocess.run(
            [sys.executable, program.path],
            cwd=os.path.dirname(program.path),
            env={**os.environ, **real_suite.ENV, "REAL_PROBE_OUT": probe_out},
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            raise SystemExit(f"none: exit {done.returncode}\n{done.stderr[-3000:]}")
        return real_suite.program_cpu(probe_out)


def run_side(side: str, program: real_suite.Program, sources: dict[str, str]) -> float:
    if side == "none":
        return plain_cpu(program)
    saved = os.environ.get("PYTHONPATH")
    if side in sources:
        os.environ["PYTHONPATH"] = sides.pythonpath(sources[side], saved or "")
    walker = time.thread_time()  # debug_run adds its own thread's CPU: taken out
    try:
        run = real_suite.debug_run(program, "stock" if side == "stock" else "plugin", "compiled")
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
    sides.add_arguments(parser)
    args = parser.parse_args()
    order, sources = sides.chosen(args)
    program = next(p for p in real_suite.PROGRAMS if p.name == args.program)
    program = dataclasses.replace(program, stops=(), compiled=())
    found: dict[str, list[float]] = {side: [] for side in order}
    for round_ in range(args.rounds):
        for side in order:
            load = os.getloadavg()[0]
            cpu = run_side(side, program, sources)
            found[side].append(cpu)
            print(f"round {round_ + 1} {side:6s} load {load:4.1f}: CPU {cpu:6.2f} s", flush=True)
    print(f"\nload average at the end: {os.getloadavg()}")
    print(f"| | {' | '.join(order)} |")
    print(f"|---|{'---|' * len(order)}")
    cells = [
        f"{statistics.median(v):.2f} ({', '.join(f'{x:.2f}' for x in v)})" for v in found.values()
    ]
    print(f"| debuggee CPU (s), median (each), n = {args.rounds} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
