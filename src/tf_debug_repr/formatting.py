"""How numbers, shapes, devices and summary lines are written, in one place.

Everything here returns plain text: VS Code's panes show ANSI colour codes as
garbage, and render only the first 1,024 characters of a value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .stats import Stats

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


def shape_text(shape: Any) -> str:
    """``[2, 3]`` for known shapes, ``[None, 3]`` for partly known, ``[?]`` for unknown rank."""
    try:
        dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
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


def stats_text(stats: Stats) -> str:
    """``n=6 x∈[-1, 2.5] μ=0.3333 σ=1.118`` (``≈`` marks figures from a sample)."""
    if stats.size == 0:
        return "empty"
    parts = [f"n={count(stats.size)}"]
    approx_m = "≈" if stats.moments_sample is not None else "="
    if stats.category == "bool" and stats.true_count is not None:
        share = stats.true_count / stats.size
        parts.append(
            f"True×{'~' if stats.extremes_sampled else ''}{count(stats.true_count)} ({share:.0%})"
        )
        return " ".join(parts)
    if stats.min is not None and stats.max is not None:
        symbol = "|z|∈" if stats.category == "complex" else "x∈"
        approx_e = "~" if stats.extremes_sampled else ""
        parts.append(f"{symbol}{approx_e}[{number(stats.min)}, {number(stats.max)}]")
    elif stats.category in ("float", "complex"):
        parts.append("no finite values")
    if stats.mean is not None:
        parts.append(f"μ{approx_m}{number(stats.mean)}")
    if stats.std is not None:
        parts.append(f"σ{approx_m}{number(stats.std)}")
    return " ".join(parts)


def inline_values(array: np.ndarray, max_chars: int = 120) -> str:
    """numpy-style values on one line, e.g. ``[[1, 2], [3, 4]]``; cut with … when long."""
    text = np.array2string(
        np.asarray(array),
        separator=", ",
        precision=4,
        threshold=INLINE_ELEMENTS,
        edgeitems=3,
        max_line_width=10_000,
        formatter=array_formatter(array),
    )
    text = " ".join(text.split())
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def array_formatter(array: Any) -> dict | None:
    dtype = getattr(array, "dtype", None)
    if dtype is not None and dtype.kind in "SO":
        return {"all": lambda v: repr(v)}
    if dtype is not None and dtype.kind == "V":  # bfloat16 and friends: numpy can't print them well
        return {"all": lambda v: number(float(v))}
    return None


def clip(text: str, limit: int = MAX_SUMMARY_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def join(parts: Iterable[str]) -> str:
    return " ".join(p for p in parts if p)


def sparkline(values: Sequence[float]) -> str:
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
