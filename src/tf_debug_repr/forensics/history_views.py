"""How a value's history is seen: a sparkline on its summary line (three entries on), a
``history`` row (a table: stop, step, epoch, figures) whose expression is
``tf_debug_repr.history(value)``, and that object's ``to_csv``/``to_npz`` exports.
The record itself is ``history.py``."""

from __future__ import annotations

import csv
import functools
import math
from typing import Any

from ..core import formatting as fmt
from ..core.tf_types import Kind, kind_of
from ..core.view_model import Child, Node, Note, call, lazy
from ..views.dispatch import Changes
from . import change_views, history

NAME = "history"
EXPRESSION = "__import__('tf_debug_repr').history({})"
# A watched tensor's row: the watch expression's record by its key (file, function,
# expression), never the expression evaluated again (another tensor, another record).
WATCH_EXPRESSION = "__import__('tf_debug_repr').history(watch=({}, {}, {}))"
FIGURES = ("min", "max", "mean", "std", "norm", "nan", "inf")
COLUMNS = ("stop", "step", "epoch", "batch", *FIGURES, "grad_norm", "size", "sampled")
SPARK = "▁▂▃▄▅▆▇█"
SPARK_POINTS = 16
_LISTED = 200


def sparkline(values: list[float | None]) -> str:
    """``▁▃▅█`` of the finite values (one character each, the last ``SPARK_POINTS``);
    a missing or non-finite value is a space."""
    values = values[-SPARK_POINTS:]
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return ""
    lo, hi = min(finite), max(finite)
    span = hi - lo
    out = []
    for v in values:
        if v is None or not math.isfinite(v):
            out.append(" ")
        elif span == 0:
            out.append(SPARK[len(SPARK) // 2])
        else:
            out.append(SPARK[min(len(SPARK) - 1, int((v - lo) / span * len(SPARK)))])
    return "".join(out)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _label(entry: history.Entry) -> str:
    parts = [f"stop {entry.stop}"]
    if entry.epoch is not None:
        parts.append(f"epoch {entry.epoch}")
    if entry.batch is not None:
        parts.append(f"batch {entry.batch}")
    if entry.step is not None:
        parts.append(f"step {entry.step}")
    return " · ".join(parts)


def _number(value: float | None) -> str:
    return "–" if value is None else fmt.number(value)


def entry_text(entry: history.Entry) -> str:
    text = (
        f"min={_number(entry.min)} max={_number(entry.max)} mean={_number(entry.mean)} "
        f"std={_number(entry.std)} ‖·‖={_number(entry.norm)}"
    )
    if entry.nan or entry.inf:
        text += f" {fmt.WARNING}NaN={entry.nan} Inf={entry.inf}"
    if entry.grad_norm is not None:
        text += f" ∇‖g‖={fmt.number(entry.grad_norm)}"
    if entry.sampled:
        text += " (sampled)"
    if entry.note:
        text += f" ({entry.note})"
    return text


class EntryNode(Node):
    """One stop of a value's history."""

    def __init__(self, entry: history.Entry) -> None:
        self.entry = entry

    def summary(self) -> str:
        return f"{_label(self.entry)}: {entry_text(self.entry)}"

    def children(self) -> list[Child]:
        e = self.entry
        rows = [Child(column, getattr(e, column), f".entry.{column}") for column in COLUMNS]
        if e.copy is not None:
            rows.append(
                Child(
                    f"copy ({e.copy.size} block means of {e.block})",
                    e.copy,
                    ".entry.copy",
                )
            )
        return rows


class GradientNorms(Node):
    """The compiled steps' gradient norms of a weight, on the steps' axis:
    ``tf_debug_repr.history(value).gradient_norms()`` (the pairs themselves:
    ``.gradient_series``)."""

    def __init__(self, series: list[tuple[int, float | None]]) -> None:
        self.series = series

    def summary(self) -> str:
        shown = ", ".join(f"{s}: {_number(n)}" for s, n in self.series[-_NORMS_SHOWN:])
        return shown if len(self.series) <= _NORMS_SHOWN else f"…, {shown}"

    def children(self) -> list[Child]:
        return [Child(f"step {s}", n, f".series[{i}][1]") for i, (s, n) in enumerate(self.series)][
            -_LISTED:
        ]


# The last gradient norms a history's row lists in its summary (the ring's last steps).
_NORMS_SHOWN = 8


class History(Node):
    """A value's history: ``tf_debug_repr.history(value)``. Rows, oldest first; each
    entry's figures as attributes (``.entries``); ``series("norm")``; exports."""

    def __init__(self, name: str, record: history.Record | None) -> None:
        self.name = name
        self.entries: list[history.Entry] = [] if record is None else list(record.entries)
        self.shape = () if record is None else record.shape
        self.dtype = "" if record is None else record.dtype
        self.gradient_series = [] if record is None else list(record.gradient_series)

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, index: int) -> history.Entry:
        return self.entries[index]

    def entry(self, index: int) -> EntryNode:
        return EntryNode(self.entries[index])

    def series(self, figure: str) -> list[float | None]:
        return [e.figure(figure) for e in self.entries]

    def axis(self) -> tuple[str, list[int]]:
        """What the entries are counted by: optimizer steps where every entry has one,
        else epochs, else stops."""
        for name in ("step", "epoch"):
            values = [getattr(e, name) for e in self.entries]
            if values and all(v is not None for v in values):
                return name, values
        return "stop", [e.stop for e in self.entries]

    def summary(self) -> str:
        if not self.entries:
            return f"no history of {self.name} yet: kept from the next stop on"
        axis, values = self.axis()
        span = f"{axis} {values[0]}…{values[-1]}" if len(values) > 1 else f"{axis} {values[0]}"
        spark = sparkline(self.series("norm"))
        text = f"{len(self.entries)} stops ({span}), ‖·‖ {spark}" if spark else ""
        return text or f"{len(self.entries)} stops ({span})"

    def children(self) -> list[Child]:
        rows = [
            Child(_label(e), EntryNode(e), call(f"{{}}.entry({i})"))
            for i, e in enumerate(self.entries)
        ][-_LISTED:]
        if len(self.entries) >= 2:
            a, b = self.entries[0].stop, self.entries[-1].stop
            rows.append(
                lazy(
                    f"compare stop {a} → {b}",
                    lambda: self.compare(a, b),
                    call(f"{{}}.compare({a}, {b})"),
                )
            )
        if self.gradient_series:
            rows.append(
                Child(
                    f"∇‖g‖ by step ({len(self.gradient_series)})",
                    self.gradient_norms(),
                    call("{}.gradient_norms()"),
                )
            )
        return rows

    def gradient_norms(self) -> GradientNorms:
        """The gradient-norm ring of the compiled steps, as its row shows it."""
        return GradientNorms(self.gradient_series)

    def rows(self) -> list[dict[str, Any]]:
        return [{c: getattr(e, c) for c in COLUMNS} for e in self.entries]

    def to_csv(self, path: str) -> str:
        """A header row, then one row per stop (``COLUMNS``); an empty cell where a
        figure or label is unknown. Returns what was written."""
        with open(path, "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out)
            writer.writerow(COLUMNS)
            for row in self.rows():
                writer.writerow([_cell(row[c]) for c in COLUMNS])
        return f"wrote {len(self.entries)} rows of {self.name}'s history to {path}"

    def to_npz(self, path: str) -> str:
        """One array per column (NaN where unknown), the gradient-norm ring on the same
        step axis (``grad_step``, ``grad_norm_ring``), and the downsampled copies
        (``copies``, rows of NaN where a copy was dropped)."""
        import numpy as np

        arrays: dict[str, Any] = {}
        for column in COLUMNS:
            values = [getattr(e, column) for e in self.entries]
            arrays[column] = np.array(
                [math.nan if v is None else float(v) for v in values], dtype=np.float64
            )
        width = max((e.copy.size for e in self.entries if e.copy is not None), default=0)
        copies = np.full((len(self.entries), width), np.nan, dtype=np.float32)
        for i, e in enumerate(self.entries):
            if e.copy is not None and e.copy.size == width:
                copies[i] = e.copy
        arrays["copies"] = copies
        arrays["grad_step"] = np.array([s for s, _ in self.gradient_series], dtype=np.int64)
        arrays["grad_norm_ring"] = np.array(
            [math.nan if n is None else n for _, n in self.gradient_series], dtype=np.float64
        )
        arrays["name"] = np.array(self.name)
        np.savez(path, **arrays)
        return f"wrote {len(self.entries)} stops of {self.name}'s history to {path}"

    def compare(self, a: int, b: int) -> Compare:
        """Stop ``a`` against stop ``b``: the difference of their downsampled copies (the
        value itself, in its shape, where it has at most ``COPY_ELEMENTS`` elements; block
        means of the flattened value past that) and of their figures."""
        found = {e.stop: e for e in self.entries}
        missing = [s for s in (a, b) if s not in found]
        if missing:
            kept = ", ".join(str(e.stop) for e in self.entries) or "none"
            raise KeyError(f"no entry for stop {missing[0]} (stops kept: {kept})")
        return Compare(self.name, found[a], found[b], self.shape)

    def __repr__(self) -> str:
        return f"<history of {self.name}: {self.summary()}>"


class Compare(Node):
    """Two stops of a value's history: ``difference`` (b − a) and the figures' changes."""

    def __init__(
        self, name: str, a: history.Entry, b: history.Entry, shape: tuple[int, ...]
    ) -> None:
        self.name, self.a, self.b = name, a, b
        self.difference: Any = None
        self.exact = False
        self.note = ""
        if a.copy is None or b.copy is None:
            self.note = "no copy kept for one of the stops (history budget)"
        elif a.copy.shape != b.copy.shape or a.block != b.block:
            self.note = "the value's size changed between the stops"
        else:
            import numpy as np

            difference = b.copy.astype(np.float64) - a.copy.astype(np.float64)
            self.exact = a.block == 1
            if self.exact and int(np.prod(shape)) == difference.size:
                difference = difference.reshape(shape)
            self.difference = difference

    @property
    def norm(self) -> float | None:
        """‖b − a‖₂ of the copies (exact where the copies are the value itself)."""
        if self.difference is None:
            return None
        import numpy as np

        finite = self.difference[np.isfinite(self.difference)]
        return float(np.sqrt(np.sum(finite * finite)))

    @property
    def largest(self) -> float | None:
        if self.difference is None or not self.difference.size:
            return None
        import numpy as np

        return float(np.nanmax(np.abs(self.difference)))

    def change(self, figure: str) -> float | None:
        before, after = self.a.figure(figure), self.b.figure(figure)
        return None if before is None or after is None else after - before

    def summary(self) -> str:
        head = f"stop {self.a.stop} → {self.b.stop}"
        if self.difference is None:
            return f"{head}: {self.note}"
        of = "" if self.exact else f" (block means of {self.a.block})"
        return (
            f"{head}: ‖Δ‖={_number(self.norm)}, max |Δ|={_number(self.largest)}{of}, "
            f"Δmean={_number(self.change('mean'))}, Δstd={_number(self.change('std'))}"
        )

    def children(self) -> list[Child]:
        rows = []
        if self.difference is not None:
            rows.append(Child("difference", self.difference, ".difference"))
            rows.append(Child("‖Δ‖", self.norm, ".norm"))
            rows.append(Child("max |Δ|", self.largest, ".largest"))
        for figure in ("min", "max", "mean", "std", "norm", "nan", "inf"):
            rows.append(Child(f"Δ{figure}", self.change(figure), f".change({figure!r})"))
        if self.note:
            rows.append(Child("note", Note(self.note)))
        return rows


def _tracked_kind(kind: Kind | None) -> bool:
    return kind in (Kind.VARIABLE, Kind.KERAS_VARIABLE)


def _watched(kind: Kind | None) -> bool:
    """A tensor kind tracked by the watch expression that gave it."""
    return change_views.tracked_as(kind) is Changes.WATCHED


def _watched_record(obj: Any, looked: bool, remembered_first: bool) -> history.Record | None:
    key = change_views.watch_key(obj, remembered_first=remembered_first)
    if key is None:
        return None
    return history.observe_watched(key, obj, looked)


def watch_expression(key: tuple) -> str | None:
    """The public call that gives the history of the watch expression ``key``."""
    return change_views.watch_call(WATCH_EXPRESSION, key)


def watched_history(watch: Any) -> History:
    """The history of a watch expression's tensors by its key, ``(file, function,
    expression)``, as its ``history`` row names it."""
    key = change_views.key_of_watch(watch)
    if key is None:
        return History("a watch key (history(watch=(file, function, expression)))", None)
    record = history.watched_record(key)
    if record is None:
        return History(f"the watch expression {key[3]!r}", None)
    return History(record.name, record)


def history_of(value: Any, watch: Any = None) -> History:
    """The public entry: the value's history up to this stop (recording this stop, and
    tracking the value from now on): a variable's, or a watch expression's tensors'
    (``watch``: that expression's key, as its ``history`` row gives it)."""
    if watch is not None:
        return watched_history(watch)
    kind = kind_of(value)
    if _watched(kind):
        record = _watched_record(value, looked=True, remembered_first=True)
    else:
        record = history.observe(value, looked=True)
        if record is None:
            record = history.record_of(value)
    if record is None and not _tracked_kind(kind):
        found = History(type(value).__name__, None)
        found.name = (
            f"a {type(value).__name__} (history is kept for variables and for tensors "
            "a Watch expression gives)"
        )
        return found
    name = record.name if record is not None else type(value).__name__
    return History(name, record)


# --------------------------------------------------------------------------- additions


def history_mark(obj: Any, kind: Kind | None) -> str:
    """``‖·‖▁▃▅█`` on a tracked variable's (or watched tensor's) summary line from three
    entries on."""
    if not history.tracking():
        return ""
    if _watched(kind):
        record = _watched_record(obj, looked=False, remembered_first=False)
    elif _tracked_kind(kind):
        record = history.observe(obj, looked=False)
    else:
        return ""
    if record is None or len(record.entries) < 3:
        return ""
    spark = sparkline([e.norm for e in record.entries])
    return f"‖·‖{spark}" if spark else ""


def history_children(obj: Any, kind: Kind | None) -> list[Child]:
    """Expanding a variable is looking at it: tracked from now on; its ``history`` row
    shows from two entries on. A watched tensor's row (it is a new tensor at each stop)
    names its watch expression's record by its key, ``history(watch=(file, function,
    expression))``: the expression evaluated again would give another tensor, and under
    another expression another record."""
    if _tracked_kind(kind):
        record = history.observe(obj, looked=True)
        expression = call(EXPRESSION)
    elif _watched(kind) and history.tracking():
        key = change_views.watch_key(obj, remembered_first=True)
        record = None if key is None else history.observe_watched(key, obj, looked=False)
        text = None if key is None else watch_expression(key)
        if text is None:
            return []
        expression = functools.partial(_fixed, text)  # the key, not the parent's expression
    else:
        return []
    if record is None or len(record.entries) < 2:
        return []
    return [Child(NAME, History(record.name, record), expression)]


def _fixed(text: str, _parent: str) -> str:
    return text


def looked_at(obj: Any) -> None:
    """Watched or hovered: a variable, or the expression that gave a tensor, is kept."""
    kind = kind_of(obj)
    if _tracked_kind(kind):
        history.observe(obj, looked=True)
    elif _watched(kind):
        _watched_record(obj, looked=True, remembered_first=False)
