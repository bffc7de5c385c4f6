"""Record the gradients a program computes, so the debugger can show them on the variables.

Installed when the program imports TensorFlow (and Keras): ``GradientTape.gradient``,
``GradientTape.watch`` and the Keras 3 optimizer's ``apply`` are wrapped. The wrappers
call the original first and only then look at what came back; they never call
``gradient`` themselves, never record on a tape and never add ops to a graph.

What is kept, per source (variable or watched tensor) and per target (the place in the
program that asked for the gradient, and the replica under ``tf.distribute``): the
latest gradient, what labels it (the tape's own call count; the optimizer's
``iterations`` when one applied it), its norm and a bounded history of norms. Sources
are held through weak references, keyed by ``id()`` (Keras variables and EagerTensors
are unhashable), so a variable the program drops takes its records with it.

Retained gradient values stay within a memory budget (``TF_DEBUG_REPR_GRADIENT_BUDGET_MB``,
default ``DEFAULT_BUDGET_MB``); beyond it only figures are kept (norm, range, mean/std,
NaN/Inf counts). Gradients computed while a ``tf.function`` is traced are symbolic:
only the fact is recorded, never the tensor. Hooks may run on several threads at once
(eager ``MirroredStrategy`` runs each replica on its own): the registry changes under
one lock. A capture failure is written to stderr once per kind and shown in the views.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import sys
import threading
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import none_reasons

HISTORY = 64  # norms kept per source and target
# Default memory for retained gradient values: every gradient of a model up to ~16M
# float32 parameters stays viewable; beyond, the figures are kept and the values dropped.
DEFAULT_BUDGET_MB = 64.0
BUDGET_VARIABLE = "TF_DEBUG_REPR_GRADIENT_BUDGET_MB"
SAMPLE = 1 << 16  # elements kept to describe a gradient whose values are not kept
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# Frames of these libraries are skipped when naming the line that asked for a gradient.
_LIBRARY_PARTS = re.compile(r"[/\\](tensorflow|keras|tf_keras)[/\\]")

_enabled = os.environ.get("TF_DEBUG_REPR_GRADIENTS", "1").strip().lower() not in (
    "0",
    "false",
    "no",
    "off",
)
# Re-entrant: a weak-reference callback (``_forget``) may run inside a locked region
# when a garbage collection happens there.
_lock = threading.RLock()
_events = itertools.count(1)  # orders records (symbolic vs eager); never shown as a step
# id(source) -> (weak reference to the source, its record); the tf.Variable inside a
# Keras variable gets an entry too, so either finds the record.
_entries: dict[int, tuple[weakref.ref, SourceRecord]] = {}
_tapes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # tape -> TapeRecord
_retained_bytes = 0  # bytes of gradient values held by all records
# kind of failure -> the first message; written to stderr once, shown by the views.
failures: dict[str, str] = {}


def _budget_from_env() -> int:
    text = os.environ.get(BUDGET_VARIABLE, "").strip()
    try:
        mib = float(text) if text else DEFAULT_BUDGET_MB
    except ValueError:
        _report_failure("budget", ValueError(f"{BUDGET_VARIABLE}={text!r} is not a number"))
        mib = DEFAULT_BUDGET_MB
    return max(0, int(mib * (1 << 20)))


_budget_bytes = 0  # set below, once _report_failure exists


@dataclass
class Figures:
    """What is kept of a gradient whose values are not: its figures, computed at capture.

    ``values`` holds min, max, mean, std, NaN, +Inf, -Inf (a host array, or a device
    tensor read only when shown, so a GPU step never waits for it).
    """

    size: int
    values: Any
    stride: int  # min/max/mean/std from every ``stride``-th element; the counts are exact

    def stats(self) -> Any:
        from . import stats

        raw = self.values if isinstance(self.values, np.ndarray) else self.values.numpy()
        lo, hi, mean, std, nan, pos, neg = (float(v) for v in np.asarray(raw, np.float64))
        sampled = self.stride > 1
        return stats.Stats(
            size=self.size,
            category="float",
            min=lo if math.isfinite(lo) else None,
            max=hi if math.isfinite(hi) else None,
            mean=mean if math.isfinite(mean) else None,
            std=std if math.isfinite(std) else None,
            nan=int(nan),
            posinf=int(pos),
            neginf=int(neg),
            moments_sample=(self.size + self.stride - 1) // self.stride if sampled else None,
            moments_stride=self.stride,
            extremes_sampled=sampled,
            extremes_stride=self.stride,
        )


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
    origin: str = "GradientTape.gradient"
    applied_by: str | None = None  # the optimizer that applied it, if seen
    optimizer_name: str | None = None  # its ``name`` ("adam_1")
    _iteration: Any = None  # the optimizer's ``iterations`` when it applied the gradient
    gradient: Any = None  # eager tensor / IndexedSlices, or None
    reason: str | None = None  # why the gradient is None, when it is
    not_kept: str | None = None  # why the values were dropped (figures kept instead)
    figures: Figures | None = None
    applied: Any = None  # what the optimizer got, when it differs from ``gradient``
    problem: str | None = None  # a part of the capture that failed for this gradient
    _norm: Any = None
    _identity: Any = None  # weak reference to the gradient object the tape returned
    kept_bytes: int = 0
    history: deque = field(default_factory=lambda: deque(maxlen=HISTORY))  # (count, label, norm)

    @property
    def norm(self) -> float | None:
        return _as_float(self._norm)

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
        return _label(self.applied_by, self.iteration, self.tape_call, self.origin)

    @property
    def short_target(self) -> str:
        """``loss`` (``loss (replica 1)`` under tf.distribute)."""
        return self.target + (f" (replica {self.replica})" if self.replica is not None else "")

    @property
    def has_value(self) -> bool:
        return self.gradient is not None or self.not_kept is not None

    def norms(self) -> list[tuple[int, str, float | None]]:
        return [(n, label, _as_float(value)) for n, label, value in self.history]

    def returned(self, tensor: Any) -> bool:
        """Is ``tensor`` the gradient object recorded here (kept or not)?"""
        if tensor is None:
            return False
        if self.gradient is tensor:
            return True
        ref = self._identity
        return ref is not None and ref() is tensor


def _label(applied_by: str | None, iteration: int | None, tape_call: int, origin: str) -> str:
    if applied_by and iteration is not None:
        return f"{applied_by} iteration {iteration}"
    if tape_call:
        return f"tape call #{tape_call}"
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
        return [] if self.latest is None else self.latest.norms()

    @property
    def symbolic_now(self) -> bool:
        """Its latest gradient came from a trace (no value), not an eager call."""
        return bool(self.symbolic_in) and self.symbolic_event >= self._latest("event", 0)

    def all_targets(self) -> list[GradientRecord]:
        with _lock:
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


# --------------------------------------------------------------------------- switch


def set_enabled(on: bool) -> None:
    """Off: the wrappers pass straight through. On: hooks are installed if the program
    started with capture off and has already imported TensorFlow / Keras."""
    global _enabled
    _enabled = bool(on)
    if _enabled:
        if "tensorflow" in sys.modules:
            install_tape_hooks(sys.modules["tensorflow"])
        if "keras" in sys.modules:
            install_keras_hooks(sys.modules["keras"])


def enabled() -> bool:
    return _enabled


# --------------------------------------------------------------------------- budget


def budget_bytes() -> int:
    return _budget_bytes


def set_budget_mb(mib: float | None) -> None:
    """Memory for retained gradient values, in MiB (None: the environment's or the
    default). Applies to gradients recorded from now on."""
    global _budget_bytes
    _budget_bytes = _budget_from_env() if mib is None else max(0, int(mib * (1 << 20)))


def retained_bytes() -> int:
    return _retained_bytes


def _nbytes(gradient: Any) -> int:
    total = 0
    for part in _parts(gradient):
        try:
            total += int(part.shape.num_elements() or 0) * int(part.dtype.size)
        except Exception:
            continue
    return total


def _parts(gradient: Any) -> list:
    """The tensors a gradient holds (IndexedSlices: values and indices)."""
    parts = []
    for attr in ("values", "indices", "dense_shape"):
        inner = getattr(gradient, attr, None)
        if inner is not None and not callable(inner) and hasattr(inner, "shape"):
            parts.append(inner)
    return parts or [gradient]


def _reserve(record: GradientRecord, need: int) -> bool:
    """Hold ``need`` bytes for ``record`` in place of what it held. Under ``_lock``."""
    global _retained_bytes
    _retained_bytes -= record.kept_bytes
    record.kept_bytes = 0
    if _retained_bytes + need > _budget_bytes:
        return False
    _retained_bytes += need
    record.kept_bytes = need
    return True


# --------------------------------------------------------------------------- failures


def _report_failure(kind: str, exc: BaseException) -> str:
    """Remember a capture failure; the first of each kind also goes to stderr."""
    message = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    with _lock:
        first = kind not in failures
        if first:
            failures[kind] = message
    if first:
        try:
            sys.stderr.write(
                f"tf-debug-repr: gradient capture ({kind}) failed: {message}"
                " (reported once; training is not affected)\n"
            )
        except Exception:
            pass
    return message


def failure_note() -> str | None:
    """One line on capture failures so far, for the views; None when there were none."""
    if not failures:
        return None
    return "; ".join(f"{kind}: {message}" for kind, message in list(failures.items()))


_budget_bytes = _budget_from_env()


# --------------------------------------------------------------------------- lookup


def record_of(obj: Any) -> SourceRecord | None:
    """The record of a variable, a Keras variable (or the tf.Variable inside), or a tensor."""
    for candidate in (obj, getattr(obj, "_value", None)):
        if candidate is None:
            continue
        entry = _entries.get(id(candidate))
        if entry is not None and entry[0]() is candidate:
            return entry[1]
    return None


def tape_record(tape: Any) -> TapeRecord | None:
    try:
        with _lock:
            return _tapes.get(tape)
    except TypeError:
        return None


def live_records() -> int:
    with _lock:
        return len({id(record) for _, record in _entries.values()})


def clear() -> None:
    global _retained_bytes
    with _lock:
        _entries.clear()
        _tapes.clear()
        _retained_bytes = 0


def _forget(key: int, ref: weakref.ref) -> None:
    global _retained_bytes
    with _lock:
        entry = _entries.get(key)
        if entry is None or entry[0] is not ref:
            return
        del _entries[key]
        record = entry[1]
        record.keys -= 1
        if record.keys <= 0:  # no entry left: give its bytes back to the budget
            for target in record.targets.values():
                _retained_bytes -= target.kept_bytes
                target.kept_bytes = 0


def _source_record(source: Any) -> SourceRecord:
    """The source's record, made on first use. Under ``_lock``."""
    record = record_of(source)
    if record is not None:
        return record
    record = SourceRecord(name=_name_of(source))
    for obj in (source, getattr(source, "_value", None)):
        if obj is None or not _weakrefable(obj):
            continue
        key = id(obj)
        ref = weakref.ref(obj, lambda r, key=key: _forget(key, r))
        _entries[key] = (ref, record)
        record.keys += 1
    return record


def _target_record(
    source: SourceRecord, where: tuple[str, int | None], target: str
) -> GradientRecord:
    """The source's record for one target (the call site, the target's name there, the
    replica), made on first use. Under ``_lock``."""
    key = (where[0], target, where[1])
    record = source.targets.get(key)
    if record is None:
        record = GradientRecord(name=source.name, target=target, site=where[0], replica=where[1])
        source.targets[key] = record
    return record


def _weakrefable(obj: Any) -> bool:
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False


def _name_of(source: Any) -> str:
    for attr in ("path", "name"):
        try:
            value = getattr(source, attr, None)
        except Exception:
            value = None
        if isinstance(value, str) and value:
            return value
    try:
        return f"{type(source).__name__} {source.dtype.name}{list(source.shape)}"
    except Exception:
        return type(source).__name__


# --------------------------------------------------------------------------- figures


def _as_float(value: Any) -> float | None:
    if value is None or isinstance(value, float):
        return value
    try:
        return float(value.numpy())  # a scalar left on an accelerator until asked for
    except Exception:
        return None


def _dense_part(gradient: Any) -> Any:
    """The tensor holding a gradient's values (IndexedSlices and ragged ones included)."""
    for attr in ("values", "flat_values"):
        inner = getattr(gradient, attr, None)
        if inner is not None and not callable(inner):
            return _dense_part(inner)
    return gradient


def _on_host(tensor: Any) -> bool:
    device = getattr(tensor, "device", "") or ""
    return "GPU" not in device and "TPU" not in device


def _host_floats(tensor: Any) -> np.ndarray:
    """A flat float array of a CPU tensor's values (zero-copy for float32/float64)."""
    array = np.asarray(tensor._numpy()).reshape(-1)
    if array.dtype.kind == "c":
        return np.abs(array)
    if array.dtype.kind != "f" or array.dtype.itemsize < 4:
        return array.astype(np.float32)
    return array


def norm_of(gradient: Any) -> Any:
    """The L2 norm: a float for host tensors (zero-copy numpy), a device scalar otherwise,
    so a GPU step never waits for it. IndexedSlices: the norm of their values."""
    tensor = _dense_part(gradient)
    if _on_host(tensor):
        array = _host_floats(tensor)
        with np.errstate(all="ignore"):
            return math.sqrt(float(np.dot(array, array)))
    import tensorflow as tf
    from tensorflow.python.eager import record as tape_recording

    with tf.init_scope(), tape_recording.stop_recording(), tf.device(tensor.device):
        return tf.norm(tf.cast(tf.reshape(tensor, [-1]), tf.float32))


def figures_of(gradient: Any, norm: float | None) -> Figures:
    """Figures of a gradient that will not be kept, in one cheap pass at most.

    Min/max/mean/std come from a strided sample of at most ``SAMPLE`` elements (the
    norm, already computed, is exact); NaN/Inf counts are exact: zero when the norm is
    finite (one NaN or Inf makes it so), counted otherwise.
    """
    tensor = _dense_part(gradient)
    size = int(tensor.shape.num_elements() or 0)
    stride = max(1, -(-size // SAMPLE))
    known_clean = _finite(norm)
    if _on_host(tensor):
        array = _host_floats(tensor)
        sample = array[::stride]
        counts = [0.0, 0.0, 0.0]
        if not known_clean:
            counts = [
                float(np.count_nonzero(np.isnan(array))),
                float(np.count_nonzero(array == np.inf)),
                float(np.count_nonzero(array == -np.inf)),
            ]
            sample = sample[np.isfinite(sample)]
        with np.errstate(all="ignore"):
            wide = sample.astype(np.float64)
            moments = (
                [wide.min(), wide.max(), wide.mean(), wide.std()] if wide.size else [np.nan] * 4
            )
        return Figures(size, np.array(moments + counts), stride)
    return Figures(size, _device_figures(tensor, stride), stride)


def _finite(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def _device_figures(tensor: Any, stride: int) -> Any:
    """The same figures reduced on the tensor's device; a tensor read only when shown."""
    import tensorflow as tf
    from tensorflow.python.eager import record as tape_recording

    with tf.init_scope(), tape_recording.stop_recording(), tf.device(tensor.device):
        flat = tf.reshape(tensor, [-1])
        if tensor.dtype.is_complex:
            flat = tf.abs(flat)
        flat = tf.cast(flat, tf.float32)
        sample = flat[::stride]
        finite = tf.math.is_finite(sample)
        clean = tf.boolean_mask(sample, finite)
        inf = tf.constant(np.inf, tf.float32)
        return tf.stack(
            [
                tf.reduce_min(clean),
                tf.reduce_max(clean),
                tf.reduce_mean(clean),
                tf.math.reduce_std(clean),
                tf.reduce_sum(tf.cast(tf.math.is_nan(flat), tf.float32)),
                tf.reduce_sum(tf.cast(tf.equal(flat, inf), tf.float32)),
                tf.reduce_sum(tf.cast(tf.equal(flat, -inf), tf.float32)),
            ]
        )


# --------------------------------------------------------------------------- capture


def _flatten(structure: Any) -> list:
    from tensorflow.python.util import nest

    return nest.flatten(structure)


def _executing_eagerly() -> bool:
    from tensorflow.python.eager import context

    return context.executing_eagerly()


def _graph_name() -> str:
    try:
        from tensorflow.python.framework import ops

        return str(ops.get_default_graph().name)
    except Exception:
        return "a tf.function"


def _is_variable(obj: Any) -> bool:
    return hasattr(obj, "assign") and hasattr(obj, "trainable")


def _callers() -> tuple[Any, Any]:
    """The first frame outside this package (it holds the target's name), and the first
    outside TensorFlow and Keras too (the program's own line)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    immediate = frame
    while frame is not None and _LIBRARY_PARTS.search(frame.f_code.co_filename):
        frame = frame.f_back
    return immediate, frame or immediate


def _site(frame: Any) -> str:
    if frame is None:
        return "?"
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


def _name_in(frame: Any, value: Any) -> str | None:
    """The caller's local name bound to ``value`` (``d_loss``), if there is one."""
    if frame is None or value is None:
        return None
    try:
        for name, candidate in frame.f_locals.items():
            if candidate is value and not name.startswith("_"):
                return name
    except Exception:
        return None
    return None


def _replica() -> int | None:
    """The replica id while several replicas run (tf.distribute), else None."""
    from tensorflow.python.distribute import distribute_lib

    if not distribute_lib.has_strategy():
        return None
    context = distribute_lib.get_replica_context()
    if context is None or context.num_replicas_in_sync <= 1:
        return None
    replica = getattr(context, "_replica_id_in_sync_group", None)
    return replica if isinstance(replica, int) else None


def on_tape_gradient(tape: Any, target: Any, sources: Any, result: Any) -> None:
    """Called after ``tape.gradient`` returned ``result`` for ``sources``."""
    flat_sources = _flatten(sources)
    flat_grads = _flatten(result)
    if len(flat_sources) != len(flat_grads):
        return
    if not _executing_eagerly():
        _note_symbolic(flat_sources, "GradientTape.gradient")
        return
    immediate, user = _callers()
    where = (_site(user), _replica())
    target_name = _name_in(immediate, target) or "the target"
    with _lock:
        info = _tapes.get(tape)
        if info is None:
            info = TapeRecord()
            _tapes[tape] = info
        info.calls += 1
        call = info.calls
        info.target = target_name
        watched = list(info.watched)
    all_none = all(g is None for g in flat_grads)
    last = []
    for source, grad in zip(flat_sources, flat_grads, strict=True):
        reason = None
        if grad is None:
            try:
                reason = none_reasons.explain(tape, source, target, all_none, watched)
            except Exception as exc:
                reason = f"the tape returned None (why could not be told: {exc!r})"
                _report_failure("why None", exc)
        if not _weakrefable(source):
            last.append((_name_of(source), None, grad, reason, None))
            continue
        measured = _measure(grad)
        with _lock:
            owner = _source_record(source)
            record = _target_record(owner, where, target_name)
            _store(owner, record, grad, reason, "GradientTape.gradient", measured, call)
        kept = grad if record.gradient is grad else None
        last.append((record.name, weakref.ref(source), kept, reason, record))
    with _lock:
        info.last = last


def _measure(grad: Any) -> tuple[Any, Any, int, str | None]:
    """Norm and size of a gradient, outside the lock (the costly part): (norm, grad's
    weak reference, bytes, problem)."""
    if grad is None:
        return None, None, 0, None
    ref = weakref.ref(grad) if _weakrefable(grad) else None
    try:
        return norm_of(grad), ref, _nbytes(grad), None
    except Exception as exc:
        return None, ref, _nbytes(grad), f"norm: {_report_failure('norm', exc)}"


def _store(
    source: SourceRecord,
    record: GradientRecord,
    grad: Any,
    reason: str | None,
    origin: str,
    measured: tuple[Any, Any, int, str | None],
    tape_call: int = 0,
) -> None:
    """Put one new gradient into ``record``. Under ``_lock``."""
    norm, ref, nbytes, problem = measured
    record.count += 1
    record.event = next(_events)
    record.reason = reason
    record.origin = origin
    record.applied_by = record.optimizer_name = record._iteration = None
    record.applied = None
    record.tape_call = tape_call
    record.problem = problem
    record._norm = norm
    record._identity = ref
    record.figures = None
    record.not_kept = None
    if grad is None:
        _reserve(record, 0)
        record.gradient = None
    elif _reserve(record, nbytes):
        record.gradient = grad
    else:
        record.gradient = None
        record.not_kept = _not_kept_text(nbytes)
        record.figures = _figures_guarded(grad, norm, record)
    source.latest = record
    source.symbolic_in = None
    if grad is not None:
        record.history.append((record.count, record.label, norm))


def _figures_guarded(grad: Any, norm: Any, record: GradientRecord) -> Figures | None:
    try:
        return figures_of(grad, norm if isinstance(norm, float) else None)
    except Exception as exc:
        record.problem = f"figures: {_report_failure('figures', exc)}"
        return None


def _not_kept_text(nbytes: int) -> str:
    mib = 1 << 20
    return (
        f"values not kept: this gradient ({nbytes / mib:,.1f} MiB) would take retained "
        f"gradients past the {_budget_bytes / mib:,.0f} MiB budget "
        f"({_retained_bytes / mib:,.1f} MiB held). Raise it with {BUDGET_VARIABLE}="
        f"{max(2 * _budget_bytes, _retained_bytes + nbytes) // mib + 1} in the launch "
        "configuration's env"
    )


def _label_history(record: GradientRecord) -> None:
    """Give the newest history entry the record's current label. Under ``_lock``."""
    if record.history and record.history[-1][0] == record.count:
        count, _, norm = record.history[-1]
        record.history[-1] = (count, record.label, norm)


def _note_symbolic(flat_sources: list, origin: str) -> None:
    """Inside a traced function: remember where, keep no graph tensor. An older eager
    gradient stays, shown as such: tracing happens once, the graph then runs every step."""
    graph = _graph_name()
    with _lock:
        for source in flat_sources:
            if _is_variable(source) and _weakrefable(source):
                record = _source_record(source)
                record.symbolic_in = graph
                record.symbolic_event = next(_events)
                if record.latest is not None:
                    record.latest.origin = origin


def on_watch(tape: Any, tensor: Any) -> None:
    """``tape.watch(x)``: remember the plain tensors (variables show in watched_variables)."""
    if not _executing_eagerly():
        return
    refs = [
        weakref.ref(item)
        for item in _flatten(tensor)
        if not _is_variable(item) and _weakrefable(item)
    ]
    with _lock:
        info = _tapes.get(tape)
        if info is None:
            info = TapeRecord()
            _tapes[tape] = info
        info.watched.extend(refs)


def iteration_before(optimizer: Any) -> Any:
    """The optimizer's ``iterations`` as it is before ``apply`` counts this update: a
    scalar tensor, read as a number only when shown. None inside a trace."""
    if not _executing_eagerly():
        return None
    iterations = getattr(optimizer, "iterations", None)
    if iterations is None:
        return None
    import tensorflow as tf
    from tensorflow.python.eager import record as tape_recording

    with tape_recording.stop_recording():
        return tf.convert_to_tensor(iterations)


def on_optimizer_apply(optimizer: Any, grads: Any, variables: Any, iteration: Any = None) -> None:
    """Keras ``optimizer.apply(grads, vars)``: label the tape's gradients with the
    optimizer's iteration; record gradients computed elsewhere, or changed (clipped,
    scaled) since the tape returned them."""
    if variables is None:
        variables = getattr(optimizer, "_trainable_variables", None) or []
    grads, variables = list(grads), list(variables)
    if len(grads) != len(variables):
        return
    name = type(optimizer).__name__
    if not _executing_eagerly():
        _note_symbolic(variables, f"{name}.apply")
        return
    replica = _replica()
    where: tuple[str, int | None] | None = None
    target = f"gradients passed to {name}.apply"
    for grad, var in zip(grads, variables, strict=True):
        if not _weakrefable(var):
            continue
        with _lock:
            source = _source_record(var)
            record = _tape_gradient_applied(source, grad, replica)
            if record is not None:
                _mark_applied(record, optimizer, name, iteration)
                changed = grad is not None and not record.returned(grad)
                # The tape's gradient of this step, changed before applying: keep both.
                if changed and _reserve_more(record, _nbytes(grad)):
                    record.applied = grad
                continue
        if where is None:
            immediate, user = _callers()
            where = (_site(user), replica)
        measured = _measure(grad)
        with _lock:
            record = _target_record(source, where, target)
            _store(source, record, grad, None, f"{name}.apply", measured)
            _mark_applied(record, optimizer, name, iteration)


def _tape_gradient_applied(
    source: SourceRecord, grad: Any, replica: int | None
) -> GradientRecord | None:
    """The tape's record an optimizer is applying ``grad`` from: the one that returned
    this very object, else this replica's latest tape gradient not applied yet (the
    program changed it: clipped, scaled). Under ``_lock``."""
    mine = [r for r in source.targets.values() if r.replica == replica]
    for record in mine:
        if record.applied_by is None and record.returned(grad):
            return record
    if not mine:
        return None
    latest = max(mine, key=lambda r: r.event)
    if latest.applied_by is None and latest.tape_call and latest.has_value:
        return latest
    return None


def _reserve_more(record: GradientRecord, need: int) -> bool:
    """Hold ``need`` more bytes for ``record``. Under ``_lock``."""
    global _retained_bytes
    if _retained_bytes + need > _budget_bytes:
        return False
    _retained_bytes += need
    record.kept_bytes += need
    return True


def _mark_applied(record: GradientRecord, optimizer: Any, name: str, iteration: Any) -> None:
    record.applied_by = name
    record.optimizer_name = getattr(optimizer, "name", None)
    record._iteration = iteration
    _label_history(record)


# --------------------------------------------------------------------------- install


def _guarded(hook_name: str, fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception as exc:  # capture must never break training
        _report_failure(hook_name, exc)
        return None


def install_tape_hooks(tf: Any) -> bool:
    """Wrap GradientTape.gradient and .watch (once). False when capture is turned off."""
    if not _enabled:
        return False
    from tensorflow.python.eager import backprop

    cls = backprop.GradientTape
    if getattr(cls.gradient, "_tf_debug_repr", False):
        return True
    original_gradient = cls.gradient
    original_watch = cls.watch

    def gradient(self, target, sources, *args, **kwargs):
        result = original_gradient(self, target, sources, *args, **kwargs)
        if _enabled:
            _guarded("gradient", on_tape_gradient, self, target, sources, result)
        return result

    def watch(self, tensor):
        result = original_watch(self, tensor)
        if _enabled:
            _guarded("watch", on_watch, self, tensor)
        return result

    for wrapper, original in ((gradient, original_gradient), (watch, original_watch)):
        wrapper.__wrapped__ = original
        wrapper.__doc__ = original.__doc__
        wrapper.__name__ = original.__name__
        wrapper._tf_debug_repr = True
    cls.gradient = gradient
    cls.watch = watch
    return True


def install_keras_hooks(keras: Any) -> bool:
    """Wrap the Keras 3 optimizer's ``apply`` (``apply_gradients`` goes through it)."""
    if not _enabled:
        return False
    try:
        from keras.src.optimizers import base_optimizer
    except ImportError:
        return False
    cls = base_optimizer.BaseOptimizer
    if getattr(cls.apply, "_tf_debug_repr", False):
        return True
    original_apply = cls.apply

    def apply(self, grads, trainable_variables=None):
        iteration = _guarded("iteration", iteration_before, self) if _enabled else None
        result = original_apply(self, grads, trainable_variables)
        if _enabled:
            _guarded("optimizer", on_optimizer_apply, self, grads, trainable_variables, iteration)
        return result

    apply.__wrapped__ = original_apply
    apply.__doc__ = original_apply.__doc__
    apply._tf_debug_repr = True
    cls.apply = apply
    return True
