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
import os
import re
import sys
import weakref
from collections.abc import Callable
from types import FrameType
from typing import Any

from ..core import notebook_cells
from ..core.patching import patch_once
from ..core.settings import env_bytes
from . import compiled as compiled_capture
from . import none_reasons
from .figures import Figures, figures_of, nbytes, norm_of
from .records import HISTORY, GradientRecord, SourceRecord, TapeRecord, lock

__all__ = ["HISTORY", "GradientRecord", "SourceRecord", "TapeRecord", "norm_of"]

# Default memory for retained gradient values: every gradient of a model up to ~16M
# float32 parameters stays viewable; beyond, the figures are kept and the values dropped.
DEFAULT_BUDGET_MB = 64.0
BUDGET_VARIABLE = "TF_DEBUG_REPR_GRADIENT_BUDGET_MB"
_THIS_FILE = __file__  # the hooks' frames, skipped when naming who asked
# Frames of these libraries are skipped when naming the line that asked for a gradient,
# and the plugin's own: its wrapper of AutoGraph's converted_call sits in traced calls, and
# its wrapper of a Keras train_step (gradients/activations.py) in a step run eagerly
# (word2vec's fit named "loss at activations.py:1058" before).
_LIBRARY_PARTS = re.compile(r"[/\\](tensorflow|keras|tf_keras|tf_debug_repr)[/\\]")


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
_lock = lock  # every registry and record change happens under it
_events = itertools.count(1)  # orders records (symbolic vs eager); never shown as a step
# id(source) -> (weak reference to the source, its record); the tf.Variable inside a
# Keras variable gets an entry too, so either finds the record.
_entries: dict[int, tuple[weakref.ref, SourceRecord]] = {}
_tapes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # tape -> TapeRecord
# (call site, replica) -> tape.gradient calls made there: a training loop makes a fresh
# tape each step (whose own count is always 1), while this count tells step 1 from step 5.
_site_calls: dict[tuple[str, int | None], int] = {}
_retained_bytes = 0  # bytes of gradient values held by all records
# kind of failure -> the first message; written to stderr once, shown by the views.
failures: dict[str, str] = {}


def _budget_from_env() -> int:
    return env_bytes(
        BUDGET_VARIABLE,
        DEFAULT_BUDGET_MB,
        lambda text: _report_failure(
            "budget", ValueError(f"{BUDGET_VARIABLE}={text!r} is not a number")
        ),
    )


_budget_bytes = 0  # set below, once _report_failure exists


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
        for name in ("keras", "tf_keras"):
            if name in sys.modules:
                install_keras_hooks(sys.modules[name])


def set_auto(on: bool) -> None:
    """In "auto" mode only: recording on (a debugger client, ``%load_ext``) or paused
    (``%unload_ext`` with no client), the mode left as it is; the user's switch ("on",
    "off") is not overridden."""
    global _enabled
    if _mode == "auto":
        _enabled = bool(on)


def enabled() -> bool:
    return _enabled


def mode() -> str:
    """ "on", "off" or "auto" (wait for a debugger client; activation decides when)."""
    return _mode


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
    """The record of a variable, a Keras variable (or the tf.Variable inside), or a tensor,
    with the compiled steps run since the last look recorded first."""
    _sync_compiled((obj,))
    return _lookup(obj)


def one_look(request: Any = None) -> Any:
    """A context in which each compiled site's counter is read once, however many records
    are asked for (a model's ``Δ since last stop`` row asks for each of its weights': a
    ResNet-50's 320 reads were 17% of expanding it). For one request: a suspended program
    runs no step meanwhile. ``request``: the debugger's request being answered, whose
    blocks share one look (``compiled.one_look``)."""
    return compiled_capture.one_look(request)


def generation() -> int:
    """A number that changes whenever any gradient record may have changed, compiled
    steps run since the last look included (their records are built when asked for)."""
    _sync_compiled(())
    return lock.generation


def records_of(objs: list) -> list[SourceRecord | None]:
    """``record_of`` for each of ``objs``, the compiled steps synced once (a model's
    global norm reads 4,000 variables' records)."""
    _sync_compiled(objs)
    return [_lookup(obj) for obj in objs]


def _sync_compiled(wanted: Any = None) -> None:
    """Compiled steps' records of ``wanted`` (each site's counter read; a weight's record
    built only when asked for: ``compiled_capture.sync``); every weight's where None (an
    eager step: what compiled steps ran before it is recorded before it)."""
    try:
        compiled_capture.sync(store_compiled, wanted)
    except Exception as exc:
        _report_failure("compiled steps", exc)


def _lookup(obj: Any) -> SourceRecord | None:
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
        _site_calls.clear()
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
    record = _lookup(source)
    if record is not None:
        return record
    record = SourceRecord(name=_name_of(source))
    for obj in (source, getattr(source, "_value", None)):
        if obj is None or not _weakrefable(obj):
            continue
        key = id(obj)
        ref = weakref.ref(obj, lambda r, key=key: _forget(key, r))  # type: ignore[misc]
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
    """The first frame outside this module (it holds the target's name), and the first
    outside TensorFlow and Keras too (the program's own line)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == _THIS_FILE:
        frame = frame.f_back
    immediate = frame
    while frame is not None and _LIBRARY_PARTS.search(frame.f_code.co_filename):
        frame = frame.f_back
    return immediate, frame or immediate


def _trace_site() -> str:
    """Where a traced ``tape.gradient`` was called: AutoGraph runs a converted copy of the
    function from a generated module; its name is the function's (``tf__train_step``)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if "__autograph_generated" in name:
            return _autograph_origin(frame) or frame.f_code.co_name.removeprefix("tf__")
        if name != _THIS_FILE and not _LIBRARY_PARTS.search(name):
            return _site(frame)
        frame = frame.f_back
    return "?"


def _autograph_origin(frame: FrameType) -> str | None:
    """The user's own line a frame of AutoGraph's generated code runs: AutoGraph's
    ``converted_call`` (the caller) holds the converted function, whose source map takes
    (generated file, line) to the original."""
    try:
        converted = frame.f_back.f_locals.get("converted_f") if frame.f_back else None
        source_map = getattr(converted, "ag_source_map", None) or {}
        origin = source_map.get((frame.f_code.co_filename, frame.f_lineno))
        loc = getattr(origin, "loc", None)
        if loc is None:
            return None
        return notebook_cells.site_text(str(loc.filename), int(loc.lineno))
    except Exception:
        return None


def _in_function_trace() -> bool:
    """A ``tf.function`` being traced (a FuncGraph), not a Keras symbolic build or a v1
    graph: only there do ops added run with the step."""
    import tensorflow as tf

    graph = tf.compat.v1.get_default_graph()
    if not any(cls.__name__ == "FuncGraph" for cls in type(graph).__mro__):
        return False
    # tf.data traces its functions too (``Dataset_map_fn``): they run apart from the step.
    return not str(getattr(graph, "name", "")).startswith(("Dataset_", "keras_graph"))


def _site(frame: Any) -> str:
    """``train.py:10``, or ``cell [4], line 10`` for a notebook cell."""
    if frame is None:
        return "?"
    return notebook_cells.site_text(frame.f_code.co_filename, frame.f_lineno)


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
    # The public API: the private ``distribute_lib.has_strategy`` exists only from TF 2.13
    # (it lived in ``distribution_strategy_context`` before), and capture runs on every TF.
    import tensorflow as tf

    if not tf.distribute.has_strategy():
        return None
    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync <= 1:
        return None
    replica = getattr(context, "_replica_id_in_sync_group", None)
    return replica if isinstance(replica, int) else None


# TF's own methods that call ``tape.gradient`` once per row of their result, from a
# ``loop_fn`` that pfor traces (or a while loop runs): those gradients are rows of a jacobian,
# not the program's gradients of its target.
_JACOBIANS = ("jacobian", "batch_jacobian")
_BACKPROP = os.path.join("eager", "backprop.py")
_STACK_LOOKED = 400  # frames: a pfor trace of loop_fn sits deep under jacobian


def _inside_jacobian() -> bool:
    """Is this ``tape.gradient`` one that ``GradientTape.jacobian`` or ``batch_jacobian``
    takes (TF's advanced-autodiff guide: one row's gradient read as the weight's, at
    ``control_flow_ops.py``; and capture ops in pfor's loop body)?"""
    frame: FrameType | None = sys._getframe(2)
    for _ in range(_STACK_LOOKED):
        if frame is None:
            return False
        code = frame.f_code
        if code.co_name in _JACOBIANS and code.co_filename.endswith(_BACKPROP):
            return True
        frame = frame.f_back
    return False


def on_tape_gradient(tape: Any, target: Any, sources: Any, result: Any) -> None:
    """Called after ``tape.gradient`` returned ``result`` for ``sources``."""
    if _inside_jacobian():
        return
    flat_sources = _flatten(sources)
    flat_grads = _flatten(result)
    if len(flat_sources) != len(flat_grads):
        return
    if not _executing_eagerly():
        _note_symbolic(flat_sources, "GradientTape.gradient")
        if _in_function_trace():
            _guarded(
                "compiled step",
                compiled_capture.capture_tape,
                _trace_site(),
                flat_grads,
                flat_sources,
                _budget_bytes,
            )
        return
    _sync_compiled()  # compiled steps run before this one are recorded before it
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
        _site_calls[where] = site_call = _site_calls.get(where, 0) + 1
        info.target = target_name
        watched = list(info.watched)
    all_none = all(g is None for g in flat_grads)
    last: list[tuple[str, Any, Any, str | None, Any]] = []
    for source, grad in zip(flat_sources, flat_grads):
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
            dropped = _store(
                owner, record, grad, reason, "GradientTape.gradient", measured, call, site_call
            )
        if dropped:
            _add_figures(record, grad, measured[0])
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
        return norm_of(grad), ref, nbytes(grad), None
    except Exception as exc:
        return None, ref, nbytes(grad), f"norm: {_report_failure('norm', exc)}"


def _store(
    source: SourceRecord,
    record: GradientRecord,
    grad: Any,
    reason: str | None,
    origin: str,
    measured: tuple[Any, Any, int, str | None],
    tape_call: int = 0,
    site_call: int = 0,
) -> bool:
    """Put one new gradient into ``record``. Under ``_lock``. True when its values did
    not fit the budget: the caller then adds its figures (outside the lock)."""
    norm, ref, nbytes, problem = measured
    record.count += 1
    record.event = next(_events)
    record.reason = reason
    record.origin = origin
    record.applied_by = record.optimizer_name = record._iteration = None
    record.applied = None
    record.tape_call = tape_call
    record.site_call = site_call
    record.problem = problem
    record._norm = norm
    record.norm_sampled = None
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
    source.latest = record
    source.symbolic_in = None
    if grad is not None:
        record.history.append((record.count, record.label, norm))
    return record.not_kept is not None


def _add_figures(record: GradientRecord, grad: Any, norm: Any) -> None:
    """Figures of a gradient whose values were not kept: computed outside the lock, set
    only if no newer gradient replaced it meanwhile."""
    event = record.event
    figures = _figures_guarded(grad, norm, record)
    with _lock:
        if record.event == event:
            record.figures = figures


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
        f"({_retained_bytes / mib:,.1f} MiB held). Raise it: put "
        + notebook_cells.setting(
            f"{BUDGET_VARIABLE}={max(2 * _budget_bytes, _retained_bytes + nbytes) // mib + 1}"
        )
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
    from ..core import tf_compat

    tape_recording = tf_compat.tape_recording()

    counter = getattr(getattr(optimizer, "_iterations", None), "value", None)
    with tape_recording.stop_recording():  # never on a tape the program holds open
        if (
            counter is not None
            and type(counter).__name__ == "ResourceVariable"
            and not getattr(optimizer, "gradient_accumulation_steps", None)
        ):
            # One raw read op: Keras's own conversion path costs several times more.
            from tensorflow.python.ops import gen_resource_variable_ops

            return gen_resource_variable_ops.read_variable_op(counter.handle, counter.dtype)
        iterations = getattr(optimizer, "iterations", None)
        if iterations is None:
            return None
        import tensorflow as tf

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
    _sync_compiled()
    replica = _replica()
    where: tuple[str, int | None] | None = None
    target = f"gradients passed to {name}.apply"
    for grad, var in zip(grads, variables):
        if not _weakrefable(var):
            continue
        with _lock:
            source = _source_record(var)
            record = _tape_gradient_applied(source, grad, replica)
            if record is not None:
                _mark_applied(record, optimizer, name, iteration)
                changed = grad is not None and not record.returned(grad)
                # The tape's gradient of this step, changed before applying: keep both.
                if changed and _reserve_more(record, nbytes(grad)):
                    record.applied = grad
                continue
        if where is None:
            immediate, user = _callers()
            where = (_site(user), replica)
        measured = _measure(grad)
        with _lock:
            record = _target_record(source, where, target)
            dropped = _store(source, record, grad, None, f"{name}.apply", measured)
            _mark_applied(record, optimizer, name, iteration)
        if dropped:
            _add_figures(record, grad, measured[0])


def store_compiled(
    variable: Any,
    optimizer: Any,
    name: str,
    history: list[tuple[int, Any, bool]],
    gradient: Callable[[], Any] | None,
    figures: Figures | None = None,
    skipped: int = 0,
) -> None:
    """Steps a compiled ``apply`` (or a traced ``tape.gradient``: ``optimizer`` None,
    steps numbered by runs) ran, see ``compiled_capture``: their norms as history
    (``sampled``: estimated), the last one's values (a function giving them when first
    read; None past the budget: its norm stays); ``skipped``: steps before these that
    the ring no longer held (counted, so that the history's numbers stay the runs')."""
    if not _weakrefable(variable) or not history:
        return
    with _lock:
        source = _source_record(variable)
        if optimizer is None:  # labelled as eager calls are: call #5 at train.py:42
            where = name.removeprefix(compiled_capture.TAPE_SITE)
            record = _target_record(source, (where, None), "the target")
            record.applied_by = record.optimizer_name = None
            record.origin = f"{name}, in a compiled tf.function"
        else:
            record = _target_record(source, ("", None), f"gradients passed to {name}.apply")
            record.applied_by = name
            record.optimizer_name = getattr(optimizer, "name", None)
            record.origin = f"{name}.apply in a compiled tf.function"
        record.count += skipped
        for step, norm, sampled in history:
            record.count += 1
            label = (
                f"call #{step} at {record.site}"
                if optimizer is None
                else f"{record.optimizer} iteration {step}"
            )
            record.history.append((record.count, label + (" ~" if sampled else ""), norm))
        record.event = next(_events)
        record.reason = record.problem = record.applied = None
        record.figures = figures
        last = history[-1]
        record.tape_call = 0  # each run is a fresh tape: its runs are the count
        record.site_call = last[0] if optimizer is None else 0
        record._iteration = None if optimizer is None else last[0]
        record._norm = last[1]
        record.norm_sampled = compiled_capture.sample_note(variable) if last[2] else None
        record._identity = None
        if gradient is not None:
            record.set_pending(gradient)  # computed when a row shows the values
        else:
            record.gradient = None
        record.not_kept = None if gradient is not None else _compiled_not_kept_text()
        source.latest = record
        source.symbolic_in = None


def _compiled_not_kept_text() -> str:
    return (
        "values not kept: compiled steps keep gradient values while they fit the "
        f"{_budget_bytes / (1 << 20):,.0f} MiB budget (raise it: put "
        + notebook_cells.setting(f"{BUDGET_VARIABLE}=<MiB>")
        + "); each step's norm is kept"
    )


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

    def wrap_gradient(original: Callable[..., Any]) -> Callable[..., Any]:
        def gradient(self, target, sources, *args, **kwargs):
            result = original(self, target, sources, *args, **kwargs)
            if _enabled:
                _guarded("gradient", on_tape_gradient, self, target, sources, result)
            return result

        return gradient

    def wrap_watch(original: Callable[..., Any]) -> Callable[..., Any]:
        def watch(self, tensor):
            result = original(self, tensor)
            if _enabled:
                _guarded("watch", on_watch, self, tensor)
            return result

        return watch

    patch_once(cls, "gradient", wrap_gradient)
    patch_once(cls, "watch", wrap_watch)
    return True


def install_keras_hooks(keras: Any) -> bool:
    """Wrap the optimizers' update: Keras 3's ``apply`` (``apply_gradients`` goes through
    it); Keras 2's ``apply_gradients``, both families (``keras`` 2.13-2.15 or ``tf_keras``,
    whichever module ``keras`` is). False when there is nothing to wrap."""
    if not _enabled:
        return False
    root = getattr(keras, "__name__", "keras").split(".")[0]
    if root == "tf_keras":
        return _install_keras2_hooks(root)
    try:
        from keras.src.optimizers import base_optimizer
    except ImportError:
        return _install_keras2_hooks(root)
    # Keras 2.13-2.15 have keras.src.optimizers too, without BaseOptimizer (AttributeError).
    cls = getattr(base_optimizer, "BaseOptimizer", None)
    if cls is None:
        return _install_keras2_hooks(root)

    def wrap(original_apply: Callable[..., Any]) -> Callable[..., Any]:
        def apply(self, grads, trainable_variables=None):
            iteration = _guarded("iteration", iteration_before, self) if _enabled else None
            keep_values = None
            if _enabled and not _executing_eagerly():
                keep_values = _guarded(
                    "compiled step",
                    compiled_capture.capture,
                    self,
                    grads,
                    trainable_variables,
                    _budget_bytes,
                )
            result = original_apply(self, grads, trainable_variables)
            if keep_values is not None:
                _guarded("compiled step", keep_values)
            if _enabled:
                _guarded(
                    "optimizer", on_optimizer_apply, self, grads, trainable_variables, iteration
                )
            return result

        return apply

    patch_once(cls, "apply", wrap)
    try:  # layer outputs and the batch, from the same steps (gradients/activations.py)
        from . import activations

        activations.install(keras, enabled)
    except Exception as exc:
        _report_failure("activations", exc)
    return True


# Keras 2's two optimizer families: (modules under <root>.src, the first found wins; class
# whose apply_gradients the program calls). The new family's Optimizer overrides
# _BaseOptimizer's and calls it: wrapping only the subclass records each update once.
# Keras 2.9-2.10 had them as optimizer_experimental.optimizer and optimizer_v2.optimizer_v2.
_KERAS2_OPTIMIZERS = (
    (("optimizers.optimizer", "optimizers.optimizer_experimental.optimizer"), "Optimizer"),
    (("optimizers.legacy.optimizer_v2", "optimizers.optimizer_v2.optimizer_v2"), "OptimizerV2"),
)


def _install_keras2_hooks(root: str) -> bool:
    import importlib

    installed = False
    for module_names, class_name in _KERAS2_OPTIMIZERS:
        cls = None
        for module_name, prefix in (
            (m, p)
            for m in module_names
            for p in (f"{root}.src", root)  # <= 2.12: no src/
        ):
            try:
                cls = getattr(importlib.import_module(f"{prefix}.{module_name}"), class_name)
                break
            except (ImportError, AttributeError):
                continue
        if cls is not None:
            _wrap_apply_gradients(cls)
            installed = True
    try:  # layer outputs from the same steps (gradients/activations.py)
        from . import activations

        activations.install_keras2(root, enabled)
    except Exception as exc:
        _report_failure("activations", exc)
    return installed


def _wrap_apply_gradients(cls: type) -> None:
    """Keras 2's ``apply_gradients(grads_and_vars, ...)``: the same records and labels
    (``Adam iteration N``) as Keras 3's ``apply``, in eager and in compiled steps."""
    if "apply_gradients" not in cls.__dict__:  # inherited: wrapped where it is defined
        return

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        def apply_gradients(self, grads_and_vars, *args, **kwargs):
            if not _enabled:
                return original(self, grads_and_vars, *args, **kwargs)
            pairs = list(grads_and_vars)  # often a zip: read once, handed on as a list
            grads = [grad for grad, _ in pairs]
            variables = [var for _, var in pairs]
            iteration = _guarded("iteration", iteration_before, self)
            keep_values = None
            if not _executing_eagerly():  # fit, a tf.function step: as Keras 3's apply does
                keep_values = _guarded(
                    "compiled step",
                    compiled_capture.capture,
                    self,
                    grads,
                    variables,
                    _budget_bytes,
                )
            result = original(self, pairs, *args, **kwargs)
            if keep_values is not None:
                _guarded("compiled step", keep_values)
            _guarded("optimizer", on_optimizer_apply, self, grads, variables, iteration)
            return result

        return apply_gradients

    patch_once(cls, "apply_gradients", wrap)
