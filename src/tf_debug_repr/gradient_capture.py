"""Record the gradients a program computes, so the debugger can show them on the variables.

Installed when the program imports TensorFlow (and Keras): ``GradientTape.gradient``,
``GradientTape.watch`` and the Keras 3 optimizer's ``apply`` are wrapped. The wrappers
call the original first and only then look at what came back; they never call
``gradient`` themselves, never record on a tape and never add ops to a graph.

What is kept: per source (variable or watched tensor), the latest gradient, the step it
came from, its norm and a bounded history of norms. Sources are held through weak
references, keyed by ``id()`` (Keras variables and EagerTensors are unhashable), so a
variable the program drops takes its record with it. Gradients computed while a
``tf.function`` is traced are symbolic: only the fact is recorded, never the tensor.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import none_reasons

HISTORY = 64  # norms kept per source


def _parse_mode(value: str | None) -> str:
    """TF_DEBUG_REPR_GRADIENTS: unset/"auto" -> "auto" (hooks installed once a debugger
    client is looking, see activation), "1"/"on" -> "on" (at TF import), "0"/"off" -> "off"."""
    value = (value or "auto").strip().lower()
    if value in ("0", "false", "no", "off"):
        return "off"
    if value in ("1", "true", "yes", "on"):
        return "on"
    return "auto"


_mode = _parse_mode(os.environ.get("TF_DEBUG_REPR_GRADIENTS"))
_enabled = _mode != "off"
_lock = threading.Lock()
_step = 0  # one per gradient computation seen (tape call, or an optimizer call with new gradients)
# id(source) -> (weak reference to the source, its record); the tf.Variable inside a
# Keras variable gets an entry too, so either finds the record.
_entries: dict[int, tuple[weakref.ref, GradientRecord]] = {}
_tapes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # tape -> TapeRecord


@dataclass
class GradientRecord:
    """What is known about the latest gradient of one source."""

    name: str
    step: int = 0
    gradient: Any = None  # eager tensor / IndexedSlices, or None
    reason: str | None = None  # why the gradient is None, when it is
    symbolic_in: str | None = None  # the graph it was last traced in, when not a value
    symbolic_step: int = 0  # the step count when that trace happened
    origin: str = "GradientTape.gradient"
    applied_by: str | None = None  # the optimizer that applied it, if seen
    applied: Any = None  # what the optimizer got, when it differs from ``gradient``
    _norm: Any = None
    history: deque = field(default_factory=lambda: deque(maxlen=HISTORY))  # (step, norm)

    @property
    def norm(self) -> float | None:
        return _as_float(self._norm)

    def norms(self) -> list[tuple[int, float | None]]:
        return [(step, _as_float(value)) for step, value in self.history]


@dataclass
class TapeRecord:
    """What a tape was asked and answered, and the plain tensors it was told to watch."""

    watched: list = field(default_factory=list)  # weak references to tensors
    calls: int = 0
    step: int = 0
    # Last call: (name, weak reference to the source or None, gradient, reason).
    last: list = field(default_factory=list)


# --------------------------------------------------------------------------- switch


def set_enabled(on: bool) -> None:
    """Off: the wrappers pass straight through. On: hooks are installed if the program
    started with capture off and has already imported TensorFlow / Keras."""
    global _enabled, _mode
    _enabled = bool(on)
    _mode = "on" if _enabled else "off"
    if _enabled:
        if "tensorflow" in sys.modules:
            install_tape_hooks(sys.modules["tensorflow"])
        if "keras" in sys.modules:
            install_keras_hooks(sys.modules["keras"])


def enabled() -> bool:
    return _enabled


def mode() -> str:
    """ "on", "off" or "auto" (wait for a debugger client; activation decides when)."""
    return _mode


# --------------------------------------------------------------------------- lookup


def record_of(obj: Any) -> GradientRecord | None:
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
        return _tapes.get(tape)
    except TypeError:
        return None


def live_records() -> int:
    return len({id(record) for _, record in _entries.values()})


def clear() -> None:
    with _lock:
        _entries.clear()
        _tapes.clear()


def _forget(key: int, ref: weakref.ref) -> None:
    entry = _entries.get(key)
    if entry is not None and entry[0] is ref:
        del _entries[key]


def _entry_for(source: Any) -> GradientRecord:
    record = record_of(source)
    if record is not None:
        return record
    record = GradientRecord(name=_name_of(source))
    for obj in (source, getattr(source, "_value", None)):
        if obj is None or not _weakrefable(obj):
            continue
        key = id(obj)
        ref = weakref.ref(obj, lambda r, key=key: _forget(key, r))
        _entries[key] = (ref, record)
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


def norm_of(gradient: Any) -> Any:
    """The L2 norm: a float for host tensors (zero-copy numpy), a device scalar otherwise,
    so a GPU step never waits for it. IndexedSlices: the norm of their values."""
    tensor = _dense_part(gradient)
    device = getattr(tensor, "device", "") or ""
    if "GPU" not in device and "TPU" not in device:
        array = np.asarray(tensor._numpy()).reshape(-1)
        if array.dtype.kind == "c":
            array = np.abs(array)
        elif array.dtype.kind != "f" or array.dtype.itemsize < 4:
            array = array.astype(np.float32)
        with np.errstate(all="ignore"):
            return math.sqrt(float(np.dot(array, array)))
    import tensorflow as tf
    from tensorflow.python.eager import record as tape_recording

    with tf.init_scope(), tape_recording.stop_recording(), tf.device(device):
        return tf.norm(tf.cast(tf.reshape(tensor, [-1]), tf.float32))


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


def on_tape_gradient(tape: Any, target: Any, sources: Any, result: Any) -> None:
    """Called after ``tape.gradient`` returned ``result`` for ``sources``."""
    global _step
    flat_sources = _flatten(sources)
    flat_grads = _flatten(result)
    if len(flat_sources) != len(flat_grads):
        return
    if not _executing_eagerly():
        _note_symbolic(flat_sources, "GradientTape.gradient")
        return
    with _lock:
        _step += 1
        step = _step
    info = tape_record(tape)
    if info is None:
        info = TapeRecord()
        _tapes[tape] = info
    info.calls += 1
    info.step = step
    all_none = all(g is None for g in flat_grads)
    last = []
    for source, grad in zip(flat_sources, flat_grads, strict=True):
        reason = None
        if grad is None:
            reason = none_reasons.explain(tape, source, target, all_none, info.watched)
        if _weakrefable(source):
            record = _entry_for(source)
            _store(record, step, grad, reason, "GradientTape.gradient")
            last.append((record.name, weakref.ref(source), grad, reason))
        else:
            last.append((_name_of(source), None, grad, reason))
    info.last = last


def _store(record: GradientRecord, step: int, grad: Any, reason: str | None, origin: str) -> None:
    norm = None if grad is None else norm_of(grad)
    record.step = step
    record.gradient = grad
    record.reason = reason
    record.symbolic_in = None
    record.origin = origin
    record.applied_by = None
    record.applied = None
    record._norm = norm
    if norm is not None:
        record.history.append((step, norm))


def _note_symbolic(flat_sources: list, origin: str) -> None:
    """Inside a traced function: remember where, keep no graph tensor. An older eager
    gradient stays, shown as such: tracing happens once, the graph then runs every step."""
    graph = _graph_name()
    for source in flat_sources:
        if _is_variable(source) and _weakrefable(source):
            record = _entry_for(source)
            record.symbolic_in = graph
            record.symbolic_step = _step
            record.origin = origin


def on_watch(tape: Any, tensor: Any) -> None:
    """``tape.watch(x)``: remember the plain tensors (variables show in watched_variables)."""
    if not _executing_eagerly():
        return
    info = tape_record(tape)
    if info is None:
        info = TapeRecord()
        _tapes[tape] = info
    for item in _flatten(tensor):
        if not _is_variable(item) and _weakrefable(item):
            info.watched.append(weakref.ref(item))


def on_optimizer_apply(optimizer: Any, grads: Any, variables: Any) -> None:
    """Keras ``optimizer.apply(grads, vars)``: gradients computed elsewhere, or changed
    (clipped, scaled) since the tape returned them."""
    global _step
    if variables is None:
        variables = getattr(optimizer, "_trainable_variables", None) or []
    grads, variables = list(grads), list(variables)
    if len(grads) != len(variables):
        return
    name = type(optimizer).__name__
    if not _executing_eagerly():
        _note_symbolic(variables, f"{name}.apply")
        return
    new_step = None
    for grad, var in zip(grads, variables, strict=True):
        if not _weakrefable(var):
            continue
        record = _entry_for(var)
        if grad is not None and record.gradient is grad:
            record.applied_by = name
            continue
        if record.gradient is not None and record.applied_by is None and record.step:
            # The tape's gradient of this step, changed before applying: keep both.
            record.applied_by = name
            record.applied = grad
            continue
        if new_step is None:
            with _lock:
                _step += 1
                new_step = _step
        _store(record, new_step, grad, None, f"{name}.apply")
        record.applied_by = name


# --------------------------------------------------------------------------- install


def _guarded(hook_name: str, fn: Any, *args: Any) -> None:
    try:
        fn(*args)
    except Exception as exc:  # capture must never break training
        if os.environ.get("TF_DEBUG_REPR_DEBUG"):
            sys.stderr.write(f"tf-debug-repr: {hook_name} capture failed: {exc!r}\n")


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
        result = original_apply(self, grads, trainable_variables)
        if _enabled:
            _guarded("optimizer", on_optimizer_apply, self, grads, trainable_variables)
        return result

    apply.__wrapped__ = original_apply
    apply.__doc__ = original_apply.__doc__
    apply._tf_debug_repr = True
    cls.apply = apply
    return True
