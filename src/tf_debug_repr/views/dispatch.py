"""What a value looks like: every per-kind question answered by the catalog's row for it.

``summary``, ``children``, ``console_text``, ``clipboard_text``, ``brief`` and
``container_summary`` are what every front end and every view that shows a value inside
a value uses. Errors propagate from here; the adapter turns them into placeholders.

``tf_types`` says which kind a type is (by class names, without importing TF); the
catalog (``catalog``) holds one ``Row`` per kind and installs it here, once TensorFlow is
imported or at the first question (``wiring``). This module imports no view module.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from itertools import islice
from typing import Any

import numpy as np

from ..core import additions, bounded, wiring
from ..core import formatting as fmt
from ..core.additions import Slot
from ..core.containers import container_kind
from ..core.guards import harmless, remote_device
from ..core.tf_types import kind_of, kind_of_type
from ..core.view_model import Child, Node, Note, error_note, unique_names


class Memory(Enum):
    """What ``memory()`` counts in a value of the kind."""

    TENSOR = "its own elements"
    MODEL = "its weights, and its optimizer's variables"  # a Keras layer or model
    OWNER = "its variables"  # a tf.Module, an optimizer
    REPLICAS = "one component per replica"


class Changes(Enum):
    """How ``Δ since last stop`` tracks a value of the kind."""

    VARIABLE = "the variable itself"
    MODEL = "each of its weights"
    WATCHED = "the watch expression that gave it"  # a tensor is a new object every stop


@dataclass(frozen=True)
class Row:
    """Everything the plugin asks about one kind of value."""

    summary: Callable[[Any], str]
    children: Callable[[Any], list[Child]]
    # The eager tensor whose values the Debug Console and Copy Value print.
    values: Callable[[Any], Any] | None = None
    # How values of this kind print (an eager tensor's row): numpy-style, and bounded.
    console_values: Callable[[Any], str] | None = None
    clipboard_values: Callable[[Any], str] | None = None
    # A few words for the value inside a list; its summary when None.
    brief: Callable[[Any], str] | None = None
    # What the tensor viewer draws (a ``viewer_payload.Source``, or PayloadError) ...
    source: Callable[[Any], Any] | None = None
    # ... or why the kind has no values to draw (symbolic tensors).
    no_values: Callable[[Any], str] | None = None
    notebook: bool = False  # drawn by the notebook's display (``ipython_display``)
    memory: Memory | None = None
    changes: Changes | None = None


_ROWS: dict[Any, Row] = {}
_catalog_in = False


def install_catalog_rows(rows: dict[Any, Row]) -> None:
    """The catalog's rows (``catalog.install``)."""
    global _catalog_in
    _ROWS.update(rows)
    _catalog_in = True


def catalog_installed() -> bool:
    return _catalog_in


def add_row(kind: Any, row: Row) -> None:
    """One more kind beside the catalog's (an extension, a test's)."""
    _ROWS[kind] = row


def remove_row(kind: Any) -> None:
    _ROWS.pop(kind, None)


def table() -> dict[Any, Row]:
    """The rows of every kind; the catalog's are installed at the first question."""
    if not _catalog_in:
        wiring.install_catalog()
    return _ROWS


def row(kind: Any) -> Row | None:
    return None if kind is None else table().get(kind)


def row_of(obj: Any) -> Row | None:
    """The row of a TF value's kind, None for anything else."""
    return row(kind_of(obj))


# --------------------------------------------------------------------------- additions


def marks(obj: Any, kind: Any) -> list[str]:
    """The features' marks for this value's summary line (``∇‖g‖=…``, ``Δ…``)."""
    found = []
    for addition in additions.of(Slot.MARK):
        try:
            text = addition.function(obj, kind)
        except Exception:  # a feature failing must not hide the value
            text = ""
        if text:
            found.append(text)
    return found


def marked(line: str, obj: Any, kind: Any) -> str:
    """The summary line with the features' marks, kept whole; the line's least telling
    tail makes room for them."""
    return fmt.with_marks(line, marks(obj, kind))


def added_children(obj: Any, kind: Any) -> list[Child]:
    """The features' rows for this value (a gradient, a change, memory)."""
    found: list[Child] = []
    for addition in additions.of(Slot.CHILDREN):
        try:
            found.extend(addition.function(obj, kind))
        except Exception as exc:  # one feature failing must not hide the value
            name = getattr(addition.function, "__name__", "extra")
            found.append(Child(name, error_note(exc)))
    return found


def note_looked_at(obj: Any) -> None:
    """Told when the user looks at a value (Watch pane, hover): features that track values."""
    for addition in additions.of(Slot.LOOKED_AT):
        try:
            _read(obj, addition.function, obj)  # a snapshot reads the value
        except Exception:  # a feature failing must not hide the value
            pass


# --------------------------------------------------------------------------- questions


def handles(type_object: type) -> bool:
    """Does the plugin present values of this type? Cheap, never imports TF; pydevd
    caches the answer per type.

    Only once TensorFlow is imported: Keras values can exist without it (Keras on JAX),
    and their views run TF ops."""
    try:
        if issubclass(type_object, Node) or issubclass(type_object, Note):
            return True
    except TypeError:
        return False
    return kind_of_type(type_object) is not None and "tensorflow" in sys.modules


def _read(obj: Any, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, bounded in time when ``obj`` lives on a remote worker (a dead one
    never answers; stock debugpy's repr gives up at once)."""
    device = remote_device(obj)
    return fn(*args) if device is None else bounded.on_device(device, fn, *args)


def summary(obj: Any) -> str:
    """The one-line value shown in the Variables and Watch panes and in hovers."""
    return _read(obj, _summary, obj)


def _summary(obj: Any) -> str:
    if isinstance(obj, Note):
        return str(obj)
    if isinstance(obj, Node):
        return fmt.clip(obj.summary())
    found = row_of(obj)
    return fmt.clip(found.summary(obj) if found is not None else repr(obj))


def children(obj: Any) -> list[Child]:
    """The children shown when the value is expanded, in display order."""
    if isinstance(obj, Node):
        return unique_names(obj.children())
    found = row_of(obj)
    if found is None:
        return []
    device = remote_device(obj)
    if device is None:
        return unique_names(found.children(obj))
    try:
        rows = bounded.on_device(device, found.children, obj)
    except bounded.TimedOut as exc:  # its worker does not answer: say so, and where
        return [Child("value", error_note(exc)), Child("device", Note(device))]
    # each child computed when shown reads the remote value again: bounded the same way
    return unique_names([_on_device(device, row) for row in rows])


def _on_device(device: str, row: Child) -> Child:
    if row.compute is None:
        return row
    return replace(row, compute=lambda: bounded.on_device(device, row.resolve))


def values_of(obj: Any) -> Any:
    """The eager tensor whose values the console and clipboard print, if any."""
    found = row_of(obj)
    return None if found is None or found.values is None else found.values(obj)


def brief(obj: Any) -> str:
    """A few words for a value inside a list: ``float32[4, 8]``, ``Variable 'w' float32[3]``;
    a container holding TF values in brief too (``{'w': float32[3]}``)."""
    return _brief(obj, _NESTING)


def _brief(obj: Any, depth: int) -> str:
    kind = kind_of(obj)
    found = row(kind)
    if found is not None and found.brief is not None:
        return _read(obj, found.brief, obj)
    if kind is not None:
        return summary(obj)
    if container_kind(type(obj)) is not None and depth > 0:
        inner = _container_summary(obj, depth - 1)
        if inner is not None:
            return inner
    try:
        text = bounded.repr_of(obj)  # a class of the program's: its __repr__ is its code
    except bounded.TimedOut:
        return f"{type(obj).__name__} (repr timed out)"
    return text if len(text) <= 60 else text[:59] + "…"


_CONTAINER_ITEMS = 100  # items looked at; a list of tensors shows its first ones
_NESTING = 3  # containers inside containers looked into (a dict of dicts of tensors)
_BRACKETS: dict[type, tuple[str, str]] = {list: ("[", "]"), tuple: ("(", ")"), dict: ("{", "}")}


def _items(obj: Any) -> list:
    if isinstance(obj, dict):
        return list(islice(obj.items(), _CONTAINER_ITEMS))
    return list(islice(obj, _CONTAINER_ITEMS))


def _holds_tf(values: list, depth: int) -> bool:
    for value in values:
        if kind_of(value) is not None:
            return True
        if depth > 0 and container_kind(type(value)) is not None:
            items = _items(value)
            inner = [v for _, v in items] if isinstance(value, dict) else items
            if _holds_tf(inner, depth - 1):
                return True
    return False


def container_summary(obj: Any) -> str | None:
    """``[float32[4, 8], float32[8], …]`` for a list, tuple or dict holding TF values (or a
    tracking container wrapping one: ``core.containers``), also inside containers it holds
    (``{'a': {'w': float32[3]}}``); None for any other container, so that pydevd shows it
    as it always does. (Stock shows each tensor's whole repr there, numpy values and all.)"""
    return _container_summary(obj, _NESTING)


def _container_summary(obj: Any, depth: int) -> str | None:
    items = _items(obj)
    values = [v for _, v in items] if isinstance(obj, dict) else items
    if not _holds_tf(values, depth):
        return None
    parts: list[str] = []
    length = 0
    for item in items:  # enough parts to fill the line; the rest would be clipped anyway
        if length > fmt.MAX_SUMMARY_CHARS:
            parts.append("…")
            break
        if isinstance(obj, dict):
            key, value = item
            part = f"{_brief(key, 0)}: {_brief(value, depth)}"
        else:
            part = _brief(item, depth)
        parts.append(part)
        length += len(part) + 2
    else:
        if len(obj) > len(items):
            parts.append(f"… {fmt.count(len(obj) - len(items))} more")
    kind = container_kind(type(obj)) or list
    opening, closing = _BRACKETS[kind]
    if kind is tuple and len(obj) == 1:
        closing = ",)"
    head = _sequence_head(obj) if depth == _NESTING else ""
    return fmt.clip(head + opening + ", ".join(parts) + closing, fmt.MAX_SUMMARY_CHARS)


_HEADED = 3  # a list or tuple of at least this many tensors starts with their count


def _sequence_head(obj: Any) -> str:
    """``8 tensors, 1.6 MiB: `` before a list or tuple of tensors (or of variables), so that
    a 300 px sidebar shows how many and how big before the first shape; empty for
    anything else. Read from shapes and dtypes only, no values."""
    if isinstance(obj, dict) or len(obj) < _HEADED:
        return ""
    kinds = {kind_of(item) for item in obj}
    names = {"eager tensor": "tensors", "variable": "variables", "keras variable": "variables"}
    nouns = {names.get(str(getattr(k, "value", "")), "") for k in kinds}
    if len(nouns) != 1 or "" in nouns:
        return ""
    total = 0
    for item in obj:
        try:
            dtype = item.dtype
            itemsize = getattr(dtype, "size", None) or np.dtype(str(dtype)).itemsize
            total += math.prod(int(d) for d in item.shape) * int(itemsize)
        except Exception:  # an unknown dtype or shape: the count alone
            return f"{fmt.count(len(obj))} {nouns.pop()}: "
    return f"{fmt.count(len(obj))} {nouns.pop()}, {fmt.bytes_text(total)}: "


def console_text(obj: Any) -> str:
    """Debug Console: the summary line, then the values numpy-style: all of a small
    tensor, numpy's summarised form (corners and ``...``) of a big one."""
    line = summary(obj)
    if isinstance(obj, Node):  # a report of several lines (``memory()``) prints them
        return obj.console_text() if hasattr(obj, "console_text") else line
    printed = _printed(obj)
    if printed is None:
        return line
    tensor, printer = printed
    values = _read(obj, _printed_values, printer.console_values, tensor)
    # One element: the summary line is its value; printed once, not twice.
    return f"{line}\n{values}" if values else line


def clipboard_text(obj: Any) -> str:
    """Copy Value: the actual values as text, bounded for huge tensors."""
    printed = _printed(obj)
    if printed is None:
        return summary(obj)
    tensor, printer = printed
    return _read(obj, _printed_values, printer.clipboard_values, tensor)


def _printed_values(printer: Callable[[Any], str], tensor: Any) -> str:
    with harmless():
        return printer(tensor)


def _printed(obj: Any) -> tuple[Any, Any] | None:
    """The value's values (an eager tensor) and the row that prints them, if any."""
    tensor = _read(obj, values_of, obj)
    printer = row_of(tensor) if tensor is not None else None
    if printer is None or printer.console_values is None or printer.clipboard_values is None:
        return None
    return tensor, printer
