"""The sides a before/after benchmark alternates (``none``, ``stock``, ``before``, ``after``)
and the copies of the package they run: one parser and one PYTHONPATH rule for
benchmarks/trace_cost.py and benchmarks/program_cpu.py."""

from __future__ import annotations

import argparse
import os


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--before", help="an earlier copy of the package's src folder")
    parser.add_argument("--sides", default="", help="comma-separated: none,stock,before,after")
    parser.add_argument("--src", action="append", default=[], help="SIDE=SRC: another copy")


def chosen(args: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    """The sides in the order they alternate, and the package copy (src folder) of each side
    that runs one other than the installed package."""
    sides = args.sides.split(",") if args.sides else ["stock", "after"]
    if args.before and not args.sides:
        sides = ["stock", "before", "after"]
    sources = dict(item.split("=", 1) for item in args.src)
    if args.before:
        sources["before"] = args.before
    return sides, sources


def pythonpath(src: str, path: str) -> str:
    """``path`` with the package copy at ``src`` (and its pydevd plugin folder) first."""
    extra = [src, os.path.join(src, "tf_debug_repr", "_pydevd_namespace")]
    return os.pathsep.join([*extra, path]).rstrip(os.pathsep)
