"""``Δ since last stop``: how a variable the user looked at changed since the previous stop.

A variable gets the child once it has been looked at (expanded, watched, hovered, or
its model expanded) at an earlier stop; its summary line gets a short mark. A Keras
model or layer gets one row over its weights, frozen ones (no change over several
stops in a row) first. The figures come from ``snapshots``.
"""

from __future__ import annotations

import functools
import math
import weakref
from typing import Any

from ..core import expressions
from ..core import formatting as fmt
from ..core.tf_types import Kind, kind_of
from ..core.view_model import Child, Node, Note, call
from ..views import dispatch
from ..views import variables as variable_views
from ..views.dispatch import Changes
from . import snapshots

CHANGE = "__import__('tf_debug_repr').change_since_last_stop({})"
# A watched tensor's row: the watch expression's change by its key (file, function,
# expression), never the expression evaluated again (another tensor, and under pydevd's
# evaluation another key: the row's own expression, not the watch's).
WATCH_CHANGE = "__import__('tf_debug_repr').change_since_last_stop(watch=({}, {}, {}))"
NAME = "Δ since last stop"
_LISTED = 100


def _where(where: tuple[int, ...] | None) -> str:
    if where is None:
        return "?"
    return "[" + ", ".join(str(i) for i in where) + "]"


def _steps_text(change: snapshots.Change) -> str:
    if change.steps is None:
        return ""
    what = change.steps_of[:-1] if change.steps == 1 else change.steps_of  # "1 … step"
    return f", {change.steps} {what} between"


def _stops(change: snapshots.Change) -> str:
    return f"stop {change.since_stop} → {change.at_stop}"


def change_text(change: snapshots.Change) -> str:
    if change.note:
        return f"{change.note} ({_stops(change)})"
    if change.changed == 0:
        if change.frozen:
            return (
                f"frozen: unchanged {change.unchanged_stops} stops in a row "
                f"({_stops(change)}{_steps_text(change)})"
            )
        return f"unchanged ({_stops(change)}{_steps_text(change)})"
    share = 100 * change.share_changed
    norm = fmt.number(change.norm) if math.isfinite(change.norm) else str(change.norm)
    largest = (
        f", max |Δ|={fmt.number(change.largest)} at {_where(change.where)}"
        if math.isfinite(change.largest)
        else ""
    )
    return (
        f"‖Δ‖={norm}, {fmt.count(change.changed)} of {fmt.count(change.size)} changed "
        f"({share:.3g}%){largest} ({_stops(change)}{_steps_text(change)})"
    )


class ChangeNode(Node):
    """The change of one variable between two stops."""

    def __init__(self, change: snapshots.Change) -> None:
        self.change = change

    def summary(self) -> str:
        return change_text(self.change)

    def children(self) -> list[Child]:
        c = self.change
        if c.note:  # another shape or dtype: no element-wise figures (they read nan)
            rows = [Child("note", Note(c.note))]
        else:
            rows = [
                Child("‖Δ‖", c.norm, ".change.norm"),
                Child("changed", c.changed, ".change.changed"),
                Child("of", c.size, ".change.size"),
                Child("share changed", c.share_changed, ".change.share_changed"),
                Child("max |Δ|", c.largest, ".change.largest"),
            ]
        if c.where is not None:
            rows.append(Child("at", Note(_where(c.where))))
        rows.append(Child("since stop", c.since_stop, ".change.since_stop"))
        rows.append(Child("at stop", c.at_stop, ".change.at_stop"))
        if c.steps is not None:
            rows.append(Child(f"{c.steps_of} between", c.steps, ".change.steps"))
        if not c.note:
            rows.append(
                Child("unchanged stops in a row", c.unchanged_stops, ".change.unchanged_stops")
            )
        return rows


def _pending(var: Any) -> Note:
    stop = snapshots.snapshot_stop(var)
    return Note(f"snapshot kept at stop {stop}: the change shows at the next stop")


def variable_change(var: Any) -> ChangeNode | None:
    """What the ``Δ since last stop`` row shows for a variable: None until there is a
    change to show (a row on every variable looked at once would be noise)."""
    change = snapshots.change_of(var)
    return None if change is None else ChangeNode(change)


class WeightChanges(Node):
    """A model's or layer's weights, each with its change since the last stop."""

    def __init__(
        self, weights: list[tuple[int, Any, snapshots.Change | None]], untracked: int = 0
    ) -> None:
        self.weights = weights  # (index in .weights, variable, change)
        self.untracked = untracked  # weights with no snapshot (over the budget)

    def _order(self) -> list[tuple[int, Any, snapshots.Change | None]]:
        def key(row: tuple[int, Any, snapshots.Change | None]) -> tuple[int, int]:
            _, _, change = row
            if change is None:
                return (2, row[0])
            return (0 if change.frozen else 1, row[0])

        return sorted(self.weights, key=key)

    def summary(self) -> str:
        changes = [c for _, _, c in self.weights if c is not None]
        if not changes:
            stops = {s for _, v, _ in self.weights if (s := snapshots.snapshot_stop(v)) is not None}
            at = f" at stop {min(stops)}" if stops else ""
            return (
                f"snapshots of {len(self.weights)} weights kept{at}: changes show at the next stop"
            )
        frozen = [c for c in changes if c.frozen]
        moved = [c for c in changes if c.changed]
        squares = sum(c.norm * c.norm for c in moved if math.isfinite(c.norm))
        parts = [
            f"{len(moved)} of {len(self.weights)} weights changed ‖Δ‖={fmt.number(squares**0.5)}"
        ]
        if frozen:
            names = ", ".join(c.name for c in frozen[:3]) + (" …" if len(frozen) > 3 else "")
            parts.insert(0, f"{fmt.WARNING} {len(frozen)} frozen ({names})")
        still = len(changes) - len(moved) - len(frozen)
        if still:
            parts.append(f"{still} unchanged")
        last = changes[0]
        parts.append(_stops(last))
        if self.untracked:
            parts.append(f"{self.untracked} more not tracked (snapshot budget)")
        return ", ".join(parts)

    @staticmethod
    def _value(var: Any, change: snapshots.Change | None) -> Any:
        if change is None:
            return _pending(var)
        if change.frozen:
            return Note(f"{fmt.WARNING} " + change_text(change))
        return ChangeNode(change)

    def row(self, index: int) -> Any:
        """The row of the model's ``weights[index]`` (what its expression evaluates)."""
        for i, var, change in self.weights:
            if i == index:
                return self._value(var, change)
        return None

    def children(self) -> list[Child]:
        rows = []
        for index, var, change in self._order()[:_LISTED]:
            value = self._value(var, change)
            expression = None if isinstance(value, Note) else call(f"{{}}.row({index})")
            rows.append(Child(variable_views.label(var), value, expression))
        return rows


def _weights(layer: Any) -> list:
    try:
        return list(getattr(layer, "weights", None) or [])
    except Exception:
        return []


def weight_changes(layer: Any, looked: bool) -> WeightChanges | None:
    """A model's weights with their changes; None until one of them has a change."""
    weights = _weights(layer)
    if not weights:
        return None
    # Weights with a snapshot first: their changes are computed before new snapshots
    # (weights first looked at now) take the budget. Rows are read after every weight was
    # seen, so that the row's expression, evaluated later at this stop, gives the same.
    # Keras 2's lookup layers list their table's handler among weights: no values to track
    variables = [w for w in weights if hasattr(w, "shape") and hasattr(w, "dtype")]
    from ..gradients import capture as gradient_capture

    with gradient_capture.one_look():  # each weight's steps: the counters read once for all
        # only their changes are shown here: the pass takes no figures (a weight's own
        # row, shown later at this stop, takes them as an untracked value's are)
        snapshots.observe_all(sorted(variables, key=lambda v: not snapshots.tracked(v)), looked)
    rows = []
    for index, var in enumerate(weights):
        if not (hasattr(var, "shape") and hasattr(var, "dtype")):
            continue
        change = snapshots.change_of(var)
        if change is None and not snapshots.tracked(var):
            continue
        rows.append((index, var, change))
    if not any(c is not None for _, _, c in rows):
        return None
    return WeightChanges(rows, untracked=len(variables) - len(rows))


# --------------------------------------------------------------------------- watched tensors
# A tensor is a new object at every stop; a watch (or hover) expression is what stays. It
# is tracked by (file, function, expression), read off pydevd's evaluation on the stack;
# the tensor it gave at this stop is remembered (weakly) so that expanding it finds it.

_watched: dict[int, tuple[weakref.ref, tuple]] = {}
_watched_stop = 0


def _remembered(obj: Any) -> tuple | None:
    found = _watched.get(id(obj))
    return found[1] if found is not None and found[0]() is obj else None


def _watch_key(obj: Any, remembered_first: bool = False) -> tuple | None:
    """The watch expression that gave ``obj`` at this stop: pydevd's evaluation on the
    stack, else the one remembered for this very tensor (an expansion, a later request)."""
    global _watched_stop
    if remembered_first and (key := _remembered(obj)) is not None:
        return key
    evaluated = snapshots.evaluated_expression()
    if evaluated is None:
        return _remembered(obj)
    frame, expression, result = evaluated
    if result is not snapshots.NO_RESULT and result is not obj:
        # A tensor inside what the expression gave (a ``∇ gradient`` watch's summary
        # names its gradient tensor): the expression is not this tensor's, so it must not
        # take over the tracking that the tensor's own watch expression holds.
        return _remembered(obj)
    key = ("watch", frame.f_code.co_filename, frame.f_code.co_name, expression)
    stop = snapshots.current_stop()
    if stop != _watched_stop:
        _watched.clear()
        _watched_stop = stop
    try:
        _watched[id(obj)] = (weakref.ref(obj), key)
    except TypeError:
        pass
    return key


def watch_key(obj: Any, remembered_first: bool = False) -> tuple | None:
    """The watch expression that gave the tensor ``obj`` at this stop, if any (what a
    watched tensor is tracked by; the history of values uses it too)."""
    return _watch_key(obj, remembered_first)


def tensor_change(obj: Any, key: tuple) -> ChangeNode | None:
    """A watched expression's change; nothing before there is one (watching is common,
    a note on every watched tensor would be noise)."""
    change = snapshots.observe_watched(key, obj, looked=False)
    return None if change is None else ChangeNode(change)


def watch_call(template: str, key: tuple) -> str | None:
    """A public call taking a watch expression's key, ``template`` with ``key``'s parts
    (``("watch", file, function, expression)``) as quoted literals; None where one is no
    plain string. The ``Δ since last stop`` and ``history`` rows of a watched tensor."""
    if len(key) != 4 or key[0] != "watch":
        return None
    parts = [expressions.literal(expressions.plain_str(part)) for part in key[1:]]
    if any(part is None for part in parts):
        return None
    return template.format(*parts)


def key_of_watch(watch: Any) -> tuple | None:
    """The key ``("watch", file, function, expression)`` that a public call's ``watch``
    argument, ``(file, function, expression)``, names; None where it is no such triple of
    plain strings."""
    parts = tuple(watch) if isinstance(watch, (tuple, list)) else ()
    plain = [expressions.plain_str(part) for part in parts]
    if len(plain) != 3 or any(part is None for part in plain):
        return None
    return ("watch", *plain)


def watch_change_expression(key: tuple) -> str | None:
    """The public call that gives the change of the watch expression ``key`` at this stop."""
    return watch_call(WATCH_CHANGE, key)


def watched_change(watch: Any) -> Any:
    """A watch expression's change at this stop by its key, ``(file, function,
    expression)``, as its tensor's ``Δ since last stop`` row names it; None where there
    is none (the expression not evaluated at this stop yet, or no earlier snapshot)."""
    key = key_of_watch(watch)
    if key is None:
        return Note("a watch key (change_since_last_stop(watch=(file, function, expression)))")
    change = snapshots.watched_change(key)
    return None if change is None else ChangeNode(change)


def _fixed(text: str, _parent: str) -> str:
    return text


def change_since_last_stop(obj: Any, watch: Any = None) -> Any:
    """The public entry (``tf_debug_repr.change_since_last_stop``): a variable's change,
    a model's weights' changes, or a watched expression's tensor's, at the current stop;
    ``watch=(file, function, expression)``: a Watch expression's, by its key."""
    if watch is not None:
        return watched_change(watch)
    tracked = _tracked(kind_of(obj))
    if tracked is Changes.VARIABLE:
        return variable_change(obj)
    if tracked is Changes.MODEL:
        return weight_changes(obj, looked=False)
    if tracked is Changes.WATCHED:
        key = _watch_key(obj, remembered_first=True)
        return None if key is None else tensor_change(obj, key)
    return None


# --------------------------------------------------------------------------- hooks


def tracked_as(kind: Kind | None) -> Changes | None:
    """How the kind's catalog row says its values are tracked, if at all."""
    return _tracked(kind)


def _tracked(kind: Kind | None) -> Changes | None:
    """How the kind's catalog row says its values are tracked, if at all."""
    row = dispatch.row(kind)
    return None if row is None else row.changes


def change_children(obj: Any, kind: Kind | None) -> list[Child]:
    """Expanding a variable (or a model) is looking at it: it is tracked from now on."""
    tracked = _tracked(kind)
    if tracked is Changes.VARIABLE:
        snapshots.observe(obj, looked=True)
        value = variable_change(obj)
        return [] if value is None else [Child(NAME, value, call(CHANGE))]
    if tracked is Changes.MODEL:
        node = weight_changes(obj, looked=True)
        return [] if node is None else [Child(NAME, node, call(CHANGE))]
    if tracked is Changes.WATCHED and snapshots.tracking():
        key = _watch_key(obj, remembered_first=True)
        value = None if key is None else tensor_change(obj, key)
        text = None if key is None else watch_change_expression(key)
        if value is None or text is None:
            return []
        # the key, not the parent's expression (the watch expression evaluated again)
        return [Child(NAME, value, functools.partial(_fixed, text))]
    return []


def change_mark(obj: Any, kind: Kind | None) -> str:
    """``Δ‖·‖=0.17@stop 3`` on a tracked variable's (or watched tensor's) summary line;
    frozen ones stand out."""
    tracked = _tracked(kind)
    if tracked is Changes.VARIABLE:
        change = snapshots.change_of(obj)
    elif tracked is Changes.WATCHED and snapshots.tracking():
        key = _watch_key(obj)
        change = None if key is None else snapshots.observe_watched(key, obj, looked=False)
    else:
        return ""
    if change is None:
        return ""
    if change.note:
        return "Δ shape changed"
    if change.changed == 0:
        if change.frozen:
            return f"{fmt.WARNING}Δ frozen {change.unchanged_stops} stops"
        return "Δ=0 since last stop"
    return f"Δ‖·‖={fmt.number(change.norm)} since stop {change.since_stop}"


def looked_at(obj: Any) -> None:
    """Watched or hovered: start tracking a variable, or the expression giving a tensor."""
    tracked = _tracked(kind_of(obj))
    if tracked is Changes.VARIABLE:
        snapshots.observe(obj, looked=True)
    elif tracked is Changes.WATCHED:
        key = _watch_key(obj)
        if key is not None:
            snapshots.observe_watched(key, obj, looked=True)
