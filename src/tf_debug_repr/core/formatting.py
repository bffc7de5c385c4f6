"""How numbers, shapes, devices and summary lines are written, in one place.

Everything here returns plain text: VS Code's panes show ANSI colour codes as
garbage, and render only the first 1,024 characters of a value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .stats import Stats
from .tensor_like import ShapeLike

MAX_SUMMARY_CHARS = 300
# Tensors with at most this many elements show their values inline.
INLINE_ELEMENTS = 10
WARNING = "‼"
SPARK_BARS = "▁▂▃▄▅▆▇█"


def number(value: Any, digits: int = 4) -> str:
    """A short, exact-looking number: ints whole, floats to ``digits`` significant digits."""
    if value is None:
        return "?"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, complex):
        return f"{number(value.real, digits)}{'+' if value.imag >= 0 else '-'}{number(abs(value.imag), digits)}j"
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0"
    text = f"{value:.{digits}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def count(n: int) -> str:
    return f"{n:,}"


def shape_text(shape: ShapeLike | Iterable[int | None]) -> str:
    """``[2, 3]`` for known shapes, ``[None, 3]`` for partly known, ``[?]`` for unknown rank."""
    try:
        as_list = getattr(shape, "as_list", None)
        dims = as_list() if as_list is not None else list(shape)  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return "[?]"
    return "[" + ", ".join("None" if d is None else str(d) for d in dims) + "]"


def device_text(device: str | None) -> str:
    """'/job:localhost/replica:0/task:0/device:GPU:0' -> 'GPU:0' (keeps job/task when remote)."""
    if not device:
        return ""
    parts = dict(p.split(":", 1) for p in device.strip("/").split("/") if ":" in p)
    name = device.rsplit("device:", 1)[-1] if "device:" in device else device
    job = parts.get("job")
    if job and job != "localhost":
        return f"{job}:{parts.get('task', '0')}/{name}"
    return name


def bad_values_text(stats: Stats) -> str:
    """The warning that must stand out, e.g. ``‼ NaN×3 +Inf×1``; empty when clean."""
    if not stats.bad:
        return ""
    parts = []
    for label, n in (("NaN", stats.nan), ("+Inf", stats.posinf), ("-Inf", stats.neginf)):
        if n:
            parts.append(f"{label}×{'~' if stats.extremes_sampled else ''}{count(n)}")
    return f"{WARNING} " + " ".join(parts)


def figures(stats: Stats) -> tuple[str, str, str]:
    """The figures of a summary line, most telling first: (range or True count, mean,
    std); empty strings where a figure does not apply."""
    approx_m = "≈" if stats.moments_sample is not None else "="
    if stats.category == "bool" and stats.true_count is not None:
        share = stats.true_count / stats.size if stats.size else 0.0
        sampled = "~" if stats.extremes_sampled else ""
        return f"True×{sampled}{count(stats.true_count)} ({share:.0%})", "", ""
    span = ""
    if stats.min is not None and stats.max is not None:
        symbol = "|z|∈" if stats.category == "complex" else "x∈"
        approx_e = "~" if stats.extremes_sampled else ""
        span = f"{symbol}{approx_e}[{number(stats.min)}, {number(stats.max)}]"
    elif stats.category in ("float", "complex"):
        span = "no finite values"
    mean = f"μ{approx_m}{number(stats.mean)}" if stats.mean is not None else ""
    std = f"σ{approx_m}{number(stats.std)}" if stats.std is not None else ""
    return span, mean, std


def stats_text(stats: Stats) -> str:
    """``n=6 x∈[-1, 2.5] μ=0.3333 σ=1.118`` (``≈`` marks figures from a sample)."""
    if stats.size == 0:
        return "empty"
    return join([f"n={count(stats.size)}", *figures(stats)])


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``153rd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def inline_values(array: np.ndarray, max_chars: int = 120) -> str:
    """numpy-style values on one line, e.g. ``[[1, 2], [3, 4]]``; cut with … when long."""
    text = np.array2string(
        np.asarray(array),
        separator=", ",
        precision=4,
        threshold=INLINE_ELEMENTS,
        edgeitems=3,
        max_line_width=10_000,
        formatter=array_formatter(array, max_chars),
    )
    text = " ".join(text.split())
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def array_formatter(array: Any, max_chars: int | None = None) -> Any:
    """numpy print options for dtypes numpy prints badly; ``max_chars`` cuts each string
    element (a megabyte string must not fill the Debug Console). A ``formatter`` dict or
    None (typed ``Any``: numpy types it with a private ``TypedDict``)."""
    dtype = getattr(array, "dtype", None)
    if dtype is not None and dtype.kind in "SO":
        if max_chars is None:
            return {"all": lambda v: repr(v)}
        # Cut before the repr: a megabyte string is never repr'd whole.
        return {"all": lambda v: _cut(repr(_head(v, max_chars + 1)), max_chars)}
    if dtype is not None and dtype.kind == "V":  # bfloat16 and friends: numpy can't print them well
        return {"all": lambda v: number(float(v))}
    return None


def _head(value: Any, limit: int) -> Any:
    return value[:limit] if isinstance(value, (bytes, str)) else value


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clip(text: str, limit: int = MAX_SUMMARY_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def join(parts: Iterable[str]) -> str:
    return " ".join(p for p in parts if p)


# Priorities of the parts of a summary line: a part of a higher number is dropped before
# any part of a lower one when the line is too long; KEEP parts are never dropped.
KEEP, FIGURES, MOMENTS, FACTS, VALUES = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class Part:
    """One piece of a summary line. ``shrink``: may be cut short (a long name) rather
    than the line losing a KEEP part."""

    text: str
    priority: int = KEEP
    shrink: bool = False


def render(parts: Sequence[Part], limit: int = MAX_SUMMARY_CHARS, reserve: int = 40) -> str:
    """Parts joined in order, within ``limit`` characters. When too long: inline values
    go first, then long names are shortened (to ``NAME_FLOOR``, leaving ``reserve``
    characters for marks added later by ``with_marks``), then facts, moments and figures
    go, then names shrink further; KEEP parts (``‼`` flags, the ``∇`` mark) stay."""
    kept = [_spaced(p) for p in parts]
    kept = [p for p in kept if p.text]
    if _length(kept) <= limit - reserve:  # most lines: nothing to drop or shrink
        return clip(join(p.text for p in kept), limit)
    _drop(kept, limit, VALUES)
    # A long name leaves room for a mark added later (``with_marks``), so that the mark
    # does not cost the line its range.
    _shrink(kept, limit - reserve, NAME_FLOOR)
    _drop(kept, limit, FIGURES)
    _shrink(kept, limit, 8)
    return clip(join(p.text for p in kept), limit)


NAME_FLOOR = 60  # a long name is cut to this before any figure is dropped


def _spaced(part: Part) -> Part:
    """``part`` with its runs of whitespace made one space (the part itself where they are
    already: a frozen dataclass costs ~1 µs to make, and a line has ~10 parts)."""
    text = " ".join(part.text.split())
    return part if text == part.text else Part(text, part.priority, part.shrink)


def _length(parts: Sequence[Part]) -> int:
    return sum(len(p.text) for p in parts) + max(0, len(parts) - 1)


def _drop(parts: list[Part], limit: int, down_to: int) -> None:
    """Drop whole parts of priority >= ``down_to``, least telling (then last) first."""
    while _length(parts) > limit:
        candidates = [i for i, p in enumerate(parts) if p.priority >= down_to]
        if not candidates:
            return
        worst = max(parts[i].priority for i in candidates)
        del parts[max(i for i in candidates if parts[i].priority == worst)]


def _shrink(parts: list[Part], limit: int, floor: int) -> None:
    """Cut shrinkable parts (longest first) to no less than ``floor`` characters."""
    for i in sorted(range(len(parts)), key=lambda i: -len(parts[i].text)):
        excess = _length(parts) - limit
        part = parts[i]
        if excess <= 0:
            return
        if not part.shrink or len(part.text) <= floor:
            continue
        keep = max(floor - 1, len(part.text) - excess - 1)
        parts[i] = Part(part.text[:keep] + "…", part.priority, part.shrink)


def with_marks(line: str, marks: Sequence[str], limit: int = MAX_SUMMARY_CHARS) -> str:
    """A rendered summary line plus marks added by other features (``∇‖g‖=0.29@step 1``):
    the marks are kept whole, the line's tail (its least telling parts) makes room."""
    shown = [m for m in marks if m]
    if not shown:
        return clip(line, limit)
    return render([Part(line, KEEP, shrink=True), *(Part(m[:80]) for m in shown)], limit, 0)


def sparkline(values: Sequence[float | None]) -> str:
    """▁▂▄█ bars for a short history; ``!`` marks a NaN or Inf entry."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return "!" * len(values)
    lo, hi = min(finite), max(finite)
    span = hi - lo
    bars = []
    for v in values:
        if v is None or not math.isfinite(v):
            bars.append("!")
        elif span == 0:
            bars.append(SPARK_BARS[len(SPARK_BARS) // 2])
        else:
            bars.append(
                SPARK_BARS[min(len(SPARK_BARS) - 1, int((v - lo) / span * len(SPARK_BARS)))]
            )
    return "".join(bars)


def bytes_text(n: float) -> str:
    """``512 B``, ``4.0 KiB``, ``1.25 GiB``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{int(n)} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1024
    return f"{n} B"  # unreachable


# A summary line names a value's byte size from this size up (where memory goes); below
# it the shape says enough and the characters are better spent on figures.
BIG_BYTES = 1 << 20


def big_bytes_text(n: int) -> str:
    """``3.81 MiB`` for ``n`` of at least ``BIG_BYTES``, else empty."""
    return bytes_text(n) if n >= BIG_BYTES else ""


def counted(count: int, noun: str) -> str:
    """``1 layer``, ``5 layers``: a count and its noun (a plural in s)."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")
