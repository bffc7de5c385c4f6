"""Print (or ``--write`` into docs/architecture.md) the package's rooms, their floors and the
import arrows between them, read from the code's imports by the layer test
(tests/unit/test_layers.py, which also checks that the document shows them as they are)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.unit.test_layers import (  # noqa: E402
    ARCHITECTURE,
    ROOMS_BEGIN,
    ROOMS_END,
    rooms_markdown,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="replace the block in the doc")
    args = parser.parse_args()
    block = rooms_markdown()
    if not args.write:
        print(block, end="")
        return 0
    text = ARCHITECTURE.read_text(encoding="utf-8")
    if ROOMS_BEGIN not in text or ROOMS_END not in text:
        print(f"{ARCHITECTURE}: no {ROOMS_BEGIN} ... {ROOMS_END} block", file=sys.stderr)
        return 1
    head, rest = text.split(ROOMS_BEGIN, 1)
    tail = rest.split(ROOMS_END, 1)[1]
    ARCHITECTURE.write_text(f"{head}{ROOMS_BEGIN}\n{block}{ROOMS_END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
