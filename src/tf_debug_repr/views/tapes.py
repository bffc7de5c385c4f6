"""A ``tf.GradientTape`` in the Variables pane: its state, what it watches, what it returned.

Only reads what the tape already holds (and what capture recorded). Never calls
``gradient`` or ``jacobian``: a non-persistent tape answers once, and the program
would lose its own call.
"""

from __future__ import annotations

from typing import Any

from ..core import formatting as fmt
from ..core.view_model import FACADE, Child, Node, Note, call
from ..gradients import capture
from . import attributes

MODULE = FACADE  # expressions name the stable facade, never this module's path
LISTED = 100  # most rows in one group


def _state(tape: Any, info: capture.TapeRecord | None) -> str:
    if getattr(tape, "_recording", False):
        return "recording"
    if getattr(tape, "_tape", None) is not None:
        return "stopped (can still compute gradients)"
    if _used_up(tape, info):
        return "used (non-persistent: its one gradient or jacobian call is done)"
    return "not started" if not tape.watched_variables() else "used"


def _watched_tensors(info: capture.TapeRecord | None) -> list:
    if info is None:
        return []
    alive = (ref() for ref in info.watched)
    return [t for t in alive if t is not None]


def watched_tensors(tape: Any) -> list:
    """The plain tensors given to ``tape.watch`` that are still alive."""
    return _watched_tensors(capture.tape_record(tape))


def last_gradients(tape: Any) -> LastGradients | None:
    info = capture.tape_record(tape)
    return None if info is None or not info.calls else LastGradients(info)


def _short_state(tape: Any, info: capture.TapeRecord | None) -> str:
    """The state in a word or two for the summary line (the ``state`` child says more)."""
    if getattr(tape, "_recording", False):
        return "recording"
    if getattr(tape, "_tape", None) is not None:
        return "stopped (can still compute gradients)"
    if _used_up(tape, info):
        return "used up"
    return "not started" if not tape.watched_variables() else "used"


def _used_up(tape: Any, info: capture.TapeRecord | None) -> bool:
    """A non-persistent tape that is neither recording nor holding its record: TF let go
    of it after its one gradient, or its jacobian (whose per-row gradients are TF's and
    leave no call on record), once it had watched something."""
    if getattr(tape, "_persistent", False):
        return False
    if info is not None and info.calls:
        return True
    return bool(tape.watched_variables()) or bool(_watched_tensors(info))


def tape_summary(tape: Any) -> str:
    """``8 gradients of disc_loss, used up, watches 8 variables, GradientTape``: what it
    computed first, then its state; ``persistent`` only when it is (non-persistent is
    the default), the class last."""
    info = capture.tape_record(tape)
    persistent = bool(getattr(tape, "_persistent", False))
    parts = []
    if info is not None and info.calls:
        nones = sum(1 for row in info.last if _is_none(row))
        computed = f"{fmt.counted(len(info.last), 'gradient')} of {info.target}"
        if nones:
            computed += f" ({nones} None)"
        if persistent:  # several calls possible: say which one returned these
            computed += f" (call #{info.calls})"
        parts.append(computed)
    parts.append(_short_state(tape, info) + (", persistent" if persistent else ""))
    watches = f"watches {fmt.counted(len(tape.watched_variables()), 'variable')}"
    tensors = len(_watched_tensors(info))
    if tensors:
        watches += f" + {fmt.counted(tensors, 'tensor')}"
    parts.append(watches)
    if not getattr(tape, "_watch_accessed_variables", True):
        parts.append("watch_accessed_variables=False")
    parts.append("GradientTape")
    return ", ".join(parts)


def _is_none(row: tuple) -> bool:
    """A row of ``TapeRecord.last`` whose gradient was None (not merely not kept)."""
    _, _, grad, reason, record = row
    return grad is None and (record is None or not record.has_value or reason is not None)


def tape_children(tape: Any) -> list[Child]:
    info = capture.tape_record(tape)
    rows = [
        Child("state", Note(_state(tape, info))),
        Child("recording", bool(getattr(tape, "_recording", False)), "._recording"),
        Child("persistent", bool(getattr(tape, "_persistent", False)), "._persistent"),
        Child(
            "watch_accessed_variables",
            bool(getattr(tape, "_watch_accessed_variables", True)),
            "._watch_accessed_variables",
        ),
        Child(
            "watched variables",
            WatchedVariables(list(tape.watched_variables())),
            call("{}.watched_variables()"),
        ),
    ]
    tensors = _watched_tensors(info)
    if tensors:
        rows.append(
            Child(
                "watched tensors", WatchedTensors(tensors), call(f"{MODULE}.watched_tensors({{}})")
            )
        )
    if info is not None and info.calls:
        rows.append(
            Child(
                "gradients returned last",
                LastGradients(info),
                call(f"{MODULE}.last_gradients({{}})"),
            )
        )
    elif not capture.enabled():
        rows.append(Child("gradients", Note("gradient capture is off (TF_DEBUG_REPR_GRADIENTS=0)")))
    problem = capture.failure_note()
    if problem:
        rows.append(Child("capture problem", Note(problem)))
    return attributes.with_attributes(tape, rows)  # and what stock shows besides


class WatchedVariables(Node):
    def __init__(self, variables: list) -> None:
        self.variables = variables

    def summary(self) -> str:
        params = sum(int(v.shape.num_elements() or 0) for v in self.variables)
        return f"{len(self.variables)} variables, {fmt.count(params)} values"

    def children(self) -> list[Child]:
        rows = [
            Child(f"[{i}] {v.name}", v, f"[{i}]") for i, v in enumerate(self.variables[:LISTED])
        ]
        if len(self.variables) > LISTED:
            rows.append(Child("…", Note(f"{len(self.variables) - LISTED} more")))
        return rows


class WatchedTensors(Node):
    def __init__(self, tensors: list) -> None:
        self.tensors = tensors

    def summary(self) -> str:
        return f"{fmt.counted(len(self.tensors), 'tensor')} given to tape.watch"

    def children(self) -> list[Child]:
        return [Child(f"[{i}]", t, f"[{i}]") for i, t in enumerate(self.tensors[:LISTED])]


class LastGradients(Node):
    """What the tape's latest ``gradient`` call returned, source by source."""

    def __init__(self, info: capture.TapeRecord) -> None:
        self.call = info.calls
        self.target = info.target
        self.rows = list(info.last)

    def gradient(self, index: int) -> Any:
        return self.rows[index][2]

    def summary(self) -> str:
        nones = sum(1 for row in self.rows if _is_none(row))
        text = f"call #{self.call}, gradients of {self.target}: {len(self.rows)}"
        return text + (f", {nones} None" if nones else "")

    def children(self) -> list[Child]:
        rows = []
        for i, (name, _, grad, reason, record) in enumerate(self.rows[:LISTED]):
            if grad is not None:
                value: Any = grad
            elif record is not None and record.not_kept is not None and reason is None:
                value = Note(f"‖g‖={fmt.number(record.norm)}, values not kept (memory budget)")
            else:
                value = Note(f"None: {reason}")
            rows.append(Child(f"[{i}] {name}", value, call(f"{{}}.gradient({i})")))
        if len(self.rows) > LISTED:
            rows.append(Child("…", Note(f"{len(self.rows) - LISTED} more")))
        return rows
