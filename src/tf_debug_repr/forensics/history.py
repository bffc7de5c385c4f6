"""A value's history across stops: its figures at each stop the program made while a client
looked, labelled by what the user counts by.

**What is kept.** For each value a client has shown (a variable's row in Variables, Watch,
hover, an expansion, the viewer, ``tf_debug_repr.history(value)``), one ``Entry`` per stop:
min, max, mean, std (of the finite elements: a CPU float value's exact, from one pass over
it that also makes the copy; other values' as the summary computes them), the L2 norm
(float64, finite elements), NaN and ±Inf counts, and, within ``TF_DEBUG_REPR_HISTORY_MB``
(default 32 MiB), a downsampled copy (block means of the flattened value, at most
``COPY_ELEMENTS`` of them, float32, made on the value's device: only those cells reach the
host). At most ``ENTRIES`` entries per value (the oldest go first) and ``VALUES`` values
(the one looked at longest ago goes first); copies go oldest first when the budget is full,
their figures stay.

**When.** A value is recorded at a stop the first time anything shows it there; the first
record at a new stop also records every other tracked variable still alive (the ones looked
at last first, for at most ``CATCH_UP_SECONDS``), so that a weight watched once has an entry
at each later stop even when nothing expands it again.

**Labels.** ``stop`` (the debugger's stop number, ``snapshots.current_stop``); ``epoch``
and ``batch`` when the program is inside Keras's ``fit`` (read from the locals of ``fit``'s
frame on the stack: ``epoch``, ``end_step``; nothing of the user's callbacks is touched);
``step``: the optimizer's ``iterations`` (the model's optimizer inside ``fit``, else a
Keras optimizer among the stopped frame's locals and globals, the one that applied a
gradient to the value first), read harmlessly. The weight's gradient-norm ring
(``gradients.records``) gives the norm of the gradient whose ``apply`` made that step.

Everything runs under the guards: no tape records it, no graph gets an op, nothing of the
program's state is read but values and frame locals (as the debugger's own Variables do).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from ..core import stats as core_stats
from ..core.guards import harmless, host_view, is_on_host
from ..core.settings import env_bytes
from ..core.tf_types import Kind, kind_of
from ..views import variables as variable_views
from . import one_pass, snapshots

ENTRIES = 512  # entries kept per value
VALUES = 256  # values tracked at once
COPY_ELEMENTS = one_pass.COPY_ELEMENTS  # cells of the downsampled copy
CATCH_UP_SECONDS = 0.5  # a new stop's recording of the values not asked about, at most
_DEFAULT_BUDGET_MB = 32.0
BUDGET_ENV = "TF_DEBUG_REPR_HISTORY_MB"

_lock = threading.RLock()


_budget = env_bytes(BUDGET_ENV, _DEFAULT_BUDGET_MB)


def set_budget_mb(mib: float) -> None:
    global _budget
    with _lock:
        _budget = max(0, int(mib * 1024 * 1024))
        _evict(0)


@dataclass
class Entry:
    """A value's figures at one stop."""

    stop: int
    step: int | None  # the optimizer's iterations at the stop
    epoch: int | None  # Keras fit's epoch (0-based, as callbacks get it)
    batch: int | None  # Keras fit's last step in the epoch
    min: float | None
    max: float | None
    mean: float | None
    std: float | None
    norm: float | None
    nan: int
    inf: int
    size: int
    sampled: bool = False  # figures from a strided sample (a large value)
    grad_norm: float | None = None  # the gradient that made this step, when recorded
    copy: Any = None  # numpy float32 block means (None: over budget or not numeric)
    block: int = 1  # elements per cell of ``copy``
    note: str = ""

    @property
    def copy_bytes(self) -> int:
        return 0 if self.copy is None else int(self.copy.nbytes)

    def figure(self, name: str) -> float | None:
        value = getattr(self, name)
        return None if value is None else float(value)


@dataclass
class Record:
    """The history of one value."""

    name: str
    ref: weakref.ref | None  # the variable (None: a watched expression's tensors)
    shape: tuple[int, ...] = ()
    dtype: str = ""
    entries: deque = field(default_factory=lambda: deque(maxlen=ENTRIES))
    looked: int = 0  # the stop it was last shown at
    gradient_series: list[tuple[int, float | None]] = field(default_factory=list)

    def at(self, stop: int) -> Entry | None:
        return next((e for e in reversed(self.entries) if e.stop == stop), None)


_records: OrderedDict[Any, Record] = OrderedDict()
_held = 0
_caught_up = 0  # the stop at which every tracked variable was last recorded


def _storage(var: Any) -> Any:
    inner = getattr(var, "_value", None)  # a Keras variable's tf.Variable
    return var if inner is None or not hasattr(inner, "read_value") else inner


def _key(obj: Any) -> tuple[Any, Any] | None:
    """(key, the object a weak reference follows) of a variable; None for other kinds."""
    if kind_of(obj) not in (Kind.VARIABLE, Kind.KERAS_VARIABLE):
        return None
    storage = _storage(obj)
    return id(storage), storage


def _lookup(key: Any, target: Any) -> Record | None:
    record = _records.get(key)
    if record is not None and record.ref is not None and record.ref() is not target:
        _drop(key)
        return None
    return record


def _drop(key: Any) -> None:
    global _held
    record = _records.pop(key, None)
    if record is not None:
        _held -= sum(e.copy_bytes for e in record.entries)


def _evict(need: int) -> bool:
    """Room for ``need`` bytes of copies: the oldest copies go (their figures stay)."""
    global _held
    if need > _budget:
        return False
    if _held + need <= _budget:
        return True
    copies = [(e.stop, e) for r in _records.values() for e in r.entries if e.copy is not None]
    for _, entry in sorted(copies, key=lambda item: item[0]):
        _held -= entry.copy_bytes
        entry.copy = None
        entry.note = entry.note or "copy dropped (history budget)"
        if _held + need <= _budget:
            break
    return _held + need <= _budget


# --------------------------------------------------------------------------- figures


def _host_norm(flat: Any) -> float:
    import numpy as np

    squares = 0.0
    block = 1 << 16
    for start in range(0, flat.size, block):
        part = flat[start : start + block].astype(np.float64)
        part = part[np.isfinite(part)]
        squares += float(np.einsum("i,i->", part, part))
    return math.sqrt(squares)


def _device_norm(tensor: Any) -> float:
    import tensorflow as tf

    flat = tf.reshape(tensor, [-1])
    size = int(flat.shape[0])
    chunk = core_stats.EXTREMES_CHUNK
    total = 0.0
    for start in range(0, size, chunk):
        part = tf.cast(flat[start : start + chunk], tf.float64)
        part = tf.where(tf.math.is_finite(part), part, tf.zeros_like(part))
        total += float(tf.reduce_sum(part * part).numpy())
    return math.sqrt(total)


def copy_cells(size: int) -> tuple[int, int]:
    """(cells, elements per cell) of the downsampled copy of ``size`` elements."""
    return one_pass.copy_cells(size)


def _copy(tensor: Any, on_host: bool) -> tuple[Any, int]:
    """Block means of the flattened value, at most ``COPY_ELEMENTS`` cells (float32)."""
    import numpy as np

    size = int(tensor.shape.num_elements() or 0)
    _, block = copy_cells(size)
    whole = (size // block) * block
    if on_host:
        flat = np.asarray(host_view(tensor)).reshape(-1)
        cells = flat[:whole].astype(np.float64).reshape(-1, block).mean(axis=1)
        if whole < size:
            cells = np.append(cells, flat[whole:].astype(np.float64).mean())
        return cells.astype(np.float32), block
    import tensorflow as tf

    flat = tf.reshape(tensor, [-1])
    cells = tf.reduce_mean(tf.reshape(tf.cast(flat[:whole], tf.float32), [-1, block]), axis=1)
    if whole < size:
        cells = tf.concat([cells, tf.reduce_mean(tf.cast(flat[whole:], tf.float32))[None]], 0)
    return cells.numpy().astype(np.float32), block


def figures(tensor: Any, stop: int, labels: dict[str, Any], want_copy: bool) -> Entry:
    """The entry of an eager tensor at ``stop``: figures on its own device."""
    size = int(tensor.shape.num_elements() or 0)
    dtype = tensor.dtype
    numeric = (dtype.is_floating or dtype.is_integer or dtype.is_bool) and not dtype.is_complex
    if not numeric or size == 0:
        note = f"no figures for {dtype.name}" if size else ""
        return Entry(
            stop=stop,
            step=labels["step"],
            epoch=labels["epoch"],
            batch=labels["batch"],
            min=None,
            max=None,
            mean=None,
            std=None,
            norm=None,
            nan=0,
            inf=0,
            size=size,
            note=note,
        )
    if size <= core_stats.EXACT_LIMIT:
        # one pass on the value's device: every figure and the block means
        found_now, _ = one_pass.measure(tensor, None, cells=want_copy)
        return entry_of(found_now, stop, labels)
    on_host = is_on_host(tensor)
    with harmless(None if on_host else tensor.device):
        found = core_stats.tensor_stats(tensor)
        if dtype.is_bool:
            norm = math.sqrt(found.true_count or 0)
        elif on_host:
            norm = _host_norm(host_view(tensor).reshape(-1))
        else:
            norm = _device_norm(tensor)
        copy, block = (None, 1)
        if want_copy and not dtype.is_bool:
            copy, block = _copy(tensor, on_host)
    mean = found.mean
    return Entry(
        stop=stop,
        **labels,
        min=None if found.min is None else float(found.min),
        max=None if found.max is None else float(found.max),
        mean=None if mean is None else float(mean),
        std=None if found.std is None else float(found.std),
        norm=norm,
        nan=int(found.nan),
        inf=int(found.posinf + found.neginf),
        size=size,
        sampled=bool(found.extremes_sampled or found.moments_sample),
        copy=copy,
        block=block,
    )


def entry_of(found: one_pass.Figures, stop: int, labels: dict[str, Any]) -> Entry:
    """The entry of a value whose figures one pass gave (``one_pass.measure``)."""
    stats = found.stats

    def number(value: Any) -> float | None:
        return None if value is None else float(value)

    return Entry(
        stop=stop,
        **labels,
        min=number(stats.min),
        max=number(stats.max),
        mean=number(stats.mean),
        std=number(stats.std),
        norm=found.norm,
        nan=int(stats.nan),
        inf=int(stats.posinf + stats.neginf),
        size=stats.size,
        copy=found.cells,
        block=found.block if found.cells is not None else 1,
    )


# --------------------------------------------------------------------------- labels

_OURS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_DEBUGGERS = ("pydevd", "debugpy", os.sep + "_pydev")


def _foreign(filename: str) -> bool:
    return filename.startswith(_OURS) or any(d in filename for d in _DEBUGGERS)


def _frames() -> list[FrameType]:
    """The program's frames on this thread's stack, innermost first (ours and the
    debugger's left out)."""
    found = []
    probe: FrameType | None = sys._getframe(1)
    while probe is not None:
        if not _foreign(probe.f_code.co_filename):
            found.append(probe)
        probe = probe.f_back
    return found


def _fit_frame(frames: list[FrameType]) -> FrameType | None:
    for frame in frames:
        code = frame.f_code
        if code.co_name == "fit" and "keras" in code.co_filename and "trainer" in code.co_filename:
            return frame
    return None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return None


def _iterations(optimizer: Any) -> int | None:
    """The optimizer's ``iterations``, read harmlessly; None when it has none."""
    try:
        counter = getattr(optimizer, "iterations", None)
        if counter is None:
            return None
        if isinstance(counter, int):
            return counter
        value = variable_views.read_value(counter) if hasattr(counter, "dtype") else None
        return None if value is None else int(value.numpy())
    except Exception:
        return None


def _scopes(frame: FrameType) -> list[dict]:
    return [frame.f_locals, frame.f_globals]


def _optimizers(scopes: list[dict]) -> list[Any]:
    """Keras optimizers among the scopes' values (by their kind: no code of theirs runs),
    at most a few."""
    found: list[Any] = []
    for scope in scopes:
        try:
            values = list(scope.values())[:2000]
        except Exception:
            continue
        for value in values:
            try:
                if kind_of(value) is Kind.OPTIMIZER and all(value is not f for f in found):
                    found.append(value)
            except Exception:
                continue
        if len(found) >= 4:
            break
    return found


def _applied_by(var: Any) -> str | None:
    try:
        from ..gradients import capture as gradient_capture

        record = gradient_capture.record_of(var)
        latest = getattr(record, "latest", None)
        return None if latest is None else latest.optimizer_name
    except Exception:
        return None


@dataclass(frozen=True)
class _LabelSources:
    """What a stop's labels are read from: ``fit``'s epoch and batch and its model's
    optimizer's iterations, else each optimizer found in the scopes with its iterations
    (``names``: theirs, read only where there are several to choose from)."""

    epoch: int | None
    batch: int | None
    fit_step: int | None
    steps: tuple[int | None, ...]
    names: tuple[Any, ...]

    def for_value(self, var: Any | None) -> dict[str, Any]:
        step = self.fit_step
        if step is None:
            order = list(range(len(self.steps)))
            if len(order) > 1 and var is not None:
                applied = _applied_by(var)
                order.sort(key=lambda i: self.names[i] != applied)
            step = next((self.steps[i] for i in order if self.steps[i] is not None), None)
        return {"step": step, "epoch": self.epoch, "batch": self.batch}


def _label_sources(frames: list[FrameType], scope: dict | None) -> _LabelSources:
    epoch = batch = fit_step = None
    fit = _fit_frame(frames)
    if fit is not None:
        local = fit.f_locals
        epoch, batch = _int(local.get("epoch")), _int(local.get("end_step"))
        model = local.get("self")
        optimizer = getattr(model, "optimizer", None) if model is not None else None
        if optimizer is not None:
            fit_step = _iterations(optimizer)
    optimizers: list[Any] = []
    if fit_step is None and (frames or scope is not None):
        optimizers = _optimizers([scope] if scope is not None else [])
        if frames:
            for found_here in _optimizers(_scopes(frames[0])):
                if all(found_here is not o for o in optimizers):
                    optimizers.append(found_here)
    steps = tuple(_iterations(o) for o in optimizers)
    names = tuple(getattr(o, "name", None) for o in optimizers) if len(optimizers) > 1 else ()
    return _LabelSources(epoch, batch, fit_step, steps, names)


# A debugger stop's label sources, read once per stop and thread: the program's frames
# and its optimizers' iterations are the same for every value recorded at that stop (a
# walk of the stack, a scan of its scopes and a variable read per optimizer, each time).
_stop_sources: tuple[tuple[int, int], _LabelSources] | None = None


def labels(
    var: Any | None,
    frames: list[FrameType] | None = None,
    scope: dict | None = None,
    stop: int = 0,
) -> dict[str, Any]:
    """``step``, ``epoch`` and ``batch`` at this stop (None where unknown); ``scope``: a
    namespace to look for the optimizer in first (a notebook's). With neither ``frames``
    nor ``scope``, at a debugger ``stop``: from that stop's sources, read once."""
    global _stop_sources
    if frames is None and scope is None and stop:
        key = (stop, threading.get_ident())
        cached = _stop_sources
        if cached is None or cached[0] != key:
            cached = _stop_sources = (key, _label_sources(_frames(), None))
        return cached[1].for_value(var)
    sources = _label_sources(_frames() if frames is None else frames, scope)
    return sources.for_value(var)


def gradient_series(var: Any) -> list[tuple[int, float | None]]:
    """The weight's gradient-norm ring on the step axis: (iterations after the ``apply``
    of that gradient, its norm); [] when none was recorded with an optimizer's iteration."""
    try:
        from ..gradients import capture as gradient_capture
        from ..gradients.records import ITERATION

        record = gradient_capture.record_of(var)
        if record is None:
            return []
        series = []
        for _, label, norm in record.norms():
            match = ITERATION.search(label)
            if match is not None:
                series.append((int(match.group(1)) + 1, norm))
        return series
    except Exception:
        return []


# --------------------------------------------------------------------------- recording


def _name(var: Any) -> str:
    try:
        return variable_views.label(var)
    except Exception:
        return type(var).__name__


def _record(
    key: Any,
    target: Any,
    name: Callable[[], str],
    read: Callable[[], Any],
    stop: int,
    frames: list[FrameType] | None,
    start: bool,
    scope: dict | None = None,
    measured: Callable[[Any], one_pass.Figures | None] | None = None,
) -> Record | None:
    """``measured(value)``: the figures of this very value, when the snapshot's pass at
    this stop gave them already (one pass per value version per stop)."""
    global _held
    with _lock:
        record = _lookup(key, target)
        if record is None:
            if not start:
                return None
            record = Record(name=name(), ref=None if target is None else weakref.ref(target))
            _records[key] = record
            while len(_records) > VALUES:
                _drop(next(iter(_records)))
        if start:  # the order of looking: the first to go past VALUES, the last caught up
            _records.move_to_end(key)
            record.looked = stop
        if record.at(stop) is not None:
            return record
        value = read()
        if value is None:  # no value yet (Keras's build pass)
            return record
        record.shape = tuple(int(d) for d in value.shape)
        record.dtype = value.dtype.name
        size = copy_cells(int(value.shape.num_elements() or 0))[0] * 4
        fits = _evict(size)
        found = None if measured is None else measured(value)
        if found is not None:
            entry = entry_of(found, stop, labels(target, frames, scope, stop))
            if not fits:
                entry.copy, entry.block = None, 1
        else:
            entry = figures(value, stop, labels(target, frames, scope, stop), want_copy=fits)
        if target is not None:
            series = gradient_series(target)
            if series:
                record.gradient_series = _merge(record.gradient_series, series)
                entry.grad_norm = next((n for s, n in series if s == entry.step), None)
        if len(record.entries) == record.entries.maxlen:
            _held -= record.entries[0].copy_bytes
        record.entries.append(entry)
        _held += entry.copy_bytes
        return record


def _merge(
    old: list[tuple[int, float | None]], new: list[tuple[int, float | None]]
) -> list[tuple[int, float | None]]:
    merged = dict(old)
    merged.update(new)
    return sorted(merged.items())[-ENTRIES:]


def _catch_up(stop: int) -> None:
    """At a new stop, record every tracked variable still alive, the ones looked at last
    first, within ``CATCH_UP_SECONDS`` (the rest are recorded when shown); their labels are
    the stop's (``labels``)."""
    global _caught_up
    with _lock:
        if _caught_up == stop:
            return
        _caught_up = stop
        alive = [(k, r.ref()) for k, r in reversed(_records.items()) if r.ref is not None]
    started = time.perf_counter()
    for key, var in alive:
        if var is None:
            continue
        if time.perf_counter() - started > CATCH_UP_SECONDS:
            break
        try:
            _record_variable(var, key, var, stop, None, False)
        except Exception:
            continue


def _done(key: Any, target: Any, stop: int) -> tuple[bool, Record | None]:
    """Without walking the stack: (True, None) when ``key`` is not tracked, (True, its
    record) when it and every other tracked value were recorded at ``stop`` already, else
    (False, None): there is recording to do."""
    with _lock:
        record = _lookup(key, target)
        if record is None:
            return True, None
        if _caught_up == stop and record.at(stop) is not None:
            return True, record
        return False, None


def observe(var: Any, looked: bool) -> Record | None:
    """Bring ``var``'s history up to this stop; start it when ``looked``. Cheap when
    nothing is tracked and ``looked`` is false."""
    if not looked and not _records:
        return None
    found = _key(var)
    if found is None:
        return None
    stop = snapshots.current_stop()
    if stop == 0:
        return record_of(var)
    key, storage = found
    if not looked:
        done, record = _done(key, storage, stop)
        if done:
            return record  # not tracked (None), or recorded at this stop already
    # frames None: a debugger stop's labels, their sources read once per stop (``labels``)
    if _records and _caught_up != stop:
        _catch_up(stop)
    return _record_variable(var, key, storage, stop, None, looked)


def _record_variable(
    var: Any,
    key: Any,
    storage: Any,
    stop: int,
    frames: list[FrameType] | None,
    start: bool,
    scope: dict | None = None,
) -> Record | None:
    """``_record`` of a variable (``key`` and ``storage`` from ``_key``): its name and
    its value read harmlessly, when asked for; its figures from the pass of its ``Δ since
    last stop`` snapshot at this stop when that read the same version."""

    def measured(value: Any) -> one_pass.Figures | None:
        # its snapshot's pass first, if it has one, on this very read of the variable
        snapshots.observe(var, looked=False, value=value)
        return snapshots.version_figures(key, storage, value)

    return _record(
        key,
        storage,
        lambda: _name(var),
        lambda: variable_views.read_value(var),
        stop,
        frames,
        start,
        scope,
        measured,
    )


def observe_watched(key: tuple, tensor: Any, looked: bool) -> Record | None:
    """The same for a tensor a watch expression gives (a new tensor at each stop: tracked
    by the expression and the function it is evaluated in, ``key``)."""
    if not looked and not _records:
        return None
    stop = snapshots.current_stop()
    if stop == 0:
        with _lock:
            return _records.get(key)
    if not looked:
        done, record = _done(key, None, stop)
        if done:
            return record
    # frames None: a debugger stop's labels, their sources read once per stop (``labels``)
    if _records and _caught_up != stop:
        _catch_up(stop)

    def measured(value: Any) -> one_pass.Figures | None:
        snapshots.observe_watched(key, value, looked=False)
        return snapshots.version_figures(key, None, value)

    return _record(
        key, None, lambda: str(key[-1]), lambda: tensor, stop, None, looked, None, measured
    )


def watched_record(key: tuple) -> Record | None:
    with _lock:
        return _records.get(key)


def record_now(var: Any, stop: int, scope: dict | None = None) -> Record | None:
    """Record ``var`` at an explicit ``stop`` (a notebook cell's number, with no
    debugger stopping the program); ``scope``: where the program's optimizer may be."""
    found = _key(var)
    if found is None:
        return None
    key, storage = found
    return _record_variable(var, key, storage, stop, _frames(), True, scope)


def record_of(var: Any) -> Record | None:
    found = _key(var)
    if found is None:
        return None
    with _lock:
        return _lookup(*found)


def tracking() -> bool:
    return bool(_records)


def held_bytes() -> int:
    return _held


def clear() -> None:
    global _held, _caught_up, _stop_sources
    with _lock:
        _records.clear()
        _held = 0
        _caught_up = 0
        _stop_sources = None
