"""Command line: ``python -m tf_debug_repr demo [--compare]``."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m tf_debug_repr demo [--compare] [--program PATH] [--watch EXPR]")
        print(
            "  demo   start a real debugpy session on a TensorFlow program and print its Variables pane"
        )
        return 0 if argv else 2
    if argv[0] == "demo":
        from .hosts.demo.runner import main as demo_main

        return demo_main(argv[1:])
    print(f"unknown command {argv[0]!r}; try: python -m tf_debug_repr demo", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
