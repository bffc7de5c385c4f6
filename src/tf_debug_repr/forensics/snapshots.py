"""Snapshots of variables the user looked at, and how each changed from one stop to the next.

**Which stop is this?** pydevd creates one ``_FramesTracker`` per suspension of a thread
(``PyDB.do_wait_suspend`` enters ``suspended_frames_manager.track_frames()``, which
makes a new tracker and drops it on resume) and registers it under the thread's id. The
resolvers and evaluations run on that suspended thread, so ``get_frame_tracker(id of the
current thread)`` is the current suspension; ``core.debugger.stops_seen()`` counts the
distinct ones it was asked about (by a weak reference: a recycled object is not taken for
the old one), and a count that moved means a new stop. This costs one dict lookup and
needs no hook in pydevd. Without
pydevd (the program calling us itself, unit tests) ``next_stop()`` advances the count.

**What is kept.** Only variables the user looked at (expanded, watched, hovered, or
their model expanded) get a snapshot: one read of the variable, on the variable's own
device (TF copies a variable's buffer on its next update when a read still holds it, so
the read is a true snapshot). The oldest-looked snapshots go first when the budget
(``TF_DEBUG_REPR_SNAPSHOT_MB``, default 64 MiB, like the gradients') is full. At the first sight of a
tracked variable in a new stop, its change since the snapshot is computed on the device
(a few reductions, scalars to the host) and the snapshot is replaced by the current value.
A change computed at this stop outlives its snapshot until the stop ends: a snapshot
evicted later in the same stop (a model bigger than the budget) keeps its figures, so the
``Δ since last stop`` row's expression still gives what the row shows.
"""

from __future__ import annotations

import math
import sys
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Any

from ..core import debugger
from ..core import stats as core_stats
from ..core.guards import harmless
from ..core.settings import env_bytes
from ..views import variables as variable_views
from . import one_pass

FROZEN_STOPS = 3  # unchanged over this many stops in a row: "frozen"
_DEFAULT_BUDGET_MB = 64.0

_lock = threading.RLock()


_budget = env_bytes("TF_DEBUG_REPR_SNAPSHOT_MB", _DEFAULT_BUDGET_MB)


def set_budget_mb(mib: float) -> None:
    global _budget
    with _lock:
        _budget = max(0, int(mib * 1024 * 1024))
        _evict(0)


# --------------------------------------------------------------------------- stops

_stop = 0  # the number of the current stop (1 = first seen)
_stops_seen = 0  # debugger.stops_seen() when it was last asked


def current_stop() -> int:
    """The number of the stop the program is in (0 before any)."""
    global _stop, _stops_seen
    seen = debugger.stops_seen()
    with _lock:
        if seen != _stops_seen:
            _stops_seen = seen
            _stop += 1
        return _stop


def next_stop() -> int:
    """Without pydevd: say that a new stop begins (tests, programs taking snapshots)."""
    global _stop
    with _lock:
        _stop += 1
        return _stop


# --------------------------------------------------------------------------- changes


@dataclass
class Change:
    """How a variable changed between two stops."""

    name: str
    since_stop: int
    at_stop: int
    shape: tuple[int, ...]
    norm: float  # ‖now − then‖₂, computed in float64
    changed: int  # elements that differ
    size: int
    largest: float  # max |now − then|
    where: tuple[int, ...] | None  # index of the largest change
    steps: int | None  # optimizer iterations (or gradients) between the stops, if known
    steps_of: str = ""
    unchanged_stops: int = 0  # stops in a row without any change, this one included
    note: str = ""  # why figures are missing (shape changed, ...)

    @property
    def share_changed(self) -> float:
        return self.changed / self.size if self.size else 0.0

    @property
    def frozen(self) -> bool:
        return self.unchanged_stops >= FROZEN_STOPS


@dataclass
class _Entry:
    ref: weakref.ref | None  # the variable (None: a watch expression's tensor, by its key)
    name: str
    value: Any  # the snapshot (an eager tensor on the variable's device); None once evicted
    stop: int
    nbytes: int
    steps: tuple[int | None, int | None]
    looked: int  # the stop it was last looked at (eviction order)
    change: Change | None = None
    unchanged_stops: int = 0
    figures: one_pass.Figures | None = None  # the snapshot's, from the pass that made it


_entries: dict[Any, _Entry] = {}
_held = 0
# Keys whose variable was collected (its weak reference's callback): dropped at the next
# eviction, not found by a scan of every entry at each new snapshot (that scan, and a sort
# of every held entry per snapshot, were O(n²) over a 320-weight model's expansion).
_dead: list[Any] = []
# The stop at which a scan found no snapshot of an earlier stop left to evict: a new
# snapshot that may not displace this stop's (a model's weights first seen) finds none
# later in the same stop either.
_none_older = -1


def _on_collected(key: Any) -> Callable[[Any], None]:
    def collected(_ref: Any) -> None:
        _dead.append(key)  # list.append: atomic, safe from whichever thread collects

    return collected


def _storage(var: Any) -> Any:
    inner = getattr(var, "_value", None)  # a Keras variable's tf.Variable
    return var if inner is None or not hasattr(inner, "read_value") else inner


def _entry(var: Any) -> _Entry | None:
    storage = _storage(var)
    return _lookup(id(storage), storage)


def _lookup(key: Any, target: Any) -> _Entry | None:
    entry = _entries.get(key)
    if entry is not None and entry.ref is not None and entry.ref() is not target:
        _drop(key)
        return None
    return entry


def _drop(key: Any) -> None:
    global _held
    entry = _entries.pop(key, None)
    if entry is not None:
        _held -= entry.nbytes


def _sweep() -> None:
    """Drop the entries of variables collected since the last sweep."""
    while _dead:
        key = _dead.pop()
        entry = _entries.get(key)
        if entry is not None and entry.ref is not None and entry.ref() is None:
            _drop(key)


def _evict(need: int, displace: bool = True) -> bool:
    """Make room for ``need`` bytes by dropping the snapshots looked at longest ago.
    ``displace=False``: only snapshots of earlier stops go, none taken or compared at this
    one (a model's weights first seen do not push out those compared a moment before)."""
    global _none_older
    _sweep()
    if need > _budget:
        return False
    if _held + need <= _budget:
        return True
    if not displace and _none_older == _stop:
        return False
    held = [
        (k, e) for k, e in _entries.items() if e.value is not None and (displace or e.stop != _stop)
    ]
    if not displace and not held:
        _none_older = _stop
        return False
    for key, entry in sorted(held, key=lambda item: item[1].looked):
        if _held + need <= _budget:
            break
        if entry.change is not None and entry.stop == _stop:
            _release(entry)  # its change was shown at this stop: keep the figures till it ends
        else:
            _drop(key)
    return _held + need <= _budget


def _release(entry: _Entry) -> None:
    """Free the snapshot's bytes; the entry keeps this stop's change and nothing else."""
    global _held
    _held -= entry.nbytes
    entry.value, entry.nbytes = None, 0


def _nbytes(value: Any) -> int:
    return int(value.shape.num_elements() or 0) * int(value.dtype.size)


def _steps(var: Any) -> tuple[int | None, int | None]:
    """(the optimizer's iterations when it last applied a gradient to ``var``, the count
    of gradients recorded for it), from gradient capture; (None, 0) when none was. The
    count is None where its gradients went to several targets (a step run eagerly where a
    breakpoint lay in it keeps its tape's, the compiled ones the optimizer's): the latest
    target's count is not the steps' then."""
    try:
        from ..gradients import capture as gradient_capture

        record = gradient_capture.record_of(var)
        latest = getattr(record, "latest", None)
        if record is not None and latest is not None:
            targets = {(r.site, r.target) for r in record.all_targets()}
            count = int(latest.count or 0) if len(targets) <= 1 else None
            return latest.iteration, count
    except Exception:
        pass
    return None, 0


def _steps_between(
    then: tuple[int | None, int | None], now: tuple[int | None, int | None]
) -> tuple:
    """(steps, what they count) between two stops, or (None, "") when unknown."""
    if then[0] is not None and now[0] is not None:
        return now[0] - then[0], "optimizer steps"
    if then[1] is not None and now[1] is not None and now[1] > then[1]:
        return now[1] - then[1], "gradient steps"  # none recorded before counts as none yet
    return None, ""


def _read(var: Any) -> Any:
    return variable_views.read_value(var)


def tracking() -> bool:
    """Is anything tracked at all? (The cheap test every summary line makes.)"""
    return bool(_entries)


def tracked(var: Any) -> bool:
    """Is a snapshot of ``var`` kept, or a change of it shown at this stop?"""
    with _lock:
        entry = _entry(var)
        return entry is not None and (entry.value is not None or entry.stop == _stop)


def observe(
    var: Any, looked: bool, figures: bool = True, displace: bool = True, value: Any = None
) -> Change | None:
    """Bring ``var``'s record up to the current stop; start tracking it if ``looked``.
    Returns its change since the previous snapshot, when there is one for this stop.
    ``figures``: the pass also takes the value's figures (its row is shown: the summary
    and history take them); False for a model's weights listed only by their change.
    ``displace``: a new snapshot may push out one taken at this stop (a look of the
    user's); False for a model's weights, which take what room is left. ``value``: the
    variable's current value, read already at this stop (``read_values``, or the history's
    read: one read, not two; the program is suspended, nothing writes it meanwhile), or
    None to read it here."""
    if not looked and not _entries:
        return None  # nothing tracked: every summary line pays one truth test
    storage = _storage(var)
    return _observe(
        id(storage),
        storage,
        lambda: variable_views.label(var),
        (lambda: value) if value is not None else (lambda: _read(var)),
        lambda: _steps(var),
        looked,
        figures,
        displace,
    )


def observe_all(variables: list[Any], looked: bool) -> None:
    """``observe`` of each of a model's weights, listed only by their change: their reads
    made together (``variable_views.read_values``), and a weight first seen taking only
    the room left (``displace=False``), so that the weights compared at this stop keep
    their snapshots for the next one."""
    stop = current_stop()
    if stop == 0 or (not looked and not _entries):
        return
    with _lock:
        due = []
        for var in variables:
            storage = _storage(var)
            entry = _lookup(id(storage), storage)
            if entry is not None and entry.stop == stop:
                continue  # already brought to this stop: nothing is read
            if (entry is None or entry.value is None) and not looked:
                continue  # nothing to compare with, and not a look: nothing is kept
            due.append(var)
    values = variable_views.read_values(due)
    for var, value in zip(due, values):
        observe(var, looked, figures=False, displace=False, value=value)


def observe_watched(key: tuple, tensor: Any, looked: bool) -> Change | None:
    """The same for a tensor a watch expression gives (a new tensor at each stop, so it is
    tracked by the expression and the function it is evaluated in: ``key``)."""
    if not looked and not _entries:
        return None
    return _observe(key, None, lambda: key[-1], lambda: tensor, lambda: (None, 0), looked)


def watched_change(key: tuple) -> Change | None:
    """A watch expression's change at the current stop, by its key alone: what its
    tensor's ``Δ since last stop`` row showed (None before its tensor was seen at this
    stop, or without a change). Never evaluates the expression again."""
    stop = current_stop()
    with _lock:
        entry = _entries.get(key)
        if entry is None or entry.stop != stop:
            return None
        return entry.change


def watched_tracked(key: tuple) -> int | None:
    """The stop of the snapshot kept for a watch expression, if any."""
    with _lock:
        entry = _entries.get(key)
        return None if entry is None else entry.stop


def _observe(
    key: Any,
    target: Any,
    name: Callable[[], str],
    read: Callable[[], Any],
    steps_of: Callable[[], tuple[int | None, int | None]],
    looked: bool,
    want_figures: bool = True,
    displace: bool = True,
) -> Change | None:
    stop = current_stop()
    if stop == 0:
        return None
    with _lock:
        entry = _lookup(key, target)
        if entry is not None and entry.value is None and entry.stop != stop:
            _drop(key)  # evicted at an earlier stop: nothing to compare with
            entry = None
        if entry is None and not looked:
            return None
        if entry is not None and entry.stop == stop:
            if looked:
                entry.looked = stop
            return entry.change
        now = read()
        if now is None:  # no value yet (Keras build pass, first trace)
            return entry.change if entry is not None else None
        steps = steps_of()
        then = None if entry is None else entry.value
        figures: one_pass.Figures | None = None
        delta: one_pass.Delta | None = None
        if then is not None and (
            now is then or (target is not None and one_pass.same_version(now, then))
        ):
            # Nothing wrote the variable since its snapshot (its read shares the held
            # buffer), or a watch expression gives the very tensor it gave (an eager
            # tensor never changes): no pass at all, the snapshot's figures hold.
            now, figures, delta = (
                then,
                entry.figures if entry is not None else None,
                one_pass.UNCHANGED,
            )
        elif _fused(now):
            comparable = then is not None and _comparable(then, now)
            if want_figures:
                figures, delta = one_pass.measure(now, then if comparable else None)
            elif comparable:
                delta = one_pass.compare(now, then)
        change = None
        if entry is not None:
            change = _compare(entry, now, stop, steps, delta)
            entry.unchanged_stops = change.unchanged_stops
        return _keep(key, target, name, entry, now, stop, steps, looked, change, figures, displace)


def _fused(value: Any) -> bool:
    """Is the value measured in one pass (``one_pass.measure``)?"""
    size = int(value.shape.num_elements() or 0)
    return bool(size) and one_pass.fused(value.dtype) and size <= core_stats.EXACT_LIMIT


def _comparable(then: Any, now: Any) -> bool:
    return then.dtype == now.dtype and tuple(then.shape) == tuple(now.shape)


def _keep(
    key: Any,
    target: Any,
    name: Callable[[], str],
    entry: _Entry | None,
    now: Any,
    stop: int,
    steps: tuple[int | None, int | None],
    looked: bool,
    change: Change | None,
    figures: one_pass.Figures | None = None,
    displace: bool = True,
) -> Change | None:
    global _held
    size = _nbytes(now)
    if entry is not None:
        _drop(key)
    fits = _evict(size, displace)
    if not fits and change is None:
        return None  # over budget, and nothing to show at this stop
    # Over budget with a change: the figures stay for this stop (its row's expression
    # gives them again), no snapshot for the next.
    new = _Entry(
        ref=None if target is None else weakref.ref(target, _on_collected(key)),
        name=name(),
        value=now if fits else None,
        stop=stop,
        nbytes=size if fits else 0,
        steps=steps,
        looked=stop if looked or entry is None else entry.looked,
        change=change,
        unchanged_stops=entry.unchanged_stops if entry is not None else 0,
        figures=figures if fits else None,
    )
    _entries[key] = new
    _held += new.nbytes
    if fits and figures is not None and (entry is None or entry.value is not now):
        # the summary line, the stats row and any other read of this buffer get them
        # (the very tensor kept before has them already)
        core_stats.remember_version(now, figures.stats)
    return change


def version_figures(key: Any, target: Any, value: Any) -> one_pass.Figures | None:
    """The figures measured at this stop for ``value``'s version, by the pass that took
    the snapshot under ``key`` (the variable's storage id, or a watch key); None when that
    snapshot does not hold this very value (another version, none taken, evicted)."""
    stop = current_stop()
    with _lock:
        entry = _lookup(key, target)
        if entry is None or entry.stop != stop or entry.figures is None or entry.value is None:
            return None
        return entry.figures if one_pass.same_version(value, entry.value) else None


def storage_key(var: Any) -> Any:
    """The key a variable's snapshot is kept under (its tf.Variable's id)."""
    return id(_storage(var))


_EVALUATORS = ("evaluate_expression", "internal_evaluate_expression_json")
NO_RESULT: Any = object()  # the evaluation is still running: it has no result yet


def evaluated_expression() -> tuple[Any, str, Any] | None:
    """(the frame, the expression, its result) when pydevd is evaluating a watch, hover or
    Debug Console expression on this thread's stack, or presenting its result: DAP's
    ``internal_evaluate_expression_json(py_db, request, thread_id)`` evaluates through
    ``evaluate_expression(py_db, frame, expression, is_exec)`` and then asks for the
    result's string; both hold ``frame`` and ``expression`` as locals, the first also
    ``eval_result`` once the expression gave it (``NO_RESULT`` before)."""
    probe: FrameType | None = sys._getframe(1)
    while probe is not None:
        code = probe.f_code
        if code.co_name in _EVALUATORS and "pydevd" in code.co_filename:
            found = probe.f_locals
            frame, expression = found.get("frame"), found.get("expression")
            if frame is not None and isinstance(expression, str):
                return frame, expression.strip(), found.get("eval_result", NO_RESULT)
            return None
        probe = probe.f_back
    return None


def _compare(
    entry: _Entry,
    now: Any,
    stop: int,
    steps: tuple[int | None, int | None],
    delta: one_pass.Delta | None = None,
) -> Change:
    then = entry.value
    shape = tuple(int(d) for d in now.shape)
    size = int(math.prod(shape))
    steps_between, steps_of = _steps_between(entry.steps, steps)
    base = dict(
        name=entry.name,
        since_stop=entry.stop,
        at_stop=stop,
        shape=shape,
        size=size,
        steps=steps_between,
        steps_of=steps_of,
    )
    if tuple(int(d) for d in then.shape) != shape or then.dtype != now.dtype:
        return Change(
            **base,
            norm=math.nan,
            changed=size,
            largest=math.nan,
            where=None,
            note=f"shape or dtype changed: was {then.dtype.name}{list(then.shape)}",
        )
    if delta is not None:  # from the one pass that also gave the figures
        norm, changed, largest, flat = delta.norm, delta.changed, delta.largest, delta.where
    else:
        norm, changed, largest, flat = _figures(then, now)
    # unchanged at every stop since the snapshot (seen or not), or moved
    unchanged = entry.unchanged_stops + (stop - entry.stop) if changed == 0 else 0
    where = None
    if changed and flat is not None and shape:
        import numpy as np

        where = tuple(int(i) for i in np.unravel_index(flat, shape))
    elif changed:
        where = ()
    return Change(
        **base,
        norm=norm,
        changed=changed,
        largest=largest,
        where=where,
        unchanged_stops=unchanged,
    )


def _figures(then: Any, now: Any) -> tuple[float, int, float, int | None]:
    """(‖Δ‖₂ in float64, elements changed, max |Δ|, flat index of the max) by TF's ops on
    the value's own device: the values ``one_pass`` does not take (complex, strings)."""
    import tensorflow as tf

    with harmless(now.device):
        if now.dtype.is_floating or now.dtype.is_integer or now.dtype == tf.bool:
            a = tf.cast(tf.reshape(now, [-1]), tf.float64)
            b = tf.cast(tf.reshape(then, [-1]), tf.float64)
            same = tf.logical_or(
                tf.equal(a, b), tf.logical_and(tf.math.is_nan(a), tf.math.is_nan(b))
            )
            diff = tf.where(same, tf.zeros_like(a), a - b)
            magnitude = tf.abs(diff)
            figures = tf.stack(
                [
                    tf.sqrt(tf.reduce_sum(tf.square(diff))),
                    tf.reduce_sum(tf.cast(tf.logical_not(same), tf.float64)),
                    tf.reduce_max(magnitude) if a.shape[0] else tf.constant(0.0, tf.float64),
                ]
            )
            index = tf.argmax(magnitude) if a.shape[0] else None
            norm, changed, largest = (float(x) for x in figures.numpy())
            return norm, int(changed), largest, None if index is None else int(index.numpy())
        # strings, complex: count what changed only
        same = tf.equal(tf.reshape(now, [-1]), tf.reshape(then, [-1]))
        changed = int(tf.reduce_sum(tf.cast(tf.logical_not(same), tf.int64)).numpy())
        return math.nan, changed, math.nan, None


def change_of(var: Any) -> Change | None:
    """The change of ``var`` at the current stop (computing it if due), or None."""
    return observe(var, looked=False)


def snapshot_stop(var: Any) -> int | None:
    """The stop of ``var``'s snapshot, when one is kept."""
    with _lock:
        entry = _entry(var)
        return None if entry is None or entry.value is None else entry.stop


def held_bytes() -> int:
    return _held


def clear() -> None:
    global _held, _none_older
    with _lock:
        _entries.clear()
        _dead.clear()
        _held = 0
        _none_older = -1
