"""The Jupyter display (``%load_ext tf_debug_repr``) built for every TF value a program
holds at its breakpoints, in-process: what a notebook cell showing each value would get.

The program runs under ``sys.settrace``; at each marked line every local (and the items
of lists, tuples and dicts, a model's or layer's weights, an optimizer's variables) whose
class the extension formats is put through a real IPython ``DisplayFormatter`` with the
formatters registered, exactly as a cell's result is. Each must come out with the
plugin's text, and HTML and a PNG (or the payload's explanation) of bounded size; the
builder's steps are also run unguarded so an exception the formatter would swallow
(into the stock repr) is seen.

    .venv/bin/python -m tests.e2e.display_walk PROGRAM.py [--marker A,B] [--stops 2]
        [--save DIR]
"""

from __future__ import annotations

import argparse
import base64
import math
import os
import re
import runpy
import sys
from collections import Counter
from pathlib import Path
from typing import Any

PNG_SIDE = 400  # pixels: the largest picture the display draws is 256 plus its labels
PNG_BYTES = 64 * 1024


def formatted(value: Any) -> bool:
    """Does ``%load_ext tf_debug_repr`` give ``value`` the rich display?"""
    from tf_debug_repr.hosts.notebook import display as ipython_display

    names = set(ipython_display.formatted_types())
    return any((c.__module__, c.__name__) in names for c in type(value).__mro__)


def values_of(name: str, value: Any, depth: int = 2) -> list[tuple[str, Any]]:
    """``(expression, value)`` of what a user could show in a cell starting at ``value``."""
    found: list[tuple[str, Any]] = []
    if formatted(value):
        return [(name, value)]
    if depth == 0:
        return found
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value[:16]):
            found += values_of(f"{name}[{i}]", item, depth - 1)
    elif isinstance(value, dict):
        for key in list(value)[:16]:
            found += values_of(f"{name}[{key!r}]", value[key], depth - 1)
    else:
        for attribute in ("weights", "variables"):
            try:
                items = getattr(value, attribute, None)
            except Exception:
                continue
            if isinstance(items, (list, tuple)) and items:
                found += values_of(f"{name}.{attribute}", list(items), depth)
                break
    return found


def check(expression: str, value: Any, formatter: Any) -> tuple[list[str], dict, bytes | None]:
    """Problems of ``value``'s display, the mime bundle, and its PNG."""
    from tf_debug_repr.hosts.notebook import display as d
    from tf_debug_repr.hosts.notebook import small_values as numbers
    from tf_debug_repr.hosts.notebook.png import png_size

    problems = []
    # unguarded: what the guarded formatters would turn into the stock display
    try:
        d.plain_text(value)
        payload = d.build_payload(value)
        picture = d.picture_html(payload) if not payload.get("error") else None
        d.render_html(payload, picture)
    except Exception as exc:
        return [f"{expression}: raises {type(exc).__name__}: {exc}"], {}, None
    bundle, _ = formatter.format(value)
    plain = bundle.get("text/plain", "")
    html = bundle.get("text/html", "")
    if plain.startswith("<tf.") or plain.startswith("<KerasVariable"):
        problems.append(f"{expression}: text/plain is the stock repr {plain[:80]!r}")
    if "text/html" not in bundle:
        problems.append(f"{expression}: no text/html")
    if "image/png" in bundle:
        problems.append(f"{expression}: the picture stored twice (HTML and image/png)")
    pictures = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    if payload.get("error"):
        if pictures:
            problems.append(f"{expression}: a picture with the explanation {payload['error']!r}")
        return problems, bundle, None
    if not payload.get("shape"):  # a scalar: its number is the summary, nothing to draw
        if pictures:
            problems.append(f"{expression}: a picture of a scalar")
        return problems, bundle, None
    elements = math.prod(payload["shape"])
    if elements <= numbers.MAX_ELEMENTS and "<table" not in html:
        problems.append(f"{expression}: no numbers of a value of {elements} elements")
    if not d.wants_picture(payload, "<table" in html or None):
        return problems, bundle, None
    if picture is None or len(pictures) != 1:
        problems.append(f"{expression}: not one picture of a value that holds numbers")
        return problems, bundle, None
    data = base64.b64decode(pictures[0])
    width, height = png_size(data)
    if width > PNG_SIDE or height > PNG_SIDE or len(data) > PNG_BYTES:
        problems.append(f"{expression}: picture {width}x{height}, {len(data)} bytes")
    return problems, bundle, data


class Walker:
    def __init__(self, path: str, lines: set[int], stops: int, save: str | None, once: bool):
        from IPython.core.interactiveshell import InteractiveShell

        from tf_debug_repr.hosts.notebook import display as ipython_display

        self.path, self.lines, self.stops, self.save = path, lines, stops, save
        self.shell = InteractiveShell.instance()
        ipython_display.register(self.shell)
        self.stop = 0
        self.failed = 0
        self.once = once

    def trace(self, frame, event, arg):
        if frame.f_code.co_filename != self.path:
            return None
        return self.local

    def local(self, frame, event, arg):
        if event == "line" and frame.f_lineno in self.lines and self.stop < self.stops:
            self.walk(frame)
            self.stop += 1
            if self.once:
                self.lines.discard(frame.f_lineno)
        return self.local

    def walk(self, frame) -> None:
        values: list[tuple[str, Any]] = []
        for name, value in list(frame.f_locals.items()):
            if not name.startswith("__"):
                values += values_of(name, value)
        for name in self.globals:
            if name in frame.f_globals and name not in frame.f_locals:
                values += values_of(name, frame.f_globals[name])
        kinds: Counter = Counter()
        pictures = 0
        problems: list[str] = []
        for expression, value in values:
            found, bundle, png = check(expression, value, self.shell.display_formatter)
            problems += found
            kinds[type(value).__name__] += 1
            if png is not None:
                pictures += 1
                if self.save:
                    name = "".join(c if c.isalnum() else "_" for c in expression)[:60]
                    Path(self.save, f"{self.stop}_{name}.png").write_bytes(png)
        print(
            f"stop {self.stop} (line {frame.f_lineno}): {len(values)} values displayed, "
            f"{pictures} pictures {dict(kinds)}"
        )
        for line in problems:
            print("  ", line)
        self.failed += len(problems)


def main(argv: list[str] | None = None) -> int:
    from tests.conftest import line_of

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program")
    parser.add_argument("--marker", default="BREAKPOINT", help="comma-separated")
    parser.add_argument("--stops", type=int, default=1)
    parser.add_argument("--save", help="folder for the PNGs")
    parser.add_argument("--globals", default="", help="names to show besides the locals")
    parser.add_argument("--eager", action="store_true", help="tf.functions run eagerly")
    parser.add_argument("--once", action="store_true", help="each marked line stops once")
    args = parser.parse_args(argv)
    path = os.path.abspath(args.program)
    if args.save:
        os.makedirs(args.save, exist_ok=True)
    lines = {line_of(path, m) for m in args.marker.split(",")}
    walker = Walker(path, lines, args.stops, args.save, args.once)
    walker.globals = [n for n in args.globals.split(",") if n]
    if args.eager:  # what TF_DEBUG_REPR_EAGER=1 does under the debugger
        import tensorflow as tf

        from tf_debug_repr.eager import switch as eager_switch

        os.environ[eager_switch.ENV] = "1"
        eager_switch.apply(tf)
    sys.settrace(walker.trace)
    try:
        runpy.run_path(path, run_name="__main__")
    finally:
        sys.settrace(None)
    print(f"{walker.stop} stops, {walker.failed} problems")
    return 1 if walker.failed or walker.stop < args.stops else 0


if __name__ == "__main__":
    raise SystemExit(main())
