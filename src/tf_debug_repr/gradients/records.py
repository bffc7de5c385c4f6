"""What is recorded about gradients: per source, per target, per tape.

Plain data read by the views. Records change only under ``lock`` (hooks may run on
several threads at once: eager ``MirroredStrategy`` runs each replica on its own).
"""

from __future__ import annotations

import re
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .figures import Figures, as_float

HISTORY = 64  # norms kept per source and target
# the optimizer's step in a history entry's label (``Adam iteration 4``, ``step_label``)
ITERATION = re.compile(r"\biteration (\d+)")


class _ChangeLock:
    """The records' lock, counting the times it was taken: records change only under it,
    so a view that keeps what it made from them (a model's row in a notebook's Variable
    Inspector) knows nothing changed while ``generation`` is the same. Re-entrant: a
    weak-reference callback may run inside a locked region when a garbage collection
    happens there."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.generation = 0

    def __enter__(self) -> _ChangeLock:
        self._lock.acquire()
        self.generation += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


lock = _ChangeLock()
reading = lock._lock  # for reads: taking it changes nothing


@dataclass
class GradientRecord:
    """The latest gradient of one source with respect to one target."""

    name: str  # the source's
    target: str = "the target"  # the target's name in the calling frame, when it has one
    site: str = ""  # where the program asked for it: "train.py:42"
    replica: int | None = None  # replica id under tf.distribute, when several run
    count: int = 0  # gradients recorded for this source and target
    event: int = 0  # process-wide order of recording (never shown)
    tape_call: int = 0  # the tape's own count of gradient() calls (1 = its first)
    site_call: int = 0  # tape.gradient calls made at ``site`` so far, over all tapes
    origin: str = "GradientTape.gradient"
    applied_by: str | None = None  # the optimizer that applied it, if seen
    optimizer_name: str | None = None  # its ``name`` ("adam_1")
    _iteration: Any = None  # the optimizer's ``iterations`` when it applied the gradient
    _gradient: Any = None  # eager tensor / IndexedSlices, or None (see ``gradient``)
    # A compiled step's values are computed when first read (``set_pending``): a function
    # giving them, until then.
    _pending: Any = None
    reason: str | None = None  # why the gradient is None, when it is
    not_kept: str | None = None  # why the values were dropped (figures kept instead)
    figures: Figures | None = None
    applied: Any = None  # what the optimizer got, when it differs from ``gradient``
    problem: str | None = None  # a part of the capture that failed for this gradient
    _norm: Any = None
    norm_sampled: str | None = None  # how the norm was estimated, when it is an estimate
    _identity: Any = None  # weak reference to the gradient object the tape returned
    kept_bytes: int = 0
    history: deque = field(default_factory=lambda: deque(maxlen=HISTORY))  # (count, label, norm)

    @property
    def gradient(self) -> Any:
        """The gradient's values (eager tensor or ``IndexedSlices``), or None."""
        pending = self._pending
        if pending is not None:
            value = pending()
            if self._pending is pending:  # no newer gradient replaced it meanwhile
                self._gradient, self._pending = value, None
            return value
        return self._gradient

    @gradient.setter
    def gradient(self, value: Any) -> None:
        self._gradient, self._pending = value, None

    def set_pending(self, make: Any) -> None:
        """Values that ``make()`` gives when first read (it must give the same values
        whenever it is called: a compiled step's kept tensors, read at the stop)."""
        self._gradient, self._pending = None, make

    @property
    def norm(self) -> float | None:
        return as_float(self._norm)

    @property
    def quick_norm(self) -> tuple[float | None, bool]:
        """(the norm, whether it is an estimate) as a model's global norm reads it: a
        compiled step's from the ring its step wrote (exact up to its ``SAMPLE``
        elements), not the exact one computed from its kept values (``compiled._Norm``),
        so that the global norm costs no weight's values and reads the same whichever
        weights were shown; any other's the norm itself."""
        quick = getattr(self._norm, "quick", None)
        if quick is not None:
            value, sampled = quick
            return as_float(value), sampled
        return self.norm, bool(self.norm_sampled)

    @property
    def iteration(self) -> int | None:
        value = self._iteration
        if value is None or isinstance(value, int):
            return value
        try:
            return int(value.numpy())
        except Exception:
            return None

    @property
    def label(self) -> str:
        """What this gradient is, in words that cannot pass for the loop's own step."""
        return step_label(self.optimizer, self.iteration, self.site_call, self.site, self.origin)

    @property
    def optimizer(self) -> str | None:
        """``Adam``, or ``Adam 'adam_1'`` when Keras named it apart (a second Adam)."""
        return optimizer_text(self.applied_by, self.optimizer_name)

    @property
    def short_target(self) -> str:
        """``loss`` (``loss (replica 1)`` under tf.distribute)."""
        return self.target + (f" (replica {self.replica})" if self.replica is not None else "")

    @property
    def has_value(self) -> bool:
        return self._pending is not None or self._gradient is not None or self.not_kept is not None

    def norms(self) -> list[tuple[int, str, float | None]]:
        # a compiled step's exact norm never read before its next step: the ring's
        # figure, an estimate where the step sampled it (``compiled._Norm.settle``)
        found = []
        for n, label, value in self.history:
            norm = as_float(value)  # first: reading it may settle it
            found.append((n, label + (" ~" if getattr(value, "estimated", False) else ""), norm))
        return found

    def returned(self, tensor: Any) -> bool:
        """Is ``tensor`` the gradient object recorded here (kept or not)?"""
        if tensor is None:
            return False
        if self.gradient is tensor:
            return True
        ref = self._identity
        return ref is not None and ref() is tensor


def optimizer_text(name: str | None, own: str | None) -> str | None:
    """``Adam``, or ``Adam 'adam_1'`` when the optimizer's own ``name`` is not its class's."""
    if name and own and own.lower() != name.lower():
        return f"{name} {own!r}"
    return name


def step_label(
    applied_by: str | None, iteration: int | None, site_call: int, site: str, origin: str
) -> str:
    """``Adam iteration 4`` once an optimizer applied it; before, ``call #5 at train.py:42``:
    the 5th ``tape.gradient`` call at that line, counted over every tape (a loop makes a
    fresh tape each step, so the tape's own count would read 1 at every step)."""
    if applied_by and iteration is not None:
        return f"{applied_by} iteration {iteration}"
    if site_call:
        return f"call #{site_call} at {site}" if site else f"call #{site_call}"
    return f"applied by {applied_by}" if applied_by else origin


@dataclass
class SourceRecord:
    """Everything recorded for one source: one ``GradientRecord`` per target."""

    name: str
    targets: dict = field(default_factory=dict)  # (site, target, replica) -> record
    latest: GradientRecord | None = None
    symbolic_in: str | None = None  # the graph it was last traced in, when not a value
    symbolic_event: int = 0
    keys: int = 0  # registry entries pointing here (a Keras variable and its tf.Variable)

    # The latest gradient, whatever its target: what most views show.
    def _latest(self, attr: str, default: Any = None) -> Any:
        latest = self.latest
        return default if latest is None else getattr(latest, attr)

    @property
    def gradient(self) -> Any:
        return self._latest("gradient")

    @property
    def norm(self) -> float | None:
        return self._latest("norm")

    @property
    def reason(self) -> str | None:
        return self._latest("reason")

    @property
    def label(self) -> str:
        return self._latest("label", "")

    @property
    def applied_by(self) -> str | None:
        return self._latest("applied_by")

    @property
    def iteration(self) -> int | None:
        return self._latest("iteration")

    @property
    def applied(self) -> Any:
        return self._latest("applied")

    @property
    def origin(self) -> str:
        return self._latest("origin", "")

    @property
    def history(self) -> deque:
        return self._latest("history", deque())

    def norms(self) -> list[tuple[int, str, float | None]]:
        return [] if self.latest is None else self.norms_of(self.latest)

    def norms_of(self, record: GradientRecord) -> list[tuple[int, str, float | None]]:
        """``record``'s norms with those of this source's other targets whose gradients
        the same optimizer applied, in its iterations' order and numbered by them (the
        ``n``-th step's is ``#n``): one optimizer's steps read as one series, whether a step
        ran compiled (its gradient filed at the optimizer's ``apply``) or eagerly for a
        breakpoint in it (filed at its tape's line). ``record``'s own where no other target
        shares its optimizer, or an entry's label names no iteration."""
        own = record.norms()
        optimizer = record.optimizer
        if optimizer is None or len(self.targets) < 2:
            return own
        with reading:
            peers = [
                r
                for r in self.targets.values()
                if r is not record and r.optimizer == optimizer and r.replica == record.replica
            ]
        if not peers:
            return own
        steps: dict[int, tuple[str, float | None]] = {}
        for kept in (record, *peers):
            for _, label, norm in kept.norms():
                found = ITERATION.search(label)
                if found is None:
                    return own
                steps.setdefault(int(found.group(1)), (label, norm))
        ordered = sorted(steps.items())[-HISTORY:]
        return [(step + 1, label, norm) for step, (label, norm) in ordered]

    @property
    def symbolic_now(self) -> bool:
        """Its latest gradient came from a trace (no value), not an eager call."""
        return bool(self.symbolic_in) and self.symbolic_event >= self._latest("event", 0)

    def all_targets(self) -> list[GradientRecord]:
        with reading:
            return sorted(self.targets.values(), key=lambda r: (r.site, r.target, r.replica or 0))


@dataclass
class TapeRecord:
    """What a tape was asked and answered, and the plain tensors it was told to watch."""

    watched: list = field(default_factory=list)  # weak references to tensors
    calls: int = 0
    target: str = ""  # the target of the last call
    # Last call: (name, weak reference to the source or None, gradient or None, reason,
    # the GradientRecord or None).
    last: list = field(default_factory=list)
