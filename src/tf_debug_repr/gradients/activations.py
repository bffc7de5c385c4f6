"""Layer outputs and the batch from compiled steps: what a step's layers produced, kept.

Inside a ``tf.function`` (a custom step, Keras's compiled ``fit``) a layer's output is a
graph tensor: nothing in Python sees its values. While a debugger client is attached
(gradient capture's switch: ``capture.enabled()``), a Keras layer's ``__call__`` traced
into a step adds a few ops after the layer returned: its output is written into a shadow
variable of this module's (made under ``init_scope``, never tracked by a model or a
checkpoint, off every tape). Keras's compiled step function gets the same for the batch
it was given (``train_step(data)``, after the data adapter). At a stop the views read the
shadows (``outputs_of``, ``batch_of``): bit for bit what the layer produced in the last
step that ran it. Nothing is added while no client is attached, nor to a step traced
before one attached.

Budget: ``TF_DEBUG_REPR_ACTIVATIONS_MB`` (default ``DEFAULT_BUDGET_MB``) per traced step:
each output is kept whole while the step's kept outputs so far fit (decided in the step,
the batch size being unknown at the trace); an output that did not fit keeps only its
shape, and its row says so. ``TF_DEBUG_REPR_ACTIVATIONS=0`` turns the capture off.
Eager calls (``run_eagerly``, an eager loop) keep a reference to the output tensor, within
the same budget. A call inside a ``tf.cond`` branch or a ``tf.while_loop`` body of a step
(an RNN's cell) writes its shadow from inside the body (control flow v2 runs a body's
stateful ops with it): a branch that did not run leaves what an earlier run wrote, and each
such shadow keeps the step's run that wrote it (``ran``) so that the row says so; a loop
body's shadow holds the last iteration's output and counts the iterations of the last run.
Under several replicas (MirroredStrategy) each replica's call is traced with a replica
context holding its id as a Python int: each replica gets its own shadows, on its device
(``Output.replicas``). Not captured, and the layer's row says why (``skipped_reason``):
a replica whose id is not known at the trace (a tensor). XLA-compiled steps keep values as others do.
"""

from __future__ import annotations

import contextlib
import math
import threading
import weakref
from collections.abc import Callable
from typing import Any

from ..core.settings import env_bytes, switch_on

DEFAULT_BUDGET_MB = 64.0
BUDGET_VARIABLE = "TF_DEBUG_REPR_ACTIVATIONS_MB"
SWITCH = "TF_DEBUG_REPR_ACTIVATIONS"

_lock = threading.RLock()
_failures: dict[str, str] = {}


def _switch_from_env() -> bool:
    return switch_on(SWITCH, default=True)


_budget = env_bytes(BUDGET_VARIABLE, DEFAULT_BUDGET_MB)
_on = _switch_from_env()
_allowed: Callable[[], bool] = lambda: False  # noqa: E731  (set by install: gradient capture's switch)


def budget_bytes() -> int:
    return _budget


def set_budget_mb(mib: float | None) -> None:
    """The budget from now on (steps traced later); None: the environment's."""
    global _budget
    _budget = (
        env_bytes(BUDGET_VARIABLE, DEFAULT_BUDGET_MB)
        if mib is None
        else max(0, int(mib * (1 << 20)))
    )


def set_enabled(on: bool) -> None:
    global _on
    _on = bool(on)


def enabled() -> bool:
    return _on and _allowed()


def failure_note() -> str | None:
    if not _failures:
        return None
    return "; ".join(f"{k}: {v}" for k, v in list(_failures.items()))


def _report(kind: str, exc: BaseException) -> None:
    import sys

    message = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    with _lock:
        first = kind not in _failures
        _failures.setdefault(kind, message)
    if first:
        try:
            sys.stderr.write(
                f"tf-debug-repr: activation capture ({kind}) failed: {message}"
                " (reported once; training is not affected)\n"
            )
        except Exception:
            pass


# --------------------------------------------------------------------------- records


def _variable(tf: Any, initial: Any, name: str, open_shape: bool = False) -> Any:
    """A variable of this module's, made eagerly (the caller is under ``init_scope``). A
    ``ResourceVariable`` made directly: ``tf.Variable`` would go through the variable
    creators of the ``tf.function`` being traced, which refuse a variable made by any
    trace but the first (and a retrace, or Keras's second trace of a step, makes some)."""
    from tensorflow.python.ops import resource_variable_ops

    return resource_variable_ops.ResourceVariable(
        initial,
        trainable=False,
        name=name,
        shape=tf.TensorShape(None) if open_shape else None,
    )


def _now(variable: Any) -> Any:
    """One of this module's variables' value now (immutable: a later write never shows in
    it), by its raw read: ``numpy()`` and ``tf.identity`` of a variable add an ``Identity``
    op, one more kernel TF makes at its first run (~2 ms of a first stop's expansion)."""
    from tensorflow.python.ops import gen_resource_variable_ops

    return gen_resource_variable_ops.read_variable_op(variable.handle, variable.dtype)


class _Step:
    """One traced step function (a FuncGraph): its name, a stamp it writes when it runs
    (the value of a clock every step advances: the largest stamp is the last step run),
    and, during its trace, the running total of the bytes its outputs keep."""

    def __init__(self, tf: Any, name: str) -> None:
        self.name = name
        self.stamp = _variable(tf, tf.constant(0, tf.int64), "tfdr_stamp")
        self.runs = _variable(tf, tf.constant(0, tf.int64), "tfdr_runs")  # its own runs
        self.total: Any = None  # a graph tensor while the trace runs
        self.static_total = 0  # bytes of outputs of known shape kept whole
        self.stamped = False


class Kept:
    """Where a step leaves one tensor: its values (None: did not fit at the trace), its
    shape as the step saw it, how many calls of the layer wrote it in that step."""

    def __init__(
        self,
        tf: Any,
        step: _Step,
        dtype: Any,
        path: str,
        static: list[int] | None = None,
        body: str | None = None,
        replica: tuple[int, str] | None = None,
    ) -> None:
        self.step = step
        # under several replicas: (the replica's id in its sync group, its device); the
        # shadow lives on that device and only that replica's ops write it
        self.replica = replica
        # "tf.cond" / "tf.while_loop": written by ops of a control-flow body in the step
        # (a branch runs or not, a loop body once per iteration): the step's run that
        # wrote it last and how many times the last run that ran the step wrote it
        self.body: str | None = None
        self.ran: Any = None
        self.iterations: Any = None
        self.body_calls = 0  # calls traced in a body (each writes once per iteration)
        if body is not None:
            self.in_body(tf, body)
        self.path = path  # "" for a single output, "[0]", "['a']" within a structure
        self.dtype = dtype
        self.calls = 0
        self.static_fit: bool | None = None  # decided at the trace (shape known), or None
        self.reason = ""  # why nothing is kept, decided at the trace
        values = tf.zeros([0], dtype)
        shape = tf.zeros([0], tf.int64)
        if static is not None:  # XLA: a variable keeps its shape; decided here, once
            shape = tf.constant(static, tf.int64)
            nbytes = int(math.prod(static)) * dtype.size
            self.static_fit = step.static_total + nbytes <= _budget
            if self.static_fit:
                step.static_total += nbytes
                values = tf.zeros(static, dtype)
        self.values = _variable(tf, values, "tfdr_activation", open_shape=True)
        self.shape = _variable(tf, shape, "tfdr_shape", open_shape=True)

    def in_body(self, tf: Any, body: str) -> bool:
        """A call in a control-flow body writes this shadow (made under ``init_scope``):
        its run and iteration counters, made now if they were not; True when made now.
        A while loop wins over a cond (an RNN's cell: called once before its loop, to
        learn its output's structure, then in the loop)."""
        if body == "tf.while_loop" or self.body is None:
            self.body = body
        if self.ran is not None:
            return False
        self.ran = _variable(tf, tf.constant(0, tf.int64), "tfdr_ran")
        self.iterations = _variable(tf, tf.constant(0, tf.int64), "tfdr_iterations")
        return True


class _Eager:
    def __init__(self) -> None:
        self.tensors: list[tuple[str, Any]] = []
        self.unkept = ""  # what the last call gave, where none of it could be kept
        self.nbytes = 0
        self.calls = 0
        self.order: Any = None  # the clock when the call ran (a scalar tensor)


_clock_var: Any = None
_eager_bytes = 0
# id(owner) -> (weak ref to the owner, {id(graph) -> (step, [Kept])}); owners are layers
# (their outputs) and models (the batch their train step was given, under BATCH).
_records: dict[int, tuple[weakref.ref, dict[int, tuple[_Step, list[Kept]]]]] = {}
_eager_records: dict[int, tuple[weakref.ref, _Eager]] = {}
_batches: dict[int, tuple[weakref.ref, dict[int, tuple[_Step, list[Kept]]]]] = {}
_steps: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> _Step
# id(layer) -> (weak ref, why its last traced call kept nothing): a call inside a control
# flow body, a step under several replicas. Cleared for a layer when a call of it is kept.
_skipped: dict[int, tuple[weakref.ref, str]] = {}


def _clock(tf: Any) -> Any:
    global _clock_var
    if _clock_var is None:
        _clock_var = _variable(tf, tf.constant(0, tf.int64), "tfdr_clock")
    return _clock_var


def _forget(table: dict, key: int, ref: weakref.ref) -> None:
    with _lock:
        entry = table.get(key)
        if entry is not None and entry[0] is ref:
            del table[key]


def _entry(table: dict, owner: Any) -> dict:
    key = id(owner)
    entry = table.get(key)
    if entry is not None and entry[0]() is owner:
        return entry[1]
    ref = weakref.ref(owner, lambda r, key=key: _forget(table, key, r))  # type: ignore[misc]
    table[key] = (ref, {})
    return table[key][1]


# --------------------------------------------------------------------------- capture


@contextlib.contextmanager
def _own_ops(tf: Any) -> Any:
    from ..core import tf_compat

    with tf_compat.tape_recording().stop_recording(), tf.name_scope("tf_debug_repr"):
        yield


def _class_names(graph: Any) -> set[str]:
    return {cls.__name__ for cls in type(graph).__mro__}


def _as_step(graph: Any) -> Any:
    """``graph`` if it is a ``tf.function``'s own graph, where ops added run with the step;
    None for Keras's symbolic build, tf.data's functions, a cond/while body, a v1 graph."""
    names = _class_names(graph)
    if "FuncGraph" not in names or "ControlFlowFuncGraph" in names:
        return None
    if str(getattr(graph, "name", "")).startswith(("Dataset_", "keras_graph")):
        return None
    return graph


def _step_graph(tf: Any) -> Any:
    """The graph of a ``tf.function`` being traced (``_as_step``), else None."""
    return _as_step(tf.compat.v1.get_default_graph())


def _enclosing_step(tf: Any) -> Any:
    """The ``tf.function`` graph around the control-flow body being traced, if any."""
    graph = tf.compat.v1.get_default_graph()
    for _ in range(64):
        names = _class_names(graph)
        if "ControlFlowFuncGraph" not in names:
            return graph if "FuncGraph" in names else None
        graph = getattr(graph, "outer_graph", None)
        if graph is None:
            return None
    return None


def _skip(owner: Any, reason: str) -> None:
    key = id(owner)
    try:
        ref = weakref.ref(owner, lambda r, key=key: _forget(_skipped, key, r))  # type: ignore[misc]
    except TypeError:
        return
    with _lock:
        _skipped[key] = (ref, reason)


def _skip_reason(tf: Any) -> str | None:
    """Why a layer call traced now keeps nothing, where the step would have kept it."""
    if _replicated(tf):
        graph = _step_graph(tf) or _enclosing_step(tf)
        where = f"compiled step {str(getattr(graph, 'name', '?'))!r}" if graph else "a step"
        strategy = type(tf.distribute.get_strategy()).__name__
        replicas = int(tf.distribute.get_replica_context().num_replicas_in_sync)
        return (
            f"not kept: {where} runs under {strategy} with {replicas} replicas in sync, "
            "and this replica's id is not known at the trace (a tensor), so no copy of its "
            "own can be kept for each replica"
        )
    return None


def skipped_reason(layer: Any) -> str | None:
    """Why the layer's last traced call kept nothing (a control-flow body, several
    replicas), when that is why it has no output; None otherwise."""
    with _lock:
        entry = _skipped.get(id(layer))
    return entry[1] if entry is not None and entry[0]() is layer else None


def _flat_tensors(tf: Any, structure: Any) -> list[tuple[str, Any]]:
    """(path, tensor) of the dense numeric tensors of a layer's output or a batch."""
    from tensorflow.python.util import nest

    try:
        pairs = nest.flatten_with_tuple_paths(structure)
    except Exception:
        return []
    found = []
    single = len(pairs) == 1 and not pairs[0][0]
    for path, value in pairs:
        if not isinstance(value, tf.Tensor):
            continue
        dtype = value.dtype
        if not (dtype.is_floating or dtype.is_integer or dtype.is_bool):
            continue
        text = "" if single else "".join(f"[{p!r}]" for p in path)
        found.append((text, value))
    return found


def _unkept_text(tf: Any, structure: Any) -> str:
    """Why an eager call's output has no tensor ``_flat_tensors`` keeps (a RaggedTensor,
    a string tensor: ``not kept: …``); "" where it held no TF value at all."""
    from tensorflow.python.framework import composite_tensor
    from tensorflow.python.util import nest

    try:
        leaves = nest.flatten(structure)
    except Exception:
        return ""
    kinds: list[str] = []
    for value in leaves:
        if isinstance(value, tf.Tensor):
            kind = f"a {value.dtype.name} tensor"
        elif isinstance(value, composite_tensor.CompositeTensor):
            kind = f"a {type(value).__name__}"
        else:
            continue
        if kind not in kinds:
            kinds.append(kind)
    if not kinds:
        return ""
    return (
        f"not kept: the last call gave {', '.join(kinds[:3])} (only dense numeric tensors are kept)"
    )


def _replica(tf: Any) -> tuple[int, str] | None | bool:
    """Under several replicas in sync: (this replica's id, its device), known at the
    trace (MirroredStrategy traces each replica's call in a thread of its own, with a
    replica context holding its id as a Python int); None under one replica or none;
    False where the id is not known at the trace (a tensor: TPU)."""
    if not _replicated(tf):
        return None
    context = tf.distribute.get_replica_context()
    replica = getattr(context, "_replica_id_in_sync_group", None)
    if not isinstance(replica, int) or isinstance(replica, bool):
        return False
    try:
        devices = list(context.devices)  # MirroredStrategy: [[the replica's devices]]
        while len(devices) == 1 and isinstance(devices[0], (list, tuple)):
            devices = list(devices[0])
    except Exception:
        devices = []
    return replica, str(devices[0]) if len(devices) == 1 else ""


def _replicated(tf: Any) -> bool:
    if not tf.distribute.has_strategy():
        return False
    context = tf.distribute.get_replica_context()
    return context is not None and int(context.num_replicas_in_sync) > 1


def _static_bytes(tensor: Any) -> int | None:
    shape = tensor.shape
    if shape.rank is None or not shape.is_fully_defined():
        return None
    return int(math.prod(int(d) for d in shape)) * tensor.dtype.size


def _body(tf: Any) -> tuple[Any, str] | None:
    """(the step's graph, "tf.cond" or "tf.while_loop") when a control-flow body of a
    compiled step is being traced (a while loop anywhere around it: "tf.while_loop", its
    last iteration is what stays); None elsewhere."""
    graph = tf.compat.v1.get_default_graph()
    if "ControlFlowFuncGraph" not in _class_names(graph):
        return None
    kind = "tf.cond"
    for _ in range(64):
        if "ControlFlowFuncGraph" not in _class_names(graph):
            break
        if type(graph).__name__.startswith("While"):
            kind = "tf.while_loop"
        graph = getattr(graph, "outer_graph", None)
        if graph is None:
            return None
    step = _as_step(graph)  # the step's own graph around the body (None past 64 levels)
    return None if step is None else (step, kind)


@contextlib.contextmanager
def _in_graph(tf: Any, graph: Any, body: str | None) -> Any:
    """Ops made here go into the step's own graph: from a control-flow body's trace, ops
    that must run with every run of the step (made before the body's control-flow op, so
    the step's automatic control dependencies run them before it)."""
    if body is None:
        yield
        return
    with graph.as_default(), tf.control_dependencies(None):
        yield


def capture(
    table: dict, owner: Any, structure: Any, replica: tuple[int, str] | None = None
) -> None:
    """After ``owner`` produced ``structure`` (a layer's output; a batch): keep it, in
    the step being traced (shadows written by the step) or, eagerly, by reference.
    ``replica``: (id, device) of the replica whose part ``structure`` is, given from the
    cross-replica context (else read from the replica context the call is traced in)."""
    import tensorflow as tf

    if tf.executing_eagerly():
        if table is _records:
            _keep_eager(tf, owner, structure)
        return
    graph = _step_graph(tf)
    body = None
    if graph is None:
        inside = _body(tf)
        if inside is None:
            return
        graph, body = inside
    if replica is None:
        replica = _replica(tf)  # type: ignore[assignment]
    if replica is False:
        reason = _skip_reason(tf) if table is _records else None
        if reason is not None:
            _skip(owner, reason)
        return
    assert replica is not True
    tensors = _flat_tensors(tf, structure)
    if not tensors:
        return
    if table is _records:
        with _lock:
            _skipped.pop(id(owner), None)
    with _lock:
        with tf.init_scope():
            step = _steps.get(graph)
            if step is None:
                step = _steps[graph] = _Step(tf, str(getattr(graph, "name", "a tf.function")))
            clock = _clock(tf)
            traces = _entry(table, owner)
            key = (id(graph), replica[0] if replica else None)
            trace = traces.get(key)
            device = replica[1] if replica else ""

            def place() -> Any:  # the replica's device, where its shadows live
                return tf.device(device) if device else contextlib.nullcontext()

            if trace is None or trace[0] is not step:
                with place():
                    made = [_kept_for(tf, step, p, t, None, replica) for p, t in tensors]
                trace = traces[key] = (step, made)
            kept = trace[1]
            if len(kept) != len(tensors):  # the same owner returned another structure
                return
            counted = []  # shadows whose iterations each run counts from now
            if body is not None:
                with place():
                    counted = [shadow for shadow in kept if shadow.in_body(tf, body)]
        with _own_ops(tf):
            with _in_graph(tf, graph, body):
                if not step.stamped:
                    step.stamped = True
                    step.runs.assign_add(1)
                    step.stamp.assign(clock.assign_add(1))
                for shadow in counted:  # each run counts its own iterations
                    shadow.iterations.assign(tf.constant(0, tf.int64))
            for shadow, (_, tensor) in zip(kept, tensors):
                shadow.calls += 1
                _keep(tf, step, shadow, tensor, body is not None)
                if shadow.ran is not None:  # written in this run (in a body or not)
                    shadow.ran.assign(step.runs.read_value())
                if body is not None:
                    shadow.body_calls += 1
                    shadow.iterations.assign_add(tf.constant(1, tf.int64))


def _in_xla(tf: Any) -> bool:
    from tensorflow.python.ops import control_flow_util

    return bool(control_flow_util.GraphOrParentsInXlaContext(tf.compat.v1.get_default_graph()))


def _kept_for(
    tf: Any,
    step: _Step,
    path: str,
    tensor: Any,
    body: str | None = None,
    replica: tuple[int, str] | None = None,
) -> Kept:
    """A shadow for ``tensor``. Under XLA (``jit_compile``) a variable cannot change shape
    in the step: only a shape known at the trace is kept, decided then."""
    if not _in_xla(tf):
        return Kept(tf, step, tensor.dtype, path, body=body, replica=replica)
    shape = tensor.shape
    if shape.rank is None or not shape.is_fully_defined():
        kept = Kept(tf, step, tensor.dtype, path, body=body, replica=replica)
        kept.static_fit = False
        kept.reason = "not kept: an XLA-compiled step, and this shape was not known at its trace"
        return kept
    return Kept(tf, step, tensor.dtype, path, [int(d) for d in shape], body, replica)


def _keep(tf: Any, step: _Step, shadow: Kept, tensor: Any, in_body: bool = False) -> None:
    """Ops of the step: the tensor into its shadow if the step's kept bytes stay within
    the budget. A tensor of known shape is decided at the trace (one op); otherwise in the
    step, by a running total, and a slice of no rows (shares nothing) is kept instead.
    In a control-flow body (``in_body``) the running total is read, never advanced (a
    body's tensors cannot leave it): such an output is kept when it fits beside what the
    step's own graph kept before it."""
    if shadow.reason:
        return
    if _in_xla(tf):  # decided at the trace (_kept_for)
        if shadow.static_fit:
            shadow.values.assign(tensor)
        return
    known = _static_bytes(tensor)
    if known is not None and step.total is None:
        fits = step.static_total + known <= _budget
        if shadow.static_fit is None:
            shadow.static_fit = fits
            if fits:
                step.static_total += known
        if shadow.static_fit:
            shadow.values.assign(tensor)
            return
        shadow.shape.assign(tf.constant([int(d) for d in tensor.shape], tf.int64))
        return
    ops = _step_ops(tf)
    shape = ops.shape(tensor)
    nbytes = ops.nbytes(tensor)
    base = ops.constant(step.static_total) if step.total is None else step.total
    total = ops.add(base, nbytes)
    fits = ops.less_equal(total, ops.budget)
    if not in_body:
        step.total = ops.select(fits, total, base)
    ops.assign(shadow.shape, shape)
    if tensor.shape.rank == 0:
        ops.assign(shadow.values, tensor)
        return
    # every row: its buffer (an end past the last row is clamped to it: the slice is the
    # whole tensor, which TF forwards); none: a slice of no rows, holding nothing
    ops.assign(shadow.values, ops.rows(tensor, ops.select(fits, ops.every_row, ops.no_row)))


class _Ops:
    """The ops ``_keep`` adds for one output, made by TF's generated op functions (none
    of the Python dispatch, type promotion and error filtering of ``tf.where``, ``tf.shape``,
    ``+`` or a slice's ``[]``: a trace made each of those under a debugger's trace function,
    and a Keras ``fit``'s step keeps dozens of outputs), with the constants they share made
    once per graph."""

    def __init__(self, tf: Any) -> None:
        from tensorflow.python.ops import (
            gen_array_ops,
            gen_math_ops,
            gen_resource_variable_ops,
        )

        self._array = gen_array_ops
        self._math = gen_math_ops
        self._assign = gen_resource_variable_ops.assign_variable_op
        self._tf = tf
        self._constants: dict[Any, Any] = {}
        self.budget = self.constant(_budget)
        self.begin = self.constant([0])
        self.stride = self.constant([1])
        self.every_row = self.constant([_EVERY_ROW])
        self.no_row = self.constant([0])

    def constant(self, value: Any) -> Any:
        key = (type(value), tuple(value) if isinstance(value, list) else value)
        found = self._constants.get(key)
        if found is None:  # shared by later ops: no control inputs of where it was made
            with self._tf.control_dependencies(None):
                found = self._constants[key] = self._tf.constant(value, self._tf.int64)
        return found

    def shape(self, tensor: Any) -> Any:
        return self._array.shape(tensor, out_type=self._tf.int64)

    def nbytes(self, tensor: Any) -> Any:
        size = self._array.size(tensor, out_type=self._tf.int64)
        item = tensor.dtype.size
        return size if item == 1 else self._math.mul(size, self.constant(item))

    def add(self, x: Any, y: Any) -> Any:
        return self._math.add_v2(x, y)

    def less_equal(self, x: Any, y: Any) -> Any:
        return self._math.less_equal(x, y)

    def select(self, condition: Any, x: Any, y: Any) -> Any:
        return self._math.select_v2(condition, x, y)

    def rows(self, tensor: Any, end: Any) -> Any:
        """``tensor[:end[0]]``, one op."""
        return self._array.strided_slice(tensor, self.begin, end, self.stride)

    def assign(self, variable: Any, value: Any) -> None:
        """``variable.assign(value)`` for this module's variables of open shape, without the
        read ``assign`` returns (never used here)."""
        self._assign(variable.handle, value)  # validate_shape: False by default


# Past any dimension's size: a slice's end is clamped to its dimension.
_EVERY_ROW = 1 << 62
_graph_ops: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> _Ops


def _step_ops(tf: Any) -> _Ops:
    """The ``_Ops`` of the graph being built (a step's, or a control-flow body's in it)."""
    graph = tf.compat.v1.get_default_graph()
    ops = _graph_ops.get(graph)
    if ops is None:
        ops = _graph_ops[graph] = _Ops(tf)
    return ops


def _keep_eager(tf: Any, owner: Any, structure: Any) -> None:
    """An eager call: a reference to each output tensor (no copy), within the budget,
    ordered against compiled steps by their clock."""
    global _eager_bytes
    tensors = _flat_tensors(tf, structure)
    unkept = "" if tensors else _unkept_text(tf, structure)
    if not tensors and not unkept:
        return
    need = sum(_static_bytes(t) or 0 for _, t in tensors)
    from ..core import tf_compat

    with tf_compat.tape_recording().stop_recording():
        # The compiled steps' clock as it is now: a read, never waited for here (a GPU's
        # queue is not drained); compared at a stop with the last compiled step's stamp.
        order = _clock(tf).read_value()
    with _lock:
        key = id(owner)
        entry = _eager_records.get(key)
        if entry is None or entry[0]() is not owner:
            ref = weakref.ref(owner, lambda r, key=key: _forget(_eager_records, key, r))  # type: ignore[misc]
            entry = _eager_records[key] = (ref, _Eager())
        record = entry[1]
        _eager_bytes -= record.nbytes
        fits = _eager_bytes + need <= _budget
        record.tensors = [(p, t if fits else tf.TensorShape(t.shape)) for p, t in tensors]
        record.unkept = unkept  # a call that gave nothing kept: an earlier call's goes
        record.nbytes = need if fits else 0
        _eager_bytes += record.nbytes
        record.calls += 1
        record.order = order


# --------------------------------------------------------------------------- reading


class Output:
    """One kept tensor as read at a stop: ``value`` (an eager tensor), or None with
    ``shape`` (what did not fit); where it came from."""

    def __init__(
        self,
        path: str,
        value: Any,
        shape: list[int] | None,
        where: str,
        calls: int,
        reason: str = "",
        detail: str = "",
    ) -> None:
        self.reason = reason
        self.path = path
        self.value = value
        self.shape = shape
        self.where = where
        self.calls = calls
        # a control-flow body's output: "tf.cond branch", "last of 3 tf.while_loop
        # iterations", or which earlier run of the step it is from
        self.detail = detail
        # under several replicas: one Output per replica (value None here), in replica
        # order, each with its ``replica`` id and ``device``
        self.replicas: list[Output] = []
        self.replica: int | None = None
        self.device = ""


# (id(Kept), stamp) -> Output: the same step read twice gives the same tensor object
_read_cache: dict[tuple[int, int], Output] = {}


def _last(traces: dict) -> tuple[_Step, list[Kept], int] | None:
    """The last step that ran (the largest stamp) and its shadows: under several replicas,
    each replica's, in replica order (``_grouped`` pairs them by path)."""
    best = None
    for key, (step, kept) in sorted(
        traces.items(), key=lambda item: (item[0][1] is not None, item[0][1] or 0)
    ):
        stamp = int(_now(step.stamp).numpy())
        if stamp <= 0:
            continue
        if best is None or stamp > best[2]:
            best = (step, list(kept), stamp)
        elif stamp == best[2] and step is best[0] and key[1] is not None:
            best[1].extend(kept)
    return best


def _grouped(found: list[Output], kept: list[Kept]) -> list[Output]:
    """Replicas' outputs by path: one Output per path, its ``replicas`` each replica's."""
    if not kept or kept[0].replica is None:
        return found
    from ..core import formatting as fmt

    by_path: dict[str, Output] = {}
    for output, shadow in zip(found, kept):
        if shadow.replica is None:
            continue
        replica_id, device = shadow.replica
        output.replica = replica_id
        output.device = fmt.device_text(device)
        head = by_path.get(output.path)
        if head is None:
            head = by_path[output.path] = Output(
                output.path,
                None,
                output.shape,
                output.where,
                output.calls,
                output.reason,
                output.detail,
            )
        head.replicas.append(output)
    return list(by_path.values())


def _read(kept: list[Kept], step: _Step, stamp: int) -> list[Output]:
    import tensorflow as tf

    from ..core.guards import harmless

    found = []
    with harmless():
        for shadow in kept:
            key = (id(shadow), stamp)
            cached = _read_cache.get(key)
            if cached is not None:
                found.append(cached)
                continue
            # this step's (the next one writes anew), read where the shadow lives
            place = tf.device(shadow.replica[1]) if shadow.replica and shadow.replica[1] else None
            with place or contextlib.nullcontext():
                values = _now(shadow.values) if place is None else tf.identity(shadow.values)
            shape = [int(d) for d in _now(shadow.shape).numpy()]
            if shadow.static_fit is True:
                shape = [int(d) for d in values.shape]
            whole = shadow.static_fit is not False and list(values.shape) == shape
            detail, reason = _body_detail(shadow, step)
            output = Output(
                shadow.path,
                values if whole and not reason else None,
                shape,
                f"compiled step {step.name!r}",
                shadow.calls,
                shadow.reason or reason,
                detail,
            )
            _read_cache[key] = output
            found.append(output)
    if len(_read_cache) > 4096:
        _read_cache.clear()
    return found


def _body_detail(shadow: Kept, step: _Step) -> tuple[str, str]:
    """(what the row says of a control-flow body's output, why nothing is shown): which
    run of the step wrote it, and whether that was the last run."""
    if shadow.ran is None or shadow.iterations is None:
        return "", ""
    ran = int(_now(shadow.ran).numpy())
    last = int(_now(step.runs).numpy())
    what = "its tf.cond branch" if shadow.body == "tf.cond" else "its tf.while_loop body"
    if ran <= 0:
        return "", (
            f"not kept: {what} has not run in any run of compiled step {step.name!r} "
            "since it was traced with the debugger attached"
        )
    if ran < last:
        return (
            f"from its run {ran:,}: {what} did not run in the last run ({last:,})",
            "",
        )
    if shadow.body == "tf.cond":
        return "tf.cond branch", ""
    count = int(shadow.iterations.numpy())
    calls = max(1, shadow.body_calls)
    # each iteration writes once per call of the layer traced in the body
    iterations = count // calls if count % calls == 0 else count
    return f"last of {iterations:,} tf.while_loop iterations", ""


def _eagerly(read: Callable[[Any], list[Output] | None], owner: Any) -> list[Output] | None:
    """``read(owner)`` in the eager context: a stop inside a trace or Keras's build pass
    reads the shadows as values (``init_scope``), adding no op to the graph being built."""
    import tensorflow as tf

    with tf.init_scope():
        return read(owner)


def outputs_of(layer: Any) -> list[Output] | None:
    """The layer's outputs in the last step that ran it (compiled, or an eager call when
    that came later); None when none was kept."""
    return _eagerly(_outputs_of, layer)


def _outputs_of(layer: Any) -> list[Output] | None:
    with _lock:
        entry = _records.get(id(layer))
        traces = dict(entry[1]) if entry is not None and entry[0]() is layer else {}
        eager_entry = _eager_records.get(id(layer))
        eager = eager_entry[1] if eager_entry and eager_entry[0]() is layer else None
    last = _last(traces) if traces else None
    if eager is not None and (last is None or _eager_newer(eager, last)):
        if eager.unkept:
            return [Output("", None, None, "an eager call", eager.calls, reason=eager.unkept)]
        return [_eager_output(p, t) for p, t in eager.tensors]
    if last is None:
        return None
    return _grouped(_read(last[1], last[0], last[2]), last[1])


def _eager_output(path: str, kept: Any) -> Output:
    """A kept eager tensor, or the ``TensorShape`` of one that did not fit."""
    import tensorflow as tf

    if isinstance(kept, tf.TensorShape):
        return Output(path, None, [int(d or 0) for d in kept.as_list()], "an eager call", 1)
    return Output(path, kept, None, "an eager call", 1)


def _eager_newer(eager: _Eager, last: tuple) -> bool:
    """An eager call after the last compiled step that ran the layer: the clock had
    reached that step's stamp when the call ran."""
    return eager.order is not None and int(eager.order.numpy()) >= last[2]


def batch_of(model: Any) -> list[Output] | None:
    """The batch the model's last compiled train step was given (after the data adapter)."""
    return _eagerly(_batch_of, model)


def _batch_of(model: Any) -> list[Output] | None:
    with _lock:
        entry = _batches.get(id(model))
        traces = dict(entry[1]) if entry is not None and entry[0]() is model else {}
    last = _last(traces) if traces else None
    if last is None:
        return None
    return _grouped(_read(last[1], last[0], last[2]), last[1])


def held_bytes() -> int:
    """Bytes the shadows hold now (read at a stop: each shadow's current size)."""
    total = _eager_bytes
    with _lock:
        tables = [entry[1] for entry in list(_records.values()) + list(_batches.values())]
    for traces in tables:
        for _, kept in traces.values():
            for shadow in kept:
                try:
                    size = int(math.prod(shadow.values.value().shape))
                except Exception:
                    continue
                total += size * shadow.dtype.size
    return total


# --------------------------------------------------------------------------- install


def _wrap_layer_call(cls: type) -> None:
    from ..core.patching import patch_once

    def wrap_call(original: Callable[..., Any]) -> Callable[..., Any]:
        def __call__(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
            if _on and _allowed():
                try:
                    capture(_records, self, result)
                except Exception as exc:  # capture must never break training
                    _report("layer output", exc)
            return result

        return __call__

    patch_once(cls, "__call__", wrap_call)


def _keras2_model(fn: Any) -> Any:
    """The model whose Keras 2 train step ``fn`` is: ``run_step``, made by Keras 2's
    ``Model.make_train_function`` (possibly in a ``tf.function`` for XLA), holds it in its
    closure (read, never called); None for any other function."""
    python = getattr(fn, "python_function", fn)
    code = getattr(python, "__code__", None)
    if code is None or code.co_name != "run_step":
        return None
    if "make_train_function" not in str(getattr(python, "__qualname__", "")):
        return None
    if not str(getattr(python, "__module__", "")).endswith("engine.training"):
        return None
    cells = dict(zip(code.co_freevars, getattr(python, "__closure__", None) or ()))
    cell = cells.get("model")
    try:
        return None if cell is None else cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _keras2_batch(strategy: Any, fn: Any, rest: tuple, named: dict) -> None:
    """Keras 2's train step is ``model.distribute_strategy.run(run_step, args=(data,))``
    (``make_train_function``): ``data`` is the batch ``train_step(data)`` is given, after
    the data adapter; under several replicas each replica's part is kept as its own."""
    model = _keras2_model(fn)
    if model is None:
        return
    args = rest[0] if rest else named.get("args", ())
    if not isinstance(args, (tuple, list)) or len(args) != 1:
        return
    data = args[0]
    count = int(getattr(strategy, "num_replicas_in_sync", 1) or 1)
    if count <= 1:
        capture(_batches, model, data)
        return
    from tensorflow.python.distribute import distribute_utils

    devices = list(getattr(strategy.extended, "worker_devices", ()) or ())
    for replica in range(count):
        part = distribute_utils.select_replica(replica, data)
        device = str(devices[replica]) if replica < len(devices) else ""
        capture(_batches, model, part, (replica, device))


def install_keras2(root: str, allowed: Callable[[], bool]) -> bool:
    """Keras 2 (2.13-2.15's ``keras``, ``tf_keras``): wrap its ``Layer.__call__`` (a
    functional or ``Sequential`` model calls each layer through it, in ``fit``'s compiled
    ``train_function`` too). The batch: Keras 2's ``train_step(data)`` is reached through
    ``make_train_function``'s closure (``run_step``, handed to the model's strategy's
    ``run``); ``tf.distribute.Strategy.run`` is wrapped (TF's class, never a user's
    object) to keep ``data`` when the function it is given is that ``run_step``."""
    import importlib

    global _allowed
    _allowed = allowed
    for prefix in (f"{root}.src", root):  # <= 2.12: no src/
        try:
            module = importlib.import_module(f"{prefix}.engine.base_layer")
        except ImportError:
            continue
        cls = getattr(module, "Layer", None)
        if isinstance(cls, type):
            _wrap_layer_call(cls)
            _wrap_strategy_run()
            return True
    return False


def _wrap_strategy_run() -> None:
    from ..core.patching import patch_once

    try:
        from tensorflow.python.distribute import distribute_lib
    except ImportError:
        return

    def wrap_run(original: Callable[..., Any]) -> Callable[..., Any]:
        def run(self, fn, *rest, **named):
            if _on and _allowed():
                try:
                    _keras2_batch(self, fn, rest, named)
                except Exception as exc:  # capture must never break training
                    _report("batch", exc)
            return original(self, fn, *rest, **named)

        return run

    patch_once(distribute_lib.StrategyBase, "run", wrap_run)


def install(keras: Any, allowed: Callable[[], bool]) -> bool:
    """Wrap Keras 3's ``Layer.__call__`` and the TF trainer's step-function factory."""
    global _allowed
    _allowed = allowed
    try:
        from keras.src.layers import layer as layer_module
    except ImportError:
        return False
    from ..core.patching import patch_once

    _wrap_layer_call(layer_module.Layer)
    try:
        from keras.src.backend.tensorflow import trainer as tf_trainer
    except ImportError:
        return True
    if not hasattr(tf_trainer.TensorFlowTrainer, "_make_function"):
        return True  # another Keras 3: layer outputs only, no batch

    def wrap_make(original: Callable[..., Any]) -> Callable[..., Any]:
        def _make_function(self, step_function):
            if getattr(getattr(step_function, "__func__", None), "__name__", "") != "train_step":
                return original(self, step_function)
            model_ref = weakref.ref(self)

            def train_step(data):
                model = model_ref()
                if _on and _allowed() and model is not None:
                    try:
                        capture(_batches, model, data)
                    except Exception as exc:
                        _report("batch", exc)
                return step_function(data)

            return original(self, train_step)

        return _make_function

    patch_once(tf_trainer.TensorFlowTrainer, "_make_function", wrap_make)
    return True
