"""``python -m tf_debug_repr demo``: a real debugpy session on a bundled TensorFlow
program, stopped at a breakpoint, printed as VS Code's Variables pane would show it.

Nothing is simulated: the adapter is ``python -m debugpy.adapter``, the answers are
its DAP ``variables``/``evaluate`` responses. ``--compare`` runs the same program a
second time with the plugin disabled, to show what stock debugpy shows.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from .dap_client import DapClient, Variable, launch_config, line_of

DEMO = Path(__file__).parent / "examples" / "demo.py"
# Which locals the demo opens, and how deep.
EXPAND = {"kernel": 2, "ratios": 1, "long_vector": 1, "model": 1, "tape": 1}
MAX_CHILDREN = 5
VALUE_WIDTH = 150


def _line(v: Variable, depth: int, opened: bool) -> str:
    arrow = ("▾" if opened else "▸") if v.reference else " "
    value = " ".join(v.value.split())
    if len(value) > VALUE_WIDTH:
        value = value[: VALUE_WIDTH - 1] + "…"
    return f"{'  ' * depth}{arrow} {v.name:<16} {v.type:<16} {value}"


def _print_tree(
    client: DapClient, variables: list[Variable], depth: int, budget: dict[str, int], out
) -> None:
    shown = variables[:MAX_CHILDREN] if depth else variables
    for v in shown:
        if v.name in (
            "special variables",
            "function variables",
            "class variables",
            "protected variables",
        ):
            continue
        levels = budget.get(v.name, 0) if depth == 0 else budget.get("_", 0)
        opened = bool(v.reference) and levels > 0
        print(_line(v, depth, opened), file=out)
        if opened:
            _print_tree(client, client.variables(v.reference), depth + 1, {"_": levels - 1}, out)
    if depth and len(variables) > len(shown):
        print(f"{'  ' * depth}  … {len(variables) - len(shown)} more", file=out)


def run_session(program: Path, plugin: bool, out, watch: list[str]) -> float:
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if not plugin:
        env["TF_DEBUG_REPR_DISABLE"] = "1"
    client = DapClient(python=sys.executable)
    try:
        started = time.perf_counter()
        line = line_of(str(program), "BREAKPOINT")
        stop = client.start(launch_config(str(program), env=env), {str(program): [line]})
        elapsed = time.perf_counter() - started
        frame = client.top_frame(stop["threadId"])
        print(
            f"stopped at {program.name}:{frame['line']} in {frame['name']}() after {elapsed:.1f} s\n",
            file=out,
        )
        print("VARIABLES", file=out)
        _print_tree(client, client.variables(client.locals_reference(frame["id"])), 0, EXPAND, out)
        if watch:
            print("\nDEBUG CONSOLE", file=out)
            for expression in watch:
                result = client.evaluate(expression, frame["id"], "repl")["result"]
                print(f">>> {expression}\n{result}", file=out)
        return elapsed
    finally:
        client.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tf_debug_repr demo", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--program", type=Path, default=DEMO, help="a program with a line marked 'BREAKPOINT'"
    )
    parser.add_argument(
        "--compare", action="store_true", help="also show stock debugpy's view (plugin off)"
    )
    parser.add_argument(
        "--watch", action="append", default=None, help="expression to evaluate in the Debug Console"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tf-debug-repr-demo-") as scratch:
        return _run(args, launchable(args.program, Path(scratch)))


def launchable(program: Path, scratch: Path) -> Path:
    """The program to launch: the bundled demo as a copy in ``scratch``. After a regular
    (non-editable) install it sits in site-packages, which debugpy's ``justMyCode`` counts
    as library code: a breakpoint there is dropped and the demo never stops."""
    if program.resolve() != DEMO.resolve():
        return program
    copy = scratch / DEMO.name
    shutil.copyfile(DEMO, copy)
    return copy


def _run(args: argparse.Namespace, program: Path) -> int:
    watch = (
        args.watch
        if args.watch is not None
        else (["kernel", "ratios"] if args.program == DEMO else [])
    )
    out = sys.stdout
    print("=" * 30 + " with tf-debug-repr " + "=" * 30, file=out)
    run_session(program, plugin=True, out=out, watch=watch)
    if args.compare:
        print("\n" + "=" * 30 + " stock debugpy " + "=" * 30, file=out)
        run_session(program, plugin=False, out=out, watch=watch)
    return 0
