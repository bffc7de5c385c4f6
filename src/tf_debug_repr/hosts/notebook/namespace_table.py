"""``%tf_table``: every TF value in the notebook's namespace, one row each (name, kind, dtype,
shape, device, bytes, range, NaN/Inf, gradient norm, Δ since the previous cell).

Rows come from the names the user defined (IPython's ``who_ls``) and the items of lists,
tuples and dicts of TF values among them (``grads[0]``). Tensors and variables get their
figures from ``core.stats`` (reduced on their device); models, layers and optimizers get
counts read from metadata only (bytes, parameters, their gradients' global norm, optimizer
steps), so a 25M-parameter model costs no reduction. Δ compares with what the previous
table saw under the same name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...core.tf_types import Kind, kind_of
from . import facts

MAX_ROWS = 500  # names beyond this are counted, not listed
MAX_ITEMS = 50  # items of one list of TF values listed
# A model or optimizer with at most this many elements gets its weights' figures (range,
# NaN/Inf, which changed); a bigger one its metadata only (a 25M-parameter model's weights
# are ~100 MB to reduce after every cell).
OWNER_ELEMENTS = 4_000_000
TABLE_KINDS = (*facts.DENSE, *facts.COMPOSITE, Kind.SYMBOLIC, Kind.KERAS_TENSOR, *facts.OWNERS)


@dataclass
class Row:
    name: str
    kind: str
    dtype: str = ""
    shape: str = ""
    device: str = ""
    nbytes: int | None = None
    low: float | None = None
    high: float | None = None
    bad: str = ""  # "NaN×2 +Inf×1", "" when all finite or not applicable
    gradient: float | None = None
    gradient_text: str = ""
    delta: str = ""
    fingerprint: Any = None


# ---------------------------------------------------------------------------- collect


def _values(ns: dict, names: list[str]) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for name in names:
        value = ns.get(name)
        kind = kind_of(value)
        if kind in TABLE_KINDS:
            found.append((name, value))
        elif type(value) in (list, tuple, dict) and value and len(value) <= 10_000:
            items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
            tf_items = [(k, v) for k, v in items[:MAX_ITEMS] if kind_of(v) in TABLE_KINDS]
            if tf_items and len(tf_items) == len(items[:MAX_ITEMS]):
                found += [(f"{name}[{k!r}]", v) for k, v in tf_items]
    return found


def _figures(value: Any, kind: Kind) -> Any:
    """The value's ``Stats`` (None without a dense value)."""
    from ...core import stats

    dense = facts.dense_value(value, kind)
    if dense is None or facts.elements(dense) in (None, 0):
        return None
    return stats.tensor_stats(dense)


def _bad_text(figures: Any) -> str:
    parts = []
    for key, label in (("nan", "NaN"), ("posinf", "+Inf"), ("neginf", "-Inf")):
        n = int(getattr(figures, key, 0) or 0)
        if n:
            parts.append(f"{label}×{n:,}")
    return " ".join(parts)


def _gradient(value: Any, kind: Kind) -> tuple[float | None, str]:
    """(norm, text) of the latest recorded gradient; a model's: the global norm of its
    trainable weights' gradients."""
    import sys

    if "tf_debug_repr.gradients.capture" not in sys.modules:
        return None, ""  # capture never ran: nothing recorded to read
    from ...gradients import capture

    if kind in facts.OWNERS and kind is not Kind.OPTIMIZER:
        try:
            variables = list(getattr(value, "trainable_weights", None) or [])
        except Exception:
            variables = []
    elif kind in (Kind.VARIABLE, Kind.KERAS_VARIABLE, Kind.EAGER):
        variables = [value]
    else:
        return None, ""
    squares, seen, label = 0.0, False, ""
    for var in variables:
        source = capture.record_of(var)
        record = None if source is None else source.latest
        if record is None or not record.has_value or record.norm is None:
            continue
        seen, label = True, label or str(record.label)
        squares += float(record.norm) ** 2
    if not seen:
        return None, ""
    norm = math.sqrt(squares)
    return norm, label


def _owner_figures(found: Row, variables: list[Any]) -> None:
    """A small model's range over all its weights, how many hold NaN/Inf, and each
    weight's figures as its fingerprint (Δ: how many weights changed)."""
    lows: list[Any] = []
    highs: list[Any] = []
    prints: list[tuple | None] = []
    bad = 0
    for var in variables:
        kind = kind_of(var)
        figures = _figures(var, kind) if kind in facts.DENSE else None
        if figures is None:
            prints.append(None)
            continue
        if figures.min is not None:
            lows.append(figures.min)
            highs.append(figures.max)
        bad += 1 if figures.bad else 0
        prints.append((figures.min, figures.max, figures.mean, figures.std, figures.bad))
    if lows:
        found.low, found.high = min(lows), max(highs)
    if bad:
        found.bad = f"in {bad} of {len(variables)} weights"
    found.fingerprint = ("weights", tuple(prints))


def _steps(value: Any, kind: Kind) -> int | None:
    optimizer = value if kind is Kind.OPTIMIZER else getattr(value, "optimizer", None)
    if optimizer is None or kind_of(optimizer) is not Kind.OPTIMIZER:
        return None
    try:
        return int(optimizer.iterations.numpy())
    except Exception:
        return None


def _shape_text(value: Any) -> str:
    from ...core import formatting as fmt

    return fmt.shape_text(value.shape) if hasattr(value, "shape") else ""


def row(name: str, value: Any) -> Row:
    kind = kind_of(value)
    assert kind is not None
    found = Row(name, kind.value, nbytes=facts.value_bytes(value, kind))
    found.device = facts.device(value)
    if kind in facts.OWNERS:
        variables = facts.variables_of(value)
        count = facts.parameters(value)
        if kind in (Kind.OPTIMIZER, Kind.METRIC):
            found.shape = f"{len(variables)} variables"
        else:
            found.shape = f"{count:,} params" if variables else "not built"
        found.device = facts.device(variables[0]) if variables else ""
        found.kind = type(value).__name__  # Sequential, Adam: what the user made
        if variables and count <= OWNER_ELEMENTS:
            _owner_figures(found, variables)
            if kind is Kind.OPTIMIZER:  # a step count and a learning rate: no range
                found.low = found.high = None
        else:
            found.fingerprint = ("steps", _steps(value, kind))
    else:
        found.dtype = facts.dtype_name(value)
        found.shape = _shape_text(value)
        figures = _figures(value, kind) if kind in facts.DENSE else None
        if figures is not None:
            found.low, found.high = figures.min, figures.max
            found.bad = _bad_text(figures)
            found.fingerprint = (
                "figures",
                (figures.min, figures.max, figures.mean, figures.std, figures.bad),
            )
    found.gradient, found.gradient_text = _gradient(value, kind)
    return found


def _failed(name: str, value: Any, exc: Exception) -> Row:
    return Row(name, type(value).__name__, delta=f"failed: {type(exc).__name__}")


# ------------------------------------------------------------------------------ delta


def delta_text(before: tuple[int, Any] | None, now: tuple[int, Any]) -> str:
    """What changed under a name since the previous table: ``new``, ``same``, ``+120
    steps``, ``changed`` (with the mean's change), ``another value``."""
    if before is None:
        return "new"
    (old_id, old), (new_id, current) = before, now
    if old is None or current is None:
        return "same" if old_id == new_id and old == current else "another value"
    if old[0] == "steps" and current[0] == "steps":
        if old[1] is None or current[1] is None:
            return "same" if old_id == new_id else "another value"
        steps = current[1] - old[1]
        return f"+{steps} steps" if steps else "same"
    if old == current:
        return "same"
    if old[0] == current[0] == "weights" and len(old[1]) == len(current[1]):
        changed = sum(a != b for a, b in zip(old[1], current[1], strict=True))
        return f"{changed} of {len(current[1])} weights changed"
    if old[0] == current[0] == "figures":
        mean_before, mean_now = old[1][2], current[1][2]
        if mean_before is not None and mean_now is not None:
            from ...core import formatting as fmt

            return f"changed, Δμ={fmt.number(mean_now - mean_before)}"
    return "changed"


class Table:
    """The rows of one look at the namespace, and the memory of the previous look."""

    def __init__(self) -> None:
        self.previous: dict[str, tuple[int, Any]] = {}

    def look(self, ns: dict, names: list[str]) -> tuple[list[Row], int]:
        """(rows, names left out beyond MAX_ROWS)."""
        values = _values(ns, names)
        rows, seen = [], {}
        for name, value in values[:MAX_ROWS]:
            try:
                found = row(name, value)
            except Exception as exc:  # one row says why; the others stand
                found = _failed(name, value, exc)
            now = (id(value), found.fingerprint)
            found.delta = found.delta or delta_text(self.previous.get(name), now)
            seen[name] = now
            rows.append(found)
        self.previous = seen
        return rows, max(0, len(values) - MAX_ROWS)
