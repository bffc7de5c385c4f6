"""Gradients from compiled steps: a traced ``optimizer.apply`` also keeps what it was given.

Inside a ``tf.function`` (a custom step, Keras's compiled ``fit``, with XLA or not) the
gradients an optimizer gets are graph tensors: nothing in Python sees their values. When a
step is traced with capture on, the Keras optimizer's ``apply`` adds a few ops to the
step before it applies them: per weight, the gradient is copied into a shadow variable
(while the shadows fit the gradient memory budget) and its squared norm is written into a
ring of the last ``HISTORY`` steps, beside the optimizer's ``iterations`` before the update.
At a stop the views ``sync()``: new steps become the weights' gradient records, labelled as
eager ones are (``Adam iteration 41``), with their history.

The ops only write variables of their own (created under ``init_scope``, held here, never
tracked by a model or a checkpoint) and read the gradients: the step computes the same
values, bit for bit. ``LossScaleOptimizer``: its inner optimizer's ``apply`` is the one
kept (unscaled). ``steps_per_execution > 1``: the ring holds every inner step's norm, the
values are the last inner step's. ``IndexedSlices`` keep their values and indices. A
gradient computed by a ``MatMul`` of smaller factors (a ``Dense`` kernel's: the layer's input
and its output's gradient) keeps those factors instead, and a stop multiplies them again
(graph mode; see ``_factors_of``); so does a ``Conv2D`` kernel's, computed by a
``Conv2DBackpropFilter`` of the layer's input and its output's gradient (``_conv_factors_of``,
on CPU). Under a
``tf.distribute`` strategy with several replicas each replica writes its own copy of the
shadows, which read as their sum (the gradient the optimizer applied, for the global
batch); norms are then those of the last step only, computed at the stop.
"""

from __future__ import annotations

import contextlib
import math
import threading
import weakref
from collections.abc import Callable
from typing import Any

from ..core.strides import prime_stride
from .figures import Figures, host_counts, host_moments
from .records import HISTORY

_lock = threading.RLock()
# optimizer -> {tuple of id(variable) -> _Site}: one per traced apply() of a variable list.
_sites: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# (id(site), id(variable)) -> _Shadow: the variable's last gradient values at a site (a
# tape's raw gradient and the clipped one an optimizer applies are two sites).
_shadows: dict[tuple[int, int], Any] = {}
_shadow_bytes = 0  # bytes held by value shadows (within the gradient memory budget)
TAPE_SITE = "GradientTape.gradient at "  # a traced tape's site name: this, then where
# (where, tuple of id(variable)) -> _Site: one per traced ``tape.gradient`` call site.
_tape_sites: dict[tuple, Any] = {}
# graph being traced -> {id(gradient tensor): (_Site, slot)}: what traced ``tape.gradient``
# calls kept in it, so that an optimizer applying these very tensors in the same trace
# labels them (``Adam iteration 41``) instead of copying them a second time.
_kept_in: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _Shadow:
    """Where a traced step leaves one weight's gradient: values, and indices for
    ``IndexedSlices``; None when the values did not fit the budget. ``factors``: two
    variables for a gradient that is a ``MatMul`` of them (``_factors_of``); each step fills
    either the factors or the values and leaves the other empty."""

    def __init__(
        self, values: Any, indices: Any, dense_shape: Any, nbytes: int, factors: Any = None
    ) -> None:
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape
        self.nbytes = nbytes
        self.factors: tuple[Any, Any] | None = factors
        self.transposes: tuple[bool, bool] = (False, False)  # the MatMul's, at its trace
        # factors of a Conv2DBackpropFilter instead of a MatMul: (filter sizes, its attrs)
        self.conv: tuple[list[int], dict] | None = None

    def read(self) -> _Kept | None:
        """What the last step left here, as snapshots (reads of the shadow variables: a
        later step writes new buffers, never into these), or None where no values are kept.
        Nothing is computed yet: a ``MatMul``'s product waits for ``_Kept.gradient``."""
        if self.values is None:
            return None
        if self.factors is not None:
            # Whichever side the step kept is the one not empty: a matrix of elements in the
            # first factor (before any step, and after a trace with no such product, it is
            # not a matrix; a step whose batch made the product the smaller keeps it empty).
            a = _snapshot(self.factors[0])
            dims = _dims(a)
            rank = 2 if self.conv is None else 4  # a MatMul's matrix, a Conv2D's input
            kept = None
            if len(dims) == rank and 0 not in dims:
                kept = _Kept(None, None, None, (a, _snapshot(self.factors[1])), self.transposes)
            else:
                values = _snapshot(self.values)
                if len(dims) == rank and 0 in _dims(values):  # a batch of 0
                    factors = (a, _snapshot(self.factors[1]))
                    kept = _Kept(values, None, None, factors, self.transposes)
                else:
                    return _Kept(values, None, None, None, (False, False))
            kept.conv = self.conv
            return kept
        values = _snapshot(self.values)  # this step's values: the next step writes anew
        if self.indices is None:
            return _Kept(values, None, None, None, (False, False))
        return _Kept(values, _snapshot(self.indices), self.dense_shape, None, (False, False))


def _dims(tensor: Any) -> tuple[int, ...]:
    """An eager tensor's shape as ints (its C-level tuple: ``.shape`` builds a
    ``TensorShape`` of ``Dimension`` objects, ~0.1 ms a read under load, twice per kernel
    at every stop)."""
    found = getattr(tensor, "_shape_tuple", None)
    dims = found() if found is not None else tuple(tensor.shape)
    return tuple(int(d or 0) for d in dims)


def _snapshot(variable: Any) -> Any:
    """The variable's value now, immutable (TF's ``ReadVariableOp``: a later write to the
    variable never shows in it): one raw read op for a resource variable (the shadows
    are made in a trace's ``init_scope``: ``UnliftedInitializerVariable``), whose public
    conversion path costs several ops; a replicated one's aggregated read."""
    from tensorflow.python.ops import resource_variable_ops

    if isinstance(variable, resource_variable_ops.BaseResourceVariable):
        return _raw_read(variable)
    import tensorflow as tf

    summed = _replica_sum(tf, variable)
    return summed if summed is not None else tf.identity(variable)


def _raw_read(variable: Any) -> Any:
    """One ``ReadVariableOp`` of a resource variable."""
    from tensorflow.python.ops import gen_resource_variable_ops

    return gen_resource_variable_ops.read_variable_op(variable.handle, variable.dtype)


def _replica_sum(tf: Any, variable: Any) -> Any:
    """A per-replica variable's value as TF's aggregated read computes it: a SUM one's (a
    replicated step's shadow) the ``AddN`` of its replicas' reads in their order (the same
    kernel, bit for bit), an ONLY_FIRST_REPLICA one's (a replicated site's counter) the
    first replica's read, where every replica's variable is in host memory: without the
    strategy's reduce path, which took ~3.6 ms of Python per read against ~0.09 ms, or
    ``tf.identity``'s ~0.45 ms. None elsewhere."""
    first = tf.VariableAggregation.ONLY_FIRST_REPLICA
    if getattr(variable, "aggregation", None) == first:
        parts = _replica_parts(tf, variable, first)
        return None if parts is None else _raw_read(parts[0])
    reads = _replica_reads(tf, variable)
    if reads is None:
        return None
    return reads[0] if len(reads) == 1 else tf.raw_ops.AddN(inputs=reads)


def _replica_reads(tf: Any, variable: Any) -> list | None:
    """Each replica's value of a per-replica SUM variable, one raw read each, where every
    replica's variable is in host memory; None elsewhere."""
    parts = _replica_parts(tf, variable, tf.VariableAggregation.SUM)
    return None if parts is None else [_raw_read(part) for part in parts]


def _replica_parts(tf: Any, variable: Any, aggregation: Any) -> tuple | None:
    """The replicas' resource variables of a per-replica (sync on read) variable of
    ``aggregation``, where every one is in host memory; None elsewhere."""
    from tensorflow.python.ops import resource_variable_ops

    from ..core.guards import is_on_host

    if getattr(variable, "aggregation", None) != aggregation:
        return None
    if getattr(variable, "synchronization", None) != tf.VariableSynchronization.ON_READ:
        return None
    parts = getattr(variable, "values", None)
    if not isinstance(parts, tuple) or not parts:
        return None
    if not all(
        isinstance(part, resource_variable_ops.BaseResourceVariable) and is_on_host(part)
        for part in parts
    ):
        return None
    return parts


class _Kept:
    """One weight's gradient as a step left it, read at a stop: immutable tensors, so its
    values (``gradient``, the product of a ``MatMul``'s factors computed on the first ask)
    and its norm are the same whenever they are read. A stop's rows need only the norm
    (a model's global norm reads every weight's); the values wait until a row shows them:
    the products of a 21-layer MLP's kernels took ~50 ms of every stop's first request."""

    def __init__(
        self,
        values: Any,
        indices: Any,
        dense_shape: Any,
        factors: tuple[Any, Any] | None,
        transposes: tuple[bool, bool],
    ) -> None:
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape
        self.factors = factors
        self.transposes = transposes
        self.conv: tuple[list[int], dict] | None = None  # factors of a Conv2DBackpropFilter
        self._gradient: Any = None

    def gradient(self) -> Any:
        """The gradient: the values, an ``IndexedSlices``, or the product the step computed
        (the same kernel on the same factors: an eager MatMul reads bit-equal to the
        graph's, tests/unit/test_compiled_capture)."""
        if self._gradient is not None:
            return self._gradient
        import tensorflow as tf

        from ..core.guards import harmless

        with harmless():
            if self.factors is not None and self.conv is not None:
                gradient = tf.raw_ops.Conv2DBackpropFilter(
                    input=self.factors[0],
                    filter_sizes=tf.constant(self.conv[0], tf.int32),
                    out_backprop=self.factors[1],
                    **self.conv[1],
                )
            elif self.factors is not None:
                gradient = tf.raw_ops.MatMul(
                    a=self.factors[0],
                    b=self.factors[1],
                    transpose_a=self.transposes[0],
                    transpose_b=self.transposes[1],
                )
            elif self.indices is not None:
                gradient = tf.IndexedSlices(self.values, self.indices, self.dense_shape)
            else:
                gradient = self.values
        self._gradient = gradient
        return gradient

    def norm(self) -> float | None:
        """The exact norm: on the host from the buffers (no op) where they are CPU float
        tensors, a factored one's from the factors' Gram matrices without the product;
        elsewhere (another device, other dtypes, a NaN or Inf) from the values with TF's
        ops, as before."""
        found = _host_norm(self)
        if found is not None:
            return found
        import tensorflow as tf

        return _exact_norm(tf, self.gradient())


def _host_float(tensor: Any) -> Any:
    """A CPU float tensor's buffer as numpy (no copy), else None."""
    from ..core.guards import host_view, is_on_host

    if not is_on_host(tensor) or not hasattr(tensor, "_numpy"):
        return None
    array = host_view(tensor)
    return array if array.dtype.kind == "f" else None


# Elements widened to float64 at a time for a norm on the host: a chunk stays in the cache.
NORM_CHUNK = 1 << 16


def _squares(flat: Any) -> float:
    """Sum of squares of a 1-D float array, accumulated in float64 a chunk at a time."""
    import numpy as np

    total = 0.0
    for start in range(0, int(flat.size), NORM_CHUNK):
        chunk = flat[start : start + NORM_CHUNK].astype(np.float64)
        # einsum's own loop: BLAS's dot starts threads that, on a busy machine, made some
        # calls 40x slower than the median
        total += float(np.einsum("i,i->", chunk, chunk))
    return total


def _host_norm(kept: _Kept) -> float | None:
    """``kept``'s norm computed on the host, or None where it cannot be (or is not finite:
    TF's path then says NaN or Inf as it always did)."""
    import numpy as np

    if kept.factors is not None and kept.conv is not None:
        values = _host_float(kept.gradient())  # the product: no cheaper form for a conv
    elif kept.factors is not None:
        a, b = (_host_float(f) for f in kept.factors)
        if a is None or b is None or a.ndim != 2 or b.ndim != 2:
            return None
        # g = op(a) @ op(b), A = op(a) [m, k], B = op(b) [k, n]:
        # ||A B||^2 = trace(B^T A^T A B) = sum((A^T A) * (B B^T)), both [k, k], where k
        # (the batch) is below m·n/(m + n) (_factors_of): cheaper than the product.
        wide_a = (a.T if kept.transposes[0] else a).astype(np.float64)
        wide_b = (b.T if kept.transposes[1] else b).astype(np.float64)
        with np.errstate(all="ignore"):
            square = float(np.einsum("ij,ij->", wide_a.T @ wide_a, wide_b @ wide_b.T))
        if not math.isfinite(square):
            return None
        return math.sqrt(max(square, 0.0))
    else:
        values = _host_float(kept.values)
    if values is None:
        return None
    with np.errstate(all="ignore"):
        square = _squares(values.reshape(-1))
    return math.sqrt(square) if math.isfinite(square) else None


def _replica_estimate(shadow: _Shadow | None, shape: list[int]) -> tuple[float, bool] | None:
    """A replicated step's gradient norm as a model's global norm reads it, (norm, whether
    it is an estimate), without its whole values summed: the replicas' values added at the
    elements a single replica's step samples for its ring (``sample_step``: all of a
    gradient of at most ``SAMPLE`` elements, exact), read in host memory with one raw read
    per replica and no other op. Summing whole (``AddN``) and a pass over the sum took
    ~1 ms per 512x512 kernel at every stop, most of a distributed model's Locals. None
    where it cannot be read so (a device's memory, slices, factors, other dtypes)."""
    import numpy as np
    import tensorflow as tf

    if shadow is None or shadow.values is None or shadow.indices is not None:
        return None
    if shadow.factors is not None:
        return None
    reads = _replica_reads(tf, shadow.values)
    if reads is None:
        return None
    arrays = [_host_float(read) for read in reads]
    count = math.prod(shape) if shape else 1
    flats = []
    for array in arrays:
        if array is None or array.size != count:
            return None
        flats.append(array.reshape(-1))
    step = sample_step(shape)
    if step:
        blocks = SAMPLE // BLOCK
        flats = [flat[: blocks * step].reshape(blocks, step)[:, :BLOCK] for flat in flats]
    with np.errstate(all="ignore"):
        total = flats[0]
        for flat in flats[1:]:
            total = total + flat  # in the values' dtype, in the replicas' order, as AddN
        square = _squares(total.reshape(-1)) * (count / SAMPLE if step else 1.0)
    return math.sqrt(square), step > 0  # NaN and Inf carry through


class _Site:
    """One traced ``apply`` of a list of variables: how often it ran, and a ring of the
    last ``HISTORY`` steps' iterations and squared gradient norms."""

    def __init__(self, tf: Any, name: str, variables: list, replicated: bool) -> None:
        self.name = name  # the optimizer's class, or where a traced tape.gradient is
        # The optimizer that applies what the site keeps (set at trace time): its
        # ``iterations`` label the steps; None: a tape's own, counted by runs.
        self.optimizer: Callable[[], Any] | None = None
        self.variables = [weakref.ref(v) for v in variables]
        self.synced = 0
        self.steps = [0] * len(variables)  # per weight: its sample_step (0: norms exact)
        # Under several replicas each writes its own copy; the first one's is read.
        shared = _per_replica(tf, "ONLY_FIRST_REPLICA") if replicated else {}
        self.replicated = replicated
        self.counter = _variable(
            tf, replicated, 0, dtype=tf.int64, trainable=False, name="tfdr_steps", **shared
        )
        # The ring of iterations; per-replica variables have no scatter: there, the last.
        self.iterations = _variable(
            tf,
            replicated,
            tf.constant(-1, tf.int64)
            if replicated
            else tf.fill([HISTORY], tf.constant(-1, tf.int64)),
            trainable=False,
            name="tfdr_iterations",
            **shared,
        )
        self.squares = _variable(
            tf,
            replicated,
            tf.zeros([HISTORY, len(variables)], tf.float32),
            trainable=False,
            name="tfdr_norms",
        )
        # The last step's sample of each gradient whose values are not kept (made at the
        # trace, see _keep_samples), from which a stop computes its figures.
        self.samples: Any = None  # [sum of the rows' places] float32, row after row
        self.sample_counts: Any = None  # [rows] int64: how much of each row's place is its sample
        self.sample_rows: dict[int, int] = {}  # weight's index -> its row
        self.sample_offsets: list[int] = []  # per row: where its place starts in ``samples``
        self.sample_places: tuple[int, ...] = ()  # per row: its place's length
        # a replicated site's squares are never read (a replica's are not the sum's)
        _warm(tf, (self.counter, self.iterations) + (() if replicated else (self.squares,)))


def _warm(tf: Any, variables: tuple) -> None:
    """Read each of a site's own variables once where they are made (at the trace, in its
    ``init_scope``): TF makes a read's kernel at the first read of each dtype and shape
    (0.4-2.5 ms each, measured), which the first stop's Locals paid for the counter and
    the two rings, and under replicas for each shape of gradient on each replica's device
    (0.7-1.3 ms each, a distributed model's first Locals). Only the capture's own
    variables are read, eagerly, a per-replica one as a stop reads it (``_replica_sum``:
    raw reads of its replicas in host memory, nothing elsewhere), so no op joins the
    program's graph and no strategy's path runs (nothing where ``init_scope`` is not
    eager, a TF1 graph)."""
    from tensorflow.python.ops import resource_variable_ops

    with tf.init_scope():
        if not tf.executing_eagerly():
            return
        for variable in variables:
            if isinstance(variable, resource_variable_ops.BaseResourceVariable):
                _snapshot(variable)
            else:
                _replica_sum(tf, variable)


def _variable(tf: Any, replicated: bool, initial: Any, **kwargs: Any) -> Any:
    """One of the capture's variables. With one replica it is made past any variable
    creator: under a ``tf.distribute`` strategy's scope (a MirroredStrategy of one device is
    common) ``tf.Variable`` makes a mirrored variable, which the step's replica may not
    assign (``NotImplementedError``). Several replicas: the strategy's own, per replica."""
    if replicated:
        return tf.Variable(initial, **kwargs)
    from tensorflow.python.ops import resource_variable_ops

    return resource_variable_ops.ResourceVariable(initial, **kwargs)


def _per_replica(tf: Any, aggregation: str) -> dict:
    """A variable each replica writes locally, aggregated when read outside them: SUM
    for gradients (Keras scales each replica's loss, so the sum is the applied gradient;
    a plain variable would keep one replica's)."""
    return {
        "synchronization": tf.VariableSynchronization.ON_READ,
        "aggregation": getattr(tf.VariableAggregation, aggregation),
    }


def _is_slices(grad: Any) -> bool:
    return hasattr(grad, "indices") and hasattr(grad, "values")


def _shadow_for(
    tf: Any, site: Any, variable: Any, grad: Any, budget: int, replicated: bool, factored: bool
) -> _Shadow:
    """The variable's shadow, made (eagerly) at its first traced apply; ``factored``: it
    may keep a ``MatMul``'s factors (``_factors_of``)."""
    global _shadow_bytes
    key = (id(site), id(variable))
    shadow = _shadows.get(key)
    if shadow is not None:
        return shadow
    dtype = grad.dtype
    if _is_slices(grad):
        nbytes = int(math.prod(int(d or 0) for d in variable.shape)) * dtype.size
        fits = nbytes <= budget - _shadow_bytes
        # Rows differ from step to step: shapes left open.
        values = _variable(
            tf,
            replicated,
            tf.zeros([0] + list(grad.values.shape[1:]), dtype),
            shape=tf.TensorShape(None),
            trainable=False,
            name="tfdr_gradient_values",
        )
        indices = _variable(
            tf,
            replicated,
            tf.zeros([0], grad.indices.dtype),
            shape=tf.TensorShape(None),
            trainable=False,
            name="tfdr_gradient_indices",
        )
        dense_shape = tf.constant([int(d) for d in variable.shape], tf.int64)
        shadow = _Shadow(values if fits else None, indices if fits else None, dense_shape, 0)
    else:
        shape = [int(d) for d in variable.shape]
        nbytes = int(math.prod(shape)) * dtype.size
        fits = nbytes <= budget - _shadow_bytes
        summed = _per_replica(tf, "SUM") if replicated else {}
        found = _factors_of(grad) if fits and factored else None
        conv = _conv_factors_of(grad) if fits and factored and found is None else None
        if found is not None or conv is not None:
            # Shapes left open: the batch (the factors' inner dimension) may change, and
            # the values are written only by a trace that has no such factors.
            values, a, b = (
                _variable(
                    tf,
                    replicated,
                    tf.zeros([0], dtype),
                    shape=tf.TensorShape(None),
                    trainable=False,
                    name=name,
                )
                for name in ("tfdr_gradient", "tfdr_gradient_a", "tfdr_gradient_b")
            )
            shadow = _Shadow(values, None, None, 0, (a, b))
            if found is not None:
                shadow.transposes = (found[2], found[3])
            elif conv is not None:
                shadow.conv = (shape, conv[2])
        else:
            values = (
                _variable(
                    tf,
                    replicated,
                    tf.zeros(shape, dtype),
                    trainable=False,
                    name="tfdr_gradient",
                    **summed,
                )
                if fits
                else None
            )
            shadow = _Shadow(values, None, None, 0)
            if values is not None and replicated:
                _warm(tf, (values,))  # a stop reads each replica's (``_replica_estimate``)
    if fits:
        shadow.nbytes = nbytes
        _shadow_bytes += nbytes
    _shadows[key] = shadow
    weakref.finalize(variable, _drop_shadow, key, shadow)
    return shadow


def _drop_shadow(key: tuple[int, int], shadow: _Shadow) -> None:
    global _shadow_bytes
    with _lock:
        if _shadows.get(key) is shadow:
            del _shadows[key]
            _shadow_bytes -= shadow.nbytes


def _site_for(tf: Any, optimizer: Any, variables: list, replicated: bool) -> _Site:
    with _lock:
        sites = _sites.setdefault(optimizer, {})
        key = tuple(id(v) for v in variables)
        site = sites.get(key)
        if site is None:
            site = sites[key] = _Site(tf, type(optimizer).__name__, variables, replicated)
            site.optimizer = weakref.ref(optimizer)
        return site


def _replicas() -> int:
    import tensorflow as tf  # the public name: TF <= 2.12 had no distribute_lib's

    context = tf.distribute.get_replica_context()
    return 1 if context is None else int(context.num_replicas_in_sync)


def capture(optimizer: Any, grads: Any, variables: Any, budget: int) -> Callable | None:
    """Inside a trace of ``optimizer.apply(grads, variables)``, before the optimizer's own
    ops: read ``iterations`` before this step counts and the gradients' squared norms.
    Returns what to call once the optimizer's ops are in: the copies of the values. They
    are not ordered after the optimizer's updates: control edges on reads of the updated
    variables cost 2-5% of a 25M-parameter step in A/B runs; the copies of all 100 MiB of
    a step's gradients read 1.00 under XLA. When a traced ``tape.gradient`` of this graph kept
    these very tensors (``capture_tape``), only the iteration is added to its site: the
    optimizer names its steps."""
    if variables is None:  # apply(grads): the optimizer's own list
        variables = getattr(optimizer, "_trainable_variables", None)
    if not isinstance(grads, (list, tuple)) or not isinstance(variables, (list, tuple)):
        return None  # an iterator: reading it would take it from the optimizer
    if type(optimizer).__name__ == "LossScaleOptimizer":
        return None  # its inner optimizer's apply gets the unscaled gradients
    import tensorflow as tf

    pairs = _float_pairs(grads, variables)
    if not pairs:
        return None
    replicated = _replicas() > 1
    kept = None if replicated else _kept_by_tape(tf, pairs)
    if kept is not None:
        site, slot = kept
        site.name, site.optimizer = type(optimizer).__name__, weakref.ref(optimizer)
        with _own_ops(tf):
            site.iterations.scatter_nd_update([[slot]], [_iteration(tf, optimizer)])
        return None
    # Factors only in graph mode: XLA computes the product its own way (and meets the
    # cost goal keeping values), and replicas' factors do not sum to the applied gradient.
    factored = not replicated and not _in_xla(tf)
    with tf.init_scope():  # the shadows are made eagerly, outside the step's graph
        site = _site_for(tf, optimizer, [v for _, v in pairs], replicated)
        shadows = _shadows_for(tf, site, pairs, budget, replicated, factored)
    with _own_ops(tf):
        if replicated:  # a replica's squares are not the applied gradient's
            site.iterations.assign(_iteration(tf, optimizer))
        else:
            slot = _write_norms(tf, site, pairs, shadows)
            site.iterations.scatter_nd_update([[slot]], [_iteration(tf, optimizer)])
    return lambda: _keep_values(site, pairs, shadows, factored)


def capture_tape(where: str, grads: Any, variables: Any, budget: int) -> None:
    """Inside a trace, after ``tape.gradient(target, variables)`` returned ``grads``: the
    same ops as an optimizer's (values within the budget, the norm ring), on a site of
    this call; its steps are counted by runs (``call #5 at train.py:42``) until an
    optimizer of the same trace applies these gradients and names them by its iterations.
    Several replicas: left to the optimizer (a replica's gradient is not the one applied)."""
    import tensorflow as tf

    pairs = _float_pairs(grads, variables)
    if not pairs or _replicas() > 1:
        return
    graph = tf.compat.v1.get_default_graph()
    factored = not _in_xla(tf)
    with tf.init_scope():
        ids = tuple(id(v) for _, v in pairs)
        with _lock:
            site = _tape_sites.get((where, ids))
            if site is None:
                site = _tape_sites[(where, ids)] = _Site(
                    tf, TAPE_SITE + where, [v for _, v in pairs], False
                )
        shadows = _shadows_for(tf, site, pairs, budget, False, factored)
    with _own_ops(tf):
        slot = _write_norms(tf, site, pairs, shadows)
        _keep_values(site, pairs, shadows, factored)
    with _lock:
        _kept_in.setdefault(graph, {}).update({id(g): (site, slot) for g, _ in pairs})


@contextlib.contextmanager
def _own_ops(tf: Any) -> Any:
    """Where the ops this module adds to a step are made: never recorded on a tape, and
    under one name scope, ``tf_debug_repr``, so that a profile of the step shows their cost
    apart (``benchmarks/compiled_capture.py --part profile`` sums it)."""
    from ..core import tf_compat

    record = tf_compat.tape_recording()

    with record.stop_recording(), tf.name_scope("tf_debug_repr"):
        yield


def _float_pairs(grads: Any, variables: Any) -> list[tuple[Any, Any]]:
    if len(grads) != len(variables):
        return []
    return [
        (g, v)
        for g, v in zip(grads, variables)
        if g is not None
        and hasattr(g, "dtype")
        and (g.dtype.is_floating or g.dtype.is_complex)
        and hasattr(v, "shape")
    ]


def _kept_by_tape(tf: Any, pairs: list) -> tuple[Any, Any] | None:
    """The tape site of this graph that kept every one of these gradient tensors."""
    with _lock:
        kept = _kept_in.get(tf.compat.v1.get_default_graph()) or {}
        found = [kept.get(id(g)) for g, _ in pairs]
    first = found[0]
    if first is None or any(f is None or f[0] is not first[0] for f in found):
        return None
    return first if len(first[0].variables) == len(pairs) else None


def _iteration(tf: Any, optimizer: Any) -> Any:
    return tf.cast(tf.convert_to_tensor(optimizer.iterations), tf.int64)


def _shadows_for(
    tf: Any, site: _Site, pairs: list, budget: int, replicated: bool, factored: bool
) -> list:
    """Made eagerly (under ``init_scope``)."""
    site.steps = [_step_of(g) for g, _ in pairs]
    with _lock:
        return [_shadow_for(tf, site, v, g, budget, replicated, factored) for g, v in pairs]


def _in_xla(tf: Any) -> bool:
    """Whether the step being traced is compiled by XLA (``jit_compile``)."""
    from tensorflow.python.ops import control_flow_util

    return bool(control_flow_util.GraphOrParentsInXlaContext(tf.compat.v1.get_default_graph()))


# A product's elements from which its factors are kept though the batch is not known at the
# trace (1 MiB of float32): smaller gradients cost nothing measurable held whole.
FACTORED_MIN = 1 << 18


def _factors_of(grad: Any) -> tuple[Any, Any, bool, bool] | None:
    """The two inputs and transposes of the ``MatMul`` that computed a dense gradient (a
    ``Dense`` kernel's: the layer's input and its output's gradient), when they hold fewer
    elements than the product. Where the inner dimension (the batch) is not known at the
    trace, only for a product of ``FACTORED_MIN`` elements or more, and each step keeps
    the product instead when its batch makes the factors the larger (past
    rows·cols/(rows+cols): ``_keep_factors``).

    Why: a shadow that holds the gradient's own buffer until the next step costs graph mode
    1.6-3% of a 25M-parameter Adam step (benchmarks/compiled_capture.py; the capture's own
    ops are 0.2-0.6% of it, and a real copy costs more); holding the factors instead, ~0.
    A stop multiplies them again with the same kernel."""
    try:
        op = grad.op
    except AttributeError:  # an eager tensor
        return None
    if op.type != "MatMul" or len(op.inputs) != 2 or not grad.shape.is_fully_defined():
        return None
    a, b = op.inputs
    transposes = (bool(op.get_attr("transpose_a")), bool(op.get_attr("transpose_b")))
    if a.shape.rank != 2 or b.shape.rank != 2 or a.dtype != grad.dtype:
        return None
    inner = a.shape[0] if transposes[0] else a.shape[1]
    rows, cols = (int(d) for d in grad.shape)
    if inner is None and rows * cols < FACTORED_MIN:
        return None
    if inner is not None and int(inner) * (rows + cols) >= rows * cols:
        return None
    return a, b, transposes[0], transposes[1]


def _write_norms(tf: Any, site: _Site, pairs: list, shadows: list) -> Any:
    """This step's squared norms into the ring, and the samples they came from for the
    gradients whose values are not kept; returns the ring's slot."""
    slot = tf.math.floormod(site.counter.read_value(), HISTORY)
    samples = [_sample(tf, g, k) for (g, _), k in zip(pairs, site.steps)]
    # One multiply of the stacked L2Losses by their factors (a constant of the trace), not
    # one per weight: the same float32 products, 1 op instead of one per weight.
    losses = tf.stack([tf.nn.l2_loss(values) for values, _ in samples])
    squares = losses * tf.constant([2.0 * scale for _, scale in samples], tf.float32)
    site.squares.scatter_nd_update([[slot]], [squares])
    rows = [i for i, shadow in enumerate(shadows) if shadow.values is None]
    if rows:
        _keep_samples(tf, site, rows, [samples[i][0] for i in rows])
    return slot


def _keep_samples(tf: Any, site: _Site, rows: list[int], samples: list) -> None:
    """A copy of the sample (at most ``SAMPLE`` floats, 256 KiB) of each gradient whose
    values are not kept: a stop computes its figures (range, mean, std, NaN/Inf counts)
    from it. Computed in the step instead, those figures cost ~2 ms of CPU per 16M-element
    weight under XLA (its CPU reductions), 4-5% of a 25M-parameter step with no values kept.

    One vector, each sample after the one before, in a place of its own length: a sample
    of known size (a dense gradient's) takes just its elements. Each padded to ``SAMPLE``
    and stacked, a 128-float bias wrote 2 x 256 KiB a step (the pad, then the stack): 552
    ops and 1.043x the transformer's step of ``benchmarks/capture_parts.py`` with no values
    kept. A sample whose size the trace does not know (``IndexedSlices``' values) is padded
    to ``SAMPLE``, so that every place is known at the trace (an XLA step's variable keeps
    its shape)."""
    where = {i: k for k, i in enumerate(rows)}
    # ``IndexedSlices`` values of more than SAMPLE elements: their first SAMPLE
    flats = [tf.reshape(sample, [-1])[:SAMPLE] for sample in samples]
    places = tuple(SAMPLE if flat.shape[0] is None else int(flat.shape[0]) for flat in flats)
    if site.samples is None or site.sample_rows != where or site.sample_places != places:
        with tf.init_scope():
            site.samples = _variable(
                tf,
                site.replicated,
                tf.zeros([sum(places)], tf.float32),
                trainable=False,
                name="tfdr_samples",
            )
            site.sample_counts = _variable(
                tf,
                site.replicated,
                tf.zeros([len(rows)], tf.int64),
                trainable=False,
                name="tfdr_sample_counts",
            )
        site.sample_rows = where
        site.sample_places = places
        site.sample_offsets = [sum(places[:k]) for k in range(len(places))]
    parts = [
        tf.pad(flat, [[0, SAMPLE - tf.size(flat)]]) if flat.shape[0] is None else flat
        for flat in flats
    ]
    site.sample_counts.assign(tf.stack([tf.size(flat, out_type=tf.int64) for flat in flats]))
    site.samples.assign(tf.concat(parts, 0))


def _sample_figures(sample: Any) -> Any:
    """min, max, mean, std (of the finite elements), NaN, +Inf, -Inf of a kept sample (as
    gradients/figures.Figures holds them)."""
    import numpy as np

    return np.array(host_moments(sample) + host_counts(sample))


def _keep_values(site: _Site, pairs: list, shadows: list, factored: bool) -> None:
    import tensorflow as tf

    with _own_ops(tf):
        for (grad, _), shadow in zip(pairs, shadows):
            if shadow.values is None:
                continue
            if shadow.factors is not None and shadow.conv is not None:
                conv = _conv_factors_of(grad) if factored else None
                if conv is not None and conv[2] == shadow.conv[1]:
                    _keep_conv_factors(tf, shadow, grad, conv)
                    continue
                _keep_product(tf, shadow, grad)
            elif shadow.factors is not None:
                found = _factors_of(grad) if factored else None
                if found is not None and (found[2], found[3]) == shadow.transposes:
                    _keep_factors(tf, shadow, grad, found)
                    continue
                # Another trace of this site with no such product (XLA, another op): its
                # values, and an empty first factor.
                _keep_product(tf, shadow, grad)
            elif shadow.indices is not None:
                shadow.values.assign(grad.values)
                shadow.indices.assign(grad.indices)
            else:
                shadow.values.assign(grad)
        site.counter.assign_add(1)


def _keep_product(tf: Any, shadow: _Shadow, grad: Any) -> None:
    """A factored shadow given the gradient's values (a trace with no such product)."""
    factors = shadow.factors
    assert factors is not None
    factors[0].assign(tf.zeros([0], factors[0].dtype))
    shadow.values.assign(grad)


def _keep_factors(tf: Any, shadow: _Shadow, grad: Any, found: tuple) -> None:
    """The ``MatMul``'s factors into the shadow. Where the batch was unknown at the trace, a
    step whose batch makes the factors bigger than the gradient keeps the gradient instead
    (decided in the step), so that what is kept never outgrows the budget's count (the
    gradient's bytes); the other side then holds an empty slice."""
    a, b, transpose_a, _ = found
    factors = shadow.factors
    assert factors is not None
    inner = a.shape[0] if transpose_a else a.shape[1]
    if inner is not None:  # known at the trace: _factors_of kept only smaller factors
        _keep_both(tf, shadow, grad, a, b)
        return
    rows, cols = (int(d) for d in grad.shape)
    batch = tf.shape(a, out_type=tf.int64)[0 if transpose_a else 1]
    _keep_factors_or_values(tf, shadow, grad, a, b, batch * (rows + cols) < rows * cols)


def _keep_both(tf: Any, shadow: _Shadow, grad: Any, a: Any, b: Any) -> None:
    """Both factors whole, decided at the trace; the values an empty slice (not a reader)."""
    factors = shadow.factors
    assert factors is not None
    factors[0].assign(a)
    factors[1].assign(b)
    shadow.values.assign(tf.zeros([0] + [int(d) for d in grad.shape[1:]], grad.dtype))


def _keep_factors_or_values(
    tf: Any, shadow: _Shadow, grad: Any, a: Any, b: Any, small: Any
) -> None:
    """Decided in the step (``small``: the factors hold fewer elements than the gradient):
    the factors, or the gradient's values. No tf.cond: its lowering met a Grappler
    constant-folding bug that read a Shape as [] at run time (TF 2.21). A slice of every
    row shares its tensor's buffer, a slice of none holds nothing: so each side is kept
    whole or not at all, never copied."""
    factors = shadow.factors
    assert factors is not None
    zero = tf.constant(0, tf.int64)
    for variable, tensor in ((factors[0], a), (factors[1], b)):
        whole = tf.shape(tensor, out_type=tf.int64)[0]
        variable.assign(tensor[: tf.where(small, whole, zero)])
    rows = tf.constant(int(grad.shape[0]), tf.int64)
    shadow.values.assign(grad[: tf.where(small, zero, rows)])


def _conv_factors_of(grad: Any) -> tuple[Any, Any, dict] | None:
    """The input and output gradient of the ``Conv2DBackpropFilter`` that computed a dense
    gradient (a ``Conv2D`` kernel's), with the op's attributes, when they hold fewer
    elements than the kernel: the big kernels of a convolutional network's last stages
    (ResNet-50 at 64x64, batch 8: a 3x3x512x512 kernel's 2,359,296 elements from 32,768).
    As for a ``MatMul`` (``_factors_of``): where a size is not known at the trace, only for
    a gradient of ``FACTORED_MIN`` elements or more, and each step decides. A stop computes
    the same op, with the same kernel, on them: bit-equal to the step's (all 53 of
    ResNet-50's kernels, tests/unit/test_compiled_capture.py), on CPU: with a GPU present
    the values are kept (cuDNN may pick a non-deterministic algorithm).

    Why: the input is one the step keeps for its backward pass anyway, and the output's
    gradient is read by the convolution's other backward ops; holding the kernel's gradient
    instead costs a fresh buffer a step (``benchmarks/capture_parts.py``)."""
    try:
        op = grad.op
    except AttributeError:  # an eager tensor
        return None
    if op.type != "Conv2DBackpropFilter" or len(op.inputs) != 3:
        return None
    if not grad.shape.is_fully_defined() or grad.shape.rank != 4 or _gpus():
        return None
    a, _, b = op.inputs
    if a.dtype != grad.dtype or b.dtype != grad.dtype or a.shape.rank != 4:
        return None
    names = ("strides", "padding", "explicit_paddings", "dilations", "data_format")
    try:
        attrs = {name: op.get_attr(name) for name in names}
    except ValueError:
        return None
    if isinstance(attrs["padding"], bytes):
        attrs["padding"] = attrs["padding"].decode()
    if isinstance(attrs["data_format"], bytes):
        attrs["data_format"] = attrs["data_format"].decode()
    elements = grad.shape.num_elements()
    if not (a.shape.is_fully_defined() and b.shape.is_fully_defined()):
        return (a, b, attrs) if elements >= FACTORED_MIN else None
    if a.shape.num_elements() + b.shape.num_elements() >= elements:
        return None
    return a, b, attrs


def _gpus() -> bool:
    import tensorflow as tf

    return bool(tf.config.list_logical_devices("GPU"))


def _keep_conv_factors(tf: Any, shadow: _Shadow, grad: Any, found: tuple) -> None:
    """A ``Conv2DBackpropFilter``'s input and output gradient into the shadow, as
    ``_keep_factors`` does a ``MatMul``'s: whole or (a step whose sizes make them bigger
    than the gradient) not at all, the gradient itself then kept instead."""
    a, b, _ = found
    if a.shape.is_fully_defined() and b.shape.is_fully_defined():  # decided at the trace
        _keep_both(tf, shadow, grad, a, b)
        return
    elements = tf.constant(grad.shape.num_elements(), tf.int64)
    small = tf.size(a, out_type=tf.int64) + tf.size(b, out_type=tf.int64) < elements
    _keep_factors_or_values(tf, shadow, grad, a, b, small)


# Per step, a weight's norm reads at most this many of its gradient's elements: a whole
# pass over every gradient costs as much as 6-13% of a 25M-parameter step on 2 CPU cores
# (memory bandwidth; XLA's CPU reductions are no faster), a sample of this size ~0.
SAMPLE = 1 << 16
# ... in blocks of this many consecutive elements (256 bytes of float32): a 4096x4096
# gradient's sample costs 0.45 ms of CPU read as 1,024 blocks, 1.1 ms as every 257th element
# (one cache line per element), 5.3 ms read whole (measured in one process, 20 rounds).
BLOCK = 64


def sample_step(shape: list[int]) -> int:
    """0 for a gradient of at most ``SAMPLE`` elements (its norm is exact); else the
    distance between the starts of ``SAMPLE // BLOCK`` blocks of ``BLOCK`` consecutive
    elements spread over the whole gradient. Prime to the last dimension where it can
    be, so that the blocks start at every column in turn (a step the row length divides
    would read the same few columns of every row)."""
    count = math.prod(shape) if shape else 1
    if count <= SAMPLE:
        return 0
    step = count // (SAMPLE // BLOCK)  # >= BLOCK: count > SAMPLE
    # Down, not up: the last block must still end inside the gradient.
    return prime_stride(step, shape[-1] if shape else 1, floor=BLOCK)


def _step_of(grad: Any) -> int:
    """The sample step of a gradient of static shape (``IndexedSlices`` have as many
    rows as the batch touched: exact)."""
    if _is_slices(grad) or not grad.shape.is_fully_defined():
        return 0
    return sample_step([int(d) for d in grad.shape])


def _sample(tf: Any, grad: Any, step: int) -> tuple[Any, float]:
    """The float32 elements a step reads of a gradient (``SAMPLE // BLOCK`` blocks of
    ``BLOCK``, ``step`` apart, or all), and the factor that scales their sum of squares
    to the whole gradient's."""
    values = grad.values if _is_slices(grad) else grad
    scale = 1.0
    if step:
        blocks = SAMPLE // BLOCK
        flat = tf.reshape(values, [-1])
        count = int(flat.shape[0])
        # A prefix of the flat gradient (TF slices it without a copy) as rows of ``step``: the
        # first ``BLOCK`` of each row are the sample.
        values = tf.reshape(flat[: blocks * step], [blocks, step])[:, :BLOCK]
        scale = count / SAMPLE
    if values.dtype.is_complex:
        values = tf.abs(values)
    if values.dtype != tf.float32:  # float16 squares overflow; float64 is kept as float32
        values = tf.cast(values, tf.float32)
    # The squared norm is then ``2 * scale * L2Loss``: one kernel (sum(g²)/2), where
    # square-then-sum writes a temporary and reads it again. NaN/Inf carry through.
    return values, scale


# --------------------------------------------------------------------------- reading


def sample_note(variable: Any) -> str:
    """How a weight's per-step norms are estimated, for its rows."""
    shape = [int(d or 0) for d in getattr(variable, "shape", [])]
    count = math.prod(shape) if shape else 1
    return (
        f"~ each compiled step's norm is estimated from {SAMPLE:,} of its {count:,} gradient "
        f"elements ({SAMPLE // BLOCK:,} blocks of {BLOCK} spread over it: a whole pass would "
        "cost a few % of the step); the last step's is exact where its values are kept"
    )


def _exact_norm(tf: Any, gradient: Any) -> float | None:
    if gradient is None:
        return None
    values = gradient.values if _is_slices(gradient) else gradient
    if values.dtype.is_complex:
        values = tf.abs(values)
    if values.dtype not in (tf.float32, tf.float64):
        values = tf.cast(values, tf.float32)
    return float(tf.norm(values))


# What the stops have read of each site (weakly: a site goes with its optimizer).
_reads: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# id(variable), and id of the tf.Variable inside a Keras one -> [(k, i)]: the variable is
# the ``i``-th of the ``k``-th site in ``_order`` (in the order sync stores them).
_index: dict[int, list[tuple[int, int]]] = {}
# the sites ``_index`` was made from, in ``_look``'s order (weakly: nothing here may keep
# an optimizer, and so its model's variables, alive)
_order: list[weakref.ref] = []


class _Read:
    """What the stops have read of one site: its counter at the last look, the rings read
    at that count (on first need: the ring of squared norms is one read for every
    weight), and per weight the count its record holds steps up to. A weight's record
    is built (``_store_weight``) when something asks for that weight, not at every stop:
    a stop costs each site's counter, whatever the model's size."""

    __slots__ = ("count", "estimates", "norms", "rings", "samples", "stored")

    def __init__(self, size: int) -> None:
        self.count = 0
        # a replicated site's weights' norms at count (``_replica_estimate``), as first read
        self.estimates: dict[int, tuple[float, bool] | None] = {}
        self.rings: tuple[Any, Any] | None = None  # iterations, squares (numpy) at count
        self.samples: tuple[Any, Any] | None = None  # samples, their counts at count
        self.stored = [0] * size
        self.norms: list[_Norm | None] = [None] * size  # each weight's last stored norm


class _Reading:
    """A weight's kept values at one step of its site, read (``_Shadow.read``: raw reads
    that a later step never writes into) when first needed: its exact norm or its values
    shown. None where a later step ran first (the record is built again for it anyway:
    every view asks ``record_of`` first)."""

    __slots__ = ("_count", "_kept", "_read", "_shadow", "_site")

    def __init__(self, site: _Site, shadow: _Shadow, count: int) -> None:
        self._site, self._shadow, self._count = site, shadow, count
        self._kept: _Kept | None = None
        self._read = False

    def kept(self) -> _Kept | None:
        if not self._read:
            from ..core.guards import harmless

            with _lock, harmless():
                if _count_now(self._site) == self._count:
                    self._kept = self._shadow.read()
            self._read = True
        return self._kept

    def gradient(self) -> Any:
        kept = self.kept()
        return None if kept is None else kept.gradient()


def _count_now(site: _Site) -> int:
    """The site's counter now: the count this request's look read (no step runs within
    one request), else one read."""
    if _held:
        for _, looked_site, read in _held[0]:
            if looked_site is site:
                return read.count
    return int(_value(site.counter))


class _Norm:
    """A weight's last-step norm in its record: exact, from the values the step kept
    (a factored kernel's from its factors' Gram matrices), computed when first read
    (``as_float`` calls ``numpy``). ``quick``: the figure the step wrote into the ring
    (exact up to ``SAMPLE`` elements, else an estimate), which a model's global norm reads
    without computing any weight's. Never read before the weight's next step is recorded
    (``settle``), it keeps the ring's figure, an estimate (``estimated``) where it is one,
    and lets the values go."""

    __slots__ = ("_reading", "_value", "estimated", "ring", "sampled")

    def __init__(self, reading: _Reading | None, ring: float | None, sampled: bool) -> None:
        self._reading = reading
        self._value: float | None = None
        self.ring = ring
        self.sampled = sampled
        self.estimated = False

    def numpy(self) -> float | None:
        reading = self._reading
        if reading is not None:
            from ..core.guards import harmless

            try:
                kept = reading.kept()
                with _lock, harmless():
                    self._value = kept.norm() if kept is not None else None
            except Exception:  # the ring's figure is still this step's norm
                self._value = None
            if self._value is None:
                self._value, self.estimated = self.ring, self.sampled
            self._reading = None
        return self._value

    def settle(self) -> None:
        """The weight's next step is being recorded: a norm never read keeps the ring's."""
        if self._reading is not None:
            self._reading = None
            self._value, self.estimated = self.ring, self.sampled

    @property
    def quick(self) -> tuple[float | None, bool]:
        if self.ring is None:  # several replicas: only the summed values tell it
            return self.numpy(), False
        return self.ring, self.sampled


class _LazyFigures:
    """A sample's figures (``Figures.values``), computed when first shown."""

    __slots__ = ("_sample", "_values")

    def __init__(self, sample: Any) -> None:
        self._sample = sample
        self._values: Any = None

    def numpy(self) -> Any:
        if self._values is None:
            self._values = _sample_figures(self._sample)
            self._sample = None
        return self._values


# Inside ``one_look``: the sites as its first look found them (no step runs meanwhile).
_held: list | None = None
# The debugger's request whose blocks share one look (held, so that its id is never a
# later request's), and that look with its optimizers and sites held weakly (a request
# answered long ago must not keep a model alive); None before a block of it looked.
_request_look: tuple[Any, list | None] = (None, None)


@contextlib.contextmanager
def one_look(request: Any = None) -> Any:
    """Within the block, each site's counter is read once: a view that asks for the
    pending steps and then for the records (a global norm) reads them once, not twice.
    ``request``: the debugger's request the block answers (pydevd's, see
    ``hosts.pydevd.adapter``): every block of that one request shares its first look
    (pydevd asks for each row of Locals apart; the program is suspended, and no step
    runs within one request), and a block of another request looks again. Holds
    ``_lock`` (re-entrant) for the block."""
    global _held, _request_look
    with _lock:
        if _held is not None:  # nested: the outer block's look serves
            yield
            return
        _held = []
        if request is not None and _request_look[0] is request:
            found = _strong(_request_look[1])
            if found is not None:
                _held.append(found)
        try:
            yield
        finally:
            if request is not None and _held:
                _request_look = (request, _weak(_held[0]))
            _held = None


def _weak(looked: list) -> list:
    return [
        (None if optimizer is None else weakref.ref(optimizer), weakref.ref(site), read)
        for optimizer, site, read in looked
    ]


def _strong(weak: list | None) -> list | None:
    """A look kept by ``_weak``, or None where it was none or what it saw is gone."""
    if weak is None:
        return None
    looked = []
    for optimizer_ref, site_ref, read in weak:
        optimizer = None if optimizer_ref is None else optimizer_ref()
        site = site_ref()
        if site is None or (optimizer_ref is not None and optimizer is None):
            return None
        looked.append((optimizer, site, read))
    return looked


def _look() -> list[tuple[Any, _Site, _Read]]:
    """Every live site with what was read of it, its counter read now (one raw read a
    site); a site whose counter moved forgets its rings, and the records' generation moves
    (a view that keeps a line until it does, a notebook's, looks again). Under ``_lock``."""
    if _held:
        return _held[0]
    looked = _look_now()
    if _held is not None:
        _held.append(looked)
    return looked


def _look_now() -> list[tuple[Any, _Site, _Read]]:
    from .records import lock

    found = _found_sites()
    moved = False
    looked = []
    for optimizer, site in found:
        read = _reads.get(site)
        if read is None:
            read = _reads[site] = _Read(len(site.variables))
        count = int(_value(site.counter))
        if count != read.count:
            read.count, read.rings, read.samples = count, None, None
            read.estimates = {}
            moved = True
        looked.append((optimizer, site, read))
    if moved:
        with lock:  # counts as a change of the records
            pass
    return looked


def _found_sites() -> list[tuple[Any, _Site]]:
    """Every live site with its optimizer (None: a tape's own), tapes first; a tape site
    whose variables are all gone is dropped. ``_index`` is made again where the sites
    changed since it was made. No op: the counters are not read. Under ``_lock``."""
    found: list[tuple[Any, _Site]] = []
    # Tapes first: where an optimizer applied something else (clipped, unscaled), its
    # record is the latest, as in eager steps.
    for key, site in list(_tape_sites.items()):
        if all(ref() is None for ref in site.variables):
            del _tape_sites[key]  # the model is gone: so is what its steps kept
            continue
        found.append((site.optimizer() if site.optimizer else None, site))
    for optimizer, sites in list(_sites.items()):
        found.extend((optimizer, site) for site in list(sites.values()))
    if len(found) != len(_order) or any(ref() is not site for ref, (_, site) in zip(_order, found)):
        _reindex(found)
        _order[:] = [weakref.ref(site) for _, site in found]
    return found


def _any_weight(objs: Any) -> bool:
    """Whether any of ``objs`` (variables, Keras variables, tensors) is a weight of a live
    site, by identity: where none is, a stop's records of them need no counter read (a
    Locals row of a tensor or of a variable no compiled step applies to). Under
    ``_lock``."""
    if not _held:  # else this request read the counters already: its index is current
        _found_sites()
    for obj in objs:
        for candidate in (obj, getattr(obj, "_value", None)):
            if candidate is not None and id(candidate) in _index:
                return True
    return False


def _reindex(found: list[tuple[Any, _Site]]) -> None:
    _index.clear()
    for k, (_, site) in enumerate(found):
        for i, ref in enumerate(site.variables):
            variable = ref()
            if variable is None:
                continue
            for each in (variable, getattr(variable, "_value", None)):
                if each is not None:
                    _index.setdefault(id(each), []).append((k, i))


def _positions(
    obj: Any, looked: list[tuple[Any, _Site, _Read]]
) -> list[tuple[Any, _Site, _Read, int, Any]]:
    """Where ``obj`` (a variable, a Keras variable or the tf.Variable inside one) is a
    site's weight: (optimizer, site, read, index, the site's variable), in sync order."""
    found = []
    for candidate in (obj, getattr(obj, "_value", None)):
        if candidate is None:
            continue
        for k, i in _index.get(id(candidate), ()):
            if k >= len(looked):
                continue
            optimizer, site, read = looked[k]
            variable = site.variables[i]()
            if variable is candidate or (
                variable is not None and getattr(variable, "_value", None) is candidate
            ):
                found.append((optimizer, site, read, i, variable))
        if found:
            break
    return found


def sync(store: Callable[..., None], wanted: Any = None) -> None:
    """Read each site's counter; hand the steps run since a weight's record was last
    built to ``store(variable, optimizer, name, [(iteration, norm, sampled)], gradient,
    figures, skipped=n)`` (gradient capture's records), for the weights of ``wanted``
    only (every weight where it is None). ``norm``: a float from the ring, estimated
    (``sampled``) from a sample past ``SAMPLE`` elements (``sample_note``); the last
    step's, where its values were kept, a ``_Norm`` that computes the exact one when
    first read. ``gradient``: a function giving the last step's values, computed when
    first asked, None where they were not kept; the figures of the last step where its
    values were not kept (computed when shown); ``skipped``: steps run since the
    weight's record was last built that the ring no longer holds. Runs eagerly, off
    every tape (a stop may be inside a trace or a tape)."""
    if not _sites and not _tape_sites:
        return
    from ..core.guards import harmless

    with _lock:
        if wanted and not _any_weight(wanted):
            return  # no site holds any of them: no counter to read (a tensor's row)
        with harmless():  # entered only where there is a counter to read (~20 µs a row)
            _sync_looked(store, wanted)


def _sync_looked(store: Callable[..., None], wanted: Any) -> None:
    """``sync``'s reads and records, under ``_lock`` and ``harmless``."""
    looked = _look()
    if wanted is None:
        for optimizer, site, read in looked:
            for i, ref in enumerate(site.variables):
                variable = ref()
                if variable is not None and read.stored[i] < read.count:
                    _store_weight(store, optimizer, site, read, i, variable)
        return
    for obj in wanted:
        for optimizer, site, read, i, variable in _positions(obj, looked):
            if read.stored[i] < read.count:
                _store_weight(store, optimizer, site, read, i, variable)


def pending(variables: list) -> list[tuple[float, bool, str] | None]:
    """Per variable, the last step of a compiled site that its record does not hold yet
    (``sync`` has not built it: nobody asked for that weight since the step): (its norm
    from the ring, whether that is an estimate, the label its record will have; several
    replicas: ``_replica_estimate``). None where the variable's record tells its latest
    gradient (nothing pending, no compiled site, replicas that cannot be read so). What a
    model's global norm needs, with no weight's record built: the ring of squared norms
    is one read per site."""
    if not _sites and not _tape_sites:
        return [None] * len(variables)
    from ..core.guards import harmless

    found: list[tuple[float, bool, str] | None] = []
    with _lock:
        if not _any_weight(variables):
            return [None] * len(variables)
        with harmless():  # entered only where there is a counter to read
            looked = _look()
            for variable in variables:
                latest = None
                for optimizer, site, read, i, own in _positions(variable, looked):
                    if read.stored[i] < read.count:
                        latest = (optimizer, site, read, i, own)
                if latest is None:
                    found.append(None)
                    continue
                optimizer, site, read, i, own = latest
                iterations, squares = _rings(site, read)
                label = _label_of(site, optimizer, read, iterations)
                if site.replicated:
                    estimate = _estimate(site, read, i, own)
                    found.append(None if estimate is None else (*estimate, label))
                    continue
                last = (read.count - 1) % HISTORY
                norm = math.sqrt(float(squares[last, i]))  # NaN and Inf carry through
                found.append((norm, site.steps[i] > 0, label))
    return found


def _estimate(site: _Site, read: _Read, i: int, variable: Any) -> tuple[float, bool] | None:
    """A replicated site's weight ``i``'s last-step norm (``_replica_estimate``), read
    once per step."""
    if i not in read.estimates:
        shape = [int(d or 0) for d in variable.shape]
        shadow = _shadows.get((id(site), id(variable)))
        read.estimates[i] = _replica_estimate(shadow, shape)
    return read.estimates[i]


def _label_of(site: _Site, optimizer: Any, read: _Read, iterations: Any) -> str:
    """The label the record of ``site``'s last step has (``capture.store_compiled``)."""
    from .records import optimizer_text, step_label

    if optimizer is None:
        where = site.name.removeprefix(TAPE_SITE)
        return step_label(None, None, read.count, where, "")
    own = optimizer_text(site.name, getattr(optimizer, "name", None))
    if site.replicated:  # no ring: the last step's iteration
        return step_label(own, int(iterations), 0, "", "")
    return step_label(own, int(iterations[(read.count - 1) % HISTORY]), 0, "", "")


def _value(variable: Any) -> Any:
    """A capture variable's value now as numpy, by one raw read (``_snapshot``): a
    variable's public ``numpy()`` runs its ``read_value`` path, ~35 µs against ~10 µs, and
    the site's counter is read at every ``record_of`` of a stop (dozens per Locals)."""
    return _snapshot(variable).numpy()


def _rings(site: _Site, read: _Read) -> tuple[Any, Any]:
    """The site's rings of iterations and squared norms at ``read.count``, read once."""
    if read.rings is None:  # a replicated site's squares are never written
        squares = None if site.replicated else _value(site.squares)
        read.rings = (_value(site.iterations), squares)
    return read.rings


def _samples(site: _Site, read: _Read) -> tuple[Any, Any] | None:
    if site.samples is None or site.sample_counts is None:
        return None
    if read.samples is None:
        read.samples = (_value(site.samples), _value(site.sample_counts))
    return read.samples


def _store_weight(
    store: Callable, optimizer: Any, site: _Site, read: _Read, i: int, variable: Any
) -> None:
    """Build weight ``i``'s record from what the site holds now: the steps since its
    record was last built that the ring still holds (the ring's ``HISTORY``: those
    before are counted as ``skipped``), the last step's kept values (read now: the
    program is paused, no step runs before the read) and their exact norm when read."""
    count = read.count
    first = max(read.stored[i], count - HISTORY)
    skipped = first - read.stored[i]
    read.stored[i] = count
    previous = read.norms[i]
    if previous is not None:  # its history entry keeps a figure, not the step's values
        previous.settle()
    iterations, squares = _rings(site, read)
    shadow = _shadows.get((id(site), id(variable)))
    # the values are read when first shown (their norm, their rows), not here
    kept_values = (
        _Reading(site, shadow, count) if shadow is not None and shadow.values is not None else None
    )
    sampled = site.steps[i] > 0  # its norms estimated from a sample
    steps = range(first, count)
    norm: _Norm | None = None
    if site.replicated:  # norms only of the summed gradient: the last step's
        # Keras counts one iteration per apply: earlier steps' counted back from the last
        history: list = [(int(iterations) - (count - 1 - k), None, False) for k in steps]
        if kept_values is not None:
            # the global norm's figure: the same whether or not this weight was shown
            estimate = _estimate(site, read, i, variable)
            norm = _Norm(kept_values, *(estimate or (None, False)))
            history[-1] = (history[-1][0], norm, False)
    else:  # sqrt keeps NaN and Inf: a step whose gradient held one reads as such
        # A tape's own steps are counted by runs (1 = the first), an optimizer's by
        # its iterations.
        history = [
            (
                k + 1 if optimizer is None else int(iterations[k % HISTORY]),
                math.sqrt(float(squares[k % HISTORY, i])),
                sampled,
            )
            for k in steps
        ]
        if kept_values is not None:
            norm = _Norm(kept_values, history[-1][1], sampled)
            history[-1] = (history[-1][0], norm, False)
    read.norms[i] = norm
    kept = None
    if kept_values is None and not site.replicated:
        size = math.prod(int(d or 0) for d in variable.shape)
        # about one element in ``stride`` read: the density the rows quote
        stride = -(-size // SAMPLE) if sampled else 1
        row = site.sample_rows.get(i)
        samples = _samples(site, read) if row is not None else None
        if samples is not None and row is not None:
            start = site.sample_offsets[row]
            sample = samples[0][start : start + int(samples[1][row])]
            kept = Figures(size, _LazyFigures(sample), stride, counts_sampled=sampled)
    gradient = kept_values.gradient if kept_values is not None else None
    store(variable, optimizer, site.name, history, gradient, kept, skipped=skipped)
