"""The tensor viewer walked as a user walks it: every row of a walk that the extension
offers "View Tensor" on, fetched with exactly the expression the extension builds
(DAP ``evaluate``, ``context: "clipboard"``), decoded as the extension decodes it, and
checked against the row and against the payload contract (docs/tensor-viewer.md).

Which rows are tagged is read from the viewer contract (``viewer/types.js`` reads the same); the
expression is a Python copy of ``viewer/expression.js``'s, which
``tests/unit/test_viewer_walk.py`` holds to node's answers.
"""

from __future__ import annotations

import base64
import math
import re
from pathlib import Path
from typing import Any

from tf_debug_repr.hosts.demo.dap_client import DapError, Variable
from tf_debug_repr.viewer import contract
from tf_debug_repr.viewer.payload import decode

EXTENSION_SRC = Path(__file__).resolve().parents[2] / "vscode-ext" / "src" / "viewer"
BUDGET = 1_000_000  # view_payload's default, which the extension keeps
CELL_BYTES = 5  # float32 value + uint8 mark per cell
PACKAGE = "__import__('tf_debug_repr')"


def viewable_types() -> frozenset[str]:
    """The class names View Tensor is offered on (the viewer contract, which viewer/types.js
    is generated from)."""
    return frozenset(contract.viewable_types())


def ambiguous_types() -> dict[str, re.Pattern]:
    """Type name -> the regex its value must match (the contract's; simple regexes Python
    and JS read the same)."""
    return {
        name: re.compile(entry["value_pattern"])
        for name, entry in contract.contract()["viewable_types"]["ambiguous"].items()
    }


_VIEWABLE = viewable_types()
_AMBIGUOUS = ambiguous_types()
# Type name -> the regex of its rows' values that hold no numbers to draw (not offered).
_NO_NUMBERS = {name: re.compile(p) for name, p in contract.no_numbers_patterns().items()}


def is_tagged(row: Variable) -> bool:
    """viewer/types.js ``menuContextFor``: does the extension offer View Tensor here?"""
    if row.type in _VIEWABLE:
        no_numbers = _NO_NUMBERS.get(row.type)
        return not (no_numbers and no_numbers.search(row.value or ""))
    pattern = _AMBIGUOUS.get(row.type)
    return bool(pattern and pattern.search(row.value or ""))


def _wrap(expression: str) -> str:
    """viewer/expression.js ``wrapExpression``."""
    text = expression.strip()
    return f"({text}\n)" if re.search(r"[#\n\r]", text) else f"({text})"


def _balanced(text: str) -> bool:
    """viewer/expression.js ``balanced``."""
    depth, quote, i = 0, None, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0 and quote is None


_GRADIENT_INFO = re.compile(r"^__import__\((['\"])tf_debug_repr\1\)\.gradient_info\(([\s\S]+)\)$")


def viewable_expression(evaluate_name: str) -> str:
    """viewer/expression.js ``viewableExpression``: the "∇ gradient" row is viewed as the
    gradient tensor (``gradient_of``), every other row as its evaluateName."""
    text = evaluate_name.strip()
    m = _GRADIENT_INFO.match(text)
    return f"{PACKAGE}.gradient_of({m.group(2)})" if m and _balanced(m.group(2)) else text


def payload_expression(expression: str) -> str:
    """viewer/expression.js ``viewPayloadExpression`` with the first request (all None)."""
    return (
        f"{PACKAGE}.view_payload({_wrap(expression)}, axes=None, index=None, region=None, "
        "part=None)"
    )


# --------------------------------------------------------------------------- checks

# What a row shows of its value: ``float32[8, 28, 28, 1]`` (any summary, variable or not).
_DTYPE_SHAPE = re.compile(r"(?<![\w'])([a-z]+[0-9]*(?:_[a-z0-9]+)?)\[([0-9?, None]*)\]")
# Rows whose value has no numbers here: the viewer answers them with an explanation.
_VALUELESS = re.compile(
    r"symbolic|no value yet|uninitiali[sz]ed|\bstring\[|\bresource\[|\bvariant\[|\bempty\b"
    r"|^∇ (no gradient recorded|not available|.* None: |.* values not kept)"
)
# An explanation is a sentence, not an exception's ``TypeError: …`` passed through.
_RAW_EXCEPTION = re.compile(r"^[\w.]*(Error|Exception|Warning)\b|Traceback|<error")


_WRITTEN = re.compile(r"size=(\d+) .*?(\d+) of \1 written")


def valueless(row: Variable) -> bool:
    """Does the row's value hold no numbers to draw (the viewer explains instead)? A
    TensorArray: one being traced, an empty one, or one with unwritten elements."""
    if row.type == "SymbolicTensor" or _VALUELESS.search(row.value or ""):
        return True
    if row.type == "TensorArray":
        m = _WRITTEN.search(row.value or "")
        return not m or m.group(1) != m.group(2) or m.group(1) == "0"
    return False


def set_breakpoints(session: Any, path: str, lines: list[int]) -> None:
    """Keep only the breakpoints at ``lines`` of ``path`` (a user clearing the one looked at)."""
    session.client.request(
        "setBreakpoints",
        {"source": {"path": path}, "breakpoints": [{"line": n} for n in lines]},
    )


def row_dtype_shape(row: Variable) -> tuple[str, list[int | None]] | None:
    """``(dtype, shape)`` as the row's summary writes them, or None when it does not."""
    m = _DTYPE_SHAPE.search(row.value or "")
    if not m:
        return None
    dims = [d.strip() for d in m.group(2).split(",") if d.strip()]
    return m.group(1), [None if d in ("?", "None") else int(d) for d in dims]


def _ground_truth(session: Any, expression: str) -> tuple[str, list[int]] | None:
    """dtype and shape of ``expression`` computed in the frame (rows whose summary does
    not write them: numpy arrays, the gradient row)."""
    try:
        dtype = session.evaluate(
            f"str(getattr(({expression}).dtype, 'name', ({expression}).dtype))"
        )
        shape = session.evaluate(f"[int(d) for d in ({expression}).shape]")
    except DapError:
        return None
    try:
        return dtype["result"].strip("'\""), [int(d) for d in re.findall(r"\d+", shape["result"])]
    except ValueError:
        return None


def check_payload(session: Any, row: Variable, expression: str, p: dict) -> list[str]:
    """What is wrong with payload ``p`` fetched for ``row`` (viewed as ``expression``)."""
    problems = []
    if p.get("version") != 1:
        return [f"version {p.get('version')!r}"]
    error = p.get("error")
    if error is not None:
        if not valueless(row):
            problems.append(f"error on a value that holds numbers: {error!r}")
        elif _RAW_EXCEPTION.search(error) or len(error) < 12:
            problems.append(f"error that is not an explanation: {error!r}")
        return problems
    if row.type == "SymbolicTensor":
        problems.append("a symbolic tensor got a picture")
    if row.type == "TensorArray":  # its elements stacked, computed in the frame
        shown = None
        expression = (
            f"__import__('numpy').stack([e.numpy() for e in ({expression})"
            "._implementation._tensor_array])"
        )
    else:
        shown = row_dtype_shape(row) if row.type != "ndarray" else None
    truth = shown or _ground_truth(session, expression)
    if truth is None:
        problems.append(f"no dtype/shape to compare with (row {row.value[:80]!r})")
    else:
        dtype, shape = truth
        if p["dtype"] != dtype:
            problems.append(f"dtype {p['dtype']!r}, the row says {dtype!r}")
        # Indexed slices, sparse and ragged values draw the values they hold (the summary
        # says which): their shape is not the dense one the row shows.
        if p["kind"] not in ("indexed slices", "sparse tensor", "ragged tensor") and (
            p["shape"] != shape
        ):
            problems.append(f"shape {p['shape']}, the row says {shape}")
    problems += check_figures(p)
    return problems


def check_figures(p: dict) -> list[str]:
    """The payload against itself: counts add up, the slice fits the budget and its
    bytes match its size, its cells lie in the value's range."""
    problems = []
    stats, hist, sl, image = p["stats"], p["histogram"], p["slice"], p["image"]
    n = math.prod(p["shape"])
    if stats["n"] != n:
        problems.append(f"stats n={stats['n']}, shape {p['shape']} holds {n}")
    bad = stats["nan"] + stats["posinf"] + stats["neginf"]
    if hist is None:
        if bad != n and not stats["sampled"]:
            problems.append(f"no histogram, yet {n - bad} finite values")
    else:
        counts = hist["counts"]
        if len(hist["edges"]) != len(counts) + 1:
            problems.append(f"{len(hist['edges'])} edges for {len(counts)} bins")
        if any(c < 0 for c in counts):
            problems.append(f"negative counts {counts}")
        if not hist["sampled"] and not stats["sampled"] and sum(counts) + bad != n:
            problems.append(f"histogram {sum(counts)} + NaN/Inf {bad} != n {n}")
    if sl is None:
        return problems + ["no slice"]
    height, width = sl["height"], sl["width"]
    budget = BUDGET // 2 if image else BUDGET
    if height * width * CELL_BYTES > budget:
        problems.append(f"slice {height}x{width} over the budget {budget}")
    if height > max(sl["rows"], 1) or width > max(sl["cols"], 1):
        problems.append(f"slice {height}x{width} larger than {sl['rows']}x{sl['cols']}")
    if len(base64.b64decode(sl["values"])) != 4 * height * width:
        problems.append("slice values do not hold height*width float32")
    mask = base64.b64decode(sl["mask"])
    if len(mask) != height * width:
        problems.append("slice mask does not hold height*width bytes")
    elif bad == 0 and not stats["sampled"] and any(mask):
        problems.append("NaN/Inf marks in a value that has none")
    low, high = stats["min"], stats["max"]
    if low is not None and not stats["sampled"] and p["part"] is None:
        slack = 1e-6 * max(1.0, abs(low), abs(high))
        if sl["min"] < low - slack or sl["max"] > high + slack:
            problems.append(f"slice range [{sl['min']}, {sl['max']}] outside [{low}, {high}]")
    if image is not None:
        tile_h, tile_w = image["tile"]
        rows = -(-image["count"] // image["columns"])
        size = len(base64.b64decode(image["rgba"]))
        if size != rows * image["columns"] * tile_h * tile_w * 4:
            problems.append(f"image rgba {size} bytes for its grid")
        values = image.get("values")
        if values is not None:
            value_h, value_w = values["tile"]
            held = len(base64.b64decode(values["data"]))
            if held != image["count"] * value_h * value_w * image["channels"] * 4:
                problems.append(f"image values {held} bytes for their tiles")
            size += held
        if size > BUDGET - budget:
            problems.append(f"image {size} bytes over its budget {BUDGET - budget}")
    filters = p.get("filters")
    if filters is not None:
        h, w = filters["tile"]
        cells = filters["in_shown"] * filters["out_shown"] * h * w
        if len(base64.b64decode(filters["values"])) != 4 * cells:
            problems.append("filters values do not hold in*out*h*w float32")
        if cells * CELL_BYTES > BUDGET // 4:
            problems.append(f"filters {cells} weights over their budget {BUDGET // 4}")
    return problems


def fetch(session: Any, expression: str) -> dict | str:
    """The payload the extension gets for ``expression``, or the text it would show."""
    result = session.evaluate(payload_expression(expression), "clipboard")["result"]
    try:
        return decode(result)
    except Exception:  # not a quoted base64 str: the exception's repr (docs §1)
        return result


def check_rows(
    session: Any, rows: list[tuple[str, Variable]], cap: int | None
) -> tuple[int, list[str]]:
    """Fetch and check the payload of each tagged row (``(path, row)``), at most ``cap``
    of them spread over the list; returns (payloads checked, problems)."""
    tagged = [(path, row) for path, row in rows if is_tagged(row) and row.evaluate_name]
    if cap is not None and len(tagged) > cap:
        tagged = spread(tagged, cap)
    problems = []
    for path, row in tagged:
        expression = viewable_expression(row.evaluate_name)
        p = fetch(session, expression)
        if isinstance(p, str):
            problems.append(f"{path}: {expression!r} gives no payload: {p[:200]!r}")
            continue
        problems += [
            f"{path} ({row.type}): {x}" for x in check_payload(session, row, expression, p)
        ]
    return len(tagged), problems


def spread(rows: list[tuple[str, Variable]], cap: int) -> list[tuple[str, Variable]]:
    """``cap`` of ``rows`` (more if there are more types): one of each type first (the
    rarest kinds are the ones to see), then the shallowest rows, in walk order."""
    chosen: dict[int, tuple[str, Variable]] = {}
    seen: set[str] = set()
    for i, (_, row) in enumerate(rows):
        if row.type not in seen:
            seen.add(row.type)
            chosen[i] = rows[i]
    by_depth = sorted(range(len(rows)), key=lambda i: rows[i][0].count("/"))
    for i in by_depth:
        if len(chosen) >= cap:
            break
        chosen.setdefault(i, rows[i])
    return [chosen[i] for i in sorted(chosen)]


# --------------------------------------------------------------------------- by hand


def main(argv: list[str] | None = None) -> int:
    """Walk any program once, as the e2e tests walk theirs: stop at ``--marker`` (a
    comment on the line), expand every local (and ``--globals``) as the tests do, view
    every row the extension tags, print what was viewed and any problem.

        .venv/bin/python -m tests.e2e.viewer_walk PROGRAM.py [--marker BREAKPOINT]
            [--globals model,optimizer] [--stops 2] [--eager]
    """
    import argparse
    import os
    from collections import Counter

    from tests.conftest import start_stopped
    from tests.e2e.test_real_programs import DEPTH, STOCK_TYPES, walk

    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("program")
    parser.add_argument("--marker", default="BREAKPOINT", help="comma-separated: several lines")
    parser.add_argument("--globals", default="", help="names to walk besides the locals")
    parser.add_argument("--stops", type=int, default=1)
    parser.add_argument("--eager", action="store_true", help="TF_DEBUG_REPR_EAGER=1")
    parser.add_argument(
        "--once", action="store_true", help="each marked line stops once (then cleared)"
    )
    args = parser.parse_args(argv)
    env = {"TF_DEBUG_REPR_EAGER": "1"} if args.eager else None
    from tests.conftest import line_of

    path = os.path.abspath(args.program)
    markers = args.marker.split(",")
    lines = [line_of(path, m) for m in markers]
    session = start_stopped(path, markers[0], env, markers)
    failed, at = 0, lines[0]
    try:
        for stop in range(args.stops):
            if stop:
                if args.once:  # a user disabling the breakpoint they have looked at
                    lines.remove(at)
                    set_breakpoints(session, path, lines)
                session.resume_to_next_stop()
            seen: list[tuple[str, Variable]] = []
            walk_problems: list[str] = []
            rows = [v for v in session.locals().values() if v.type not in STOCK_TYPES]
            for name in filter(None, args.globals.split(",")):
                try:
                    answer = session.evaluate(name)
                except DapError:  # not defined yet at this stop
                    continue
                rows.append(
                    Variable(name, answer["result"], "", answer["variablesReference"], name, {})
                )
            for row in rows:
                walk(session, [row], "", DEPTH, walk_problems, seen)
            viewed, problems = check_rows(session, seen, None)
            kinds = Counter(row.type for _, row in seen if is_tagged(row) and row.evaluate_name)
            at = session.client.top_frame(session.thread_id)["line"]
            print(
                f"stop {stop} (line {at}): {len(seen)} rows walked, {viewed} viewed {dict(kinds)}"
            )
            for line in walk_problems + problems:
                print("  ", line)
            failed += len(walk_problems) + len(problems)
    finally:
        session.client.close()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
