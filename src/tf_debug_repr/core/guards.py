"""The guards that make looking harmless: every TF op the plugin runs goes through here.

``harmless`` runs ops as an observer (eagerly, off every tape, on the tensor's own
device); ``host_view`` hands out read-only views, never writable buffers; ``is_on_host``
tells where a reduction may run on the host without copying a whole accelerator tensor.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from .tensor_like import EagerTensorLike
from .tf_types import Kind, kind_of
from .view_model import FACADE

_observer = threading.local()  # .depth: harmless() blocks open on this thread


def observing() -> bool:
    """Are the ops run now the plugin's own, as an observer (inside ``harmless``)?"""
    return getattr(_observer, "depth", 0) > 0


@contextlib.contextmanager
def harmless(device: str | None = None) -> Iterator[None]:
    """Run TF ops as an observer: eagerly, off every tape, on the tensor's own device.

    ``init_scope`` lifts out of any graph being traced (a breakpoint inside a
    ``tf.function``, or Keras's scratch graph while it infers shapes) and pauses gradient
    tapes; ``tf.device`` keeps work on a tensor's own device even inside a user's
    ``with tf.device('/CPU:0')``. ``observing()`` is true inside: the NaN check never
    stops on an op the plugin runs to show a value.
    """
    import tensorflow as tf

    _observer.depth = getattr(_observer, "depth", 0) + 1
    try:
        with tf.init_scope():
            if device:
                with tf.device(device):
                    yield
            else:
                yield
    finally:
        _observer.depth -= 1


def building_graph() -> bool:
    """Is a graph being built on this thread (a ``tf.function`` trace, Keras's scratch graph
    in its build pass)? There an expression such as ``x[0]`` on an eager tensor becomes an
    op of that graph instead of a value. Never imports TF."""
    tf = sys.modules.get("tensorflow")
    try:
        return tf is not None and not tf.executing_eagerly()
    except Exception:
        return False


def remote_device(obj: Any) -> str | None:
    """The device of a value that lives in another process (``/job:worker/…``), else None.
    Reading such a value waits on the network, forever if its worker is gone. Reads only
    names the handle already has (a Keras 3 variable's through its ``tf.Variable``), and only
    on TF's own value kinds (decided by type): a class of the program's whose ``device`` is a
    property of its own is never read here (stock debugpy would not call it)."""
    if kind_of(obj) not in PLACED_KINDS:
        return None
    device = getattr(obj, "device", None)
    if device is None and hasattr(obj, "_value") and not hasattr(obj, "read_value"):
        device = getattr(obj._value, "device", None)
    if not isinstance(device, str) or "/job:" not in device:
        return None
    return None if "/job:localhost/" in device else device


# The kinds whose ``device`` (a Keras 3 variable's ``_value.device``) is TF's own attribute.
PLACED_KINDS = frozenset(
    {
        Kind.EAGER,
        Kind.INDEXED_SLICES,
        Kind.VARIABLE,
        Kind.KERAS_VARIABLE,
        Kind.MIRRORED,
        Kind.SYNC_ON_READ,
        Kind.PER_REPLICA,
        Kind.DISTRIBUTED,
    }
)


def is_on_host(tensor: Any) -> bool:
    device = getattr(tensor, "device", "") or ""
    return "GPU" not in device and "TPU" not in device


def host_view(tensor: EagerTensorLike) -> np.ndarray:
    """The tensor's values as numpy without a copy when TF allows it (CPU tensors).

    The public ``.numpy()`` always copies; ``_numpy()`` shares the buffer of a CPU
    tensor. The view is made read-only so nothing we hand out can change the tensor.
    """
    array = tensor._numpy()
    if isinstance(array, np.ndarray):
        array = array.view()
        array.flags.writeable = False
    return array


EAGERLY = f"{FACADE}.eagerly"
# Expressions made by ``eager_expression``: text -> (body, root), so that a child's index
# goes inside the lambda (``eagerly(lambda v: v[0][1], w)``), not after it, where it would
# become an op of the scratch graph again. Bounded: oldest first out.
_EAGER_EXPRESSIONS: dict[str, tuple[str, str]] = {}
_EAGER_EXPRESSIONS_KEPT = 4096


def eager_expression(body: str, root: str) -> str:
    """``eagerly(lambda v: BODY, ROOT)``: ``BODY`` (written on ``v``) evaluated on the value
    of the user's expression ``ROOT``, outside any graph being built. (The lambda takes the
    value as an argument: a lambda in evaluated code cannot see the frame's locals.)"""
    text = f"{EAGERLY}(lambda v: {body}, {root})"
    _EAGER_EXPRESSIONS[text] = (body, root)
    while len(_EAGER_EXPRESSIONS) > _EAGER_EXPRESSIONS_KEPT:
        del _EAGER_EXPRESSIONS[next(iter(_EAGER_EXPRESSIONS))]
    return text


def extend(parent: str, suffix: str, replacing: str = "", keep_device: bool = False) -> str:
    """``parent`` + ``suffix`` (``replacing`` a trailing part of it first), inside the lambda
    when ``parent`` came from ``eager_expression``; with ``keep_device``, put in such a
    lambda if it is not yet (``eagerly(lambda v: v[0], x)``: evaluated on ``x``'s device)."""
    found = _EAGER_EXPRESSIONS.get(parent)
    body, root = found if found is not None else (parent, None)
    if replacing and body.endswith(replacing):
        body = body[: -len(replacing)]
    if root is not None:
        return eager_expression(body + suffix, root)
    return eager_expression("v" + suffix, body) if keep_device else body + suffix


def eagerly(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` run as ``harmless`` runs the plugin's own ops: outside any graph being
    built, off every tape, on the first argument's own device (where it is a TF tensor or
    variable). For the expressions of children shown while Keras builds a layer (evaluated
    in that frame, ``w[0]`` would become an op of Keras's scratch graph, ``w.numpy()`` would
    raise), and of elements of a tensor that ``x[0]`` would slice on another device (the
    default one): the rows are sliced on the tensor's device, so their expressions are too."""
    with harmless(own_device(args[0]) if args else None):
        return fn(*args)


def own_device(value: Any) -> str | None:
    """The device of a TF tensor or variable (decided by type: a program's class with a
    ``device`` property of its own is never read); None for anything else."""
    if kind_of(value) not in (Kind.EAGER, Kind.VARIABLE, Kind.KERAS_VARIABLE):
        return None
    try:
        device = getattr(value, "device", None)
        if device is None and hasattr(value, "_value"):  # a Keras 3 variable
            device = getattr(value._value, "device", None)
    except Exception:
        return None
    return device if isinstance(device, str) and device else None


# (device, dtype, the thread's device scope, small integers) -> does ``x[i]`` run there?
_SLICED_IN_PLACE: dict[tuple[str, str, str, bool], bool] = {}
# TF's eager placement pins an op whose inputs are all small int32/int64 host tensors
# to the host CPU (``MaybePinSmallOpsToCpu``): at most this many elements each.
_PINNED_ELEMENTS = 64


def slices_in_place(tensor: Any) -> bool:
    """Does ``tensor[i]``, evaluated in the user's frame (the thread's device scope, if any;
    none of the plugin's), run on the tensor's own device? Not where the tensor lies on
    another device than the one TF places unscoped ops on (the second of two CPUs, a second
    GPU, a CPU tensor on a machine with a GPU): there an element row, sliced on the
    tensor's device, needs an expression that keeps it (``eagerly``). Answered by slicing a
    probe of the same dtype and size class on that device (two tiny ops, once per key)."""
    import tensorflow as tf
    from tensorflow.python.eager import context

    device = tensor.device
    dtype = tensor.dtype
    count = tensor.shape.num_elements()
    small = dtype in (tf.int32, tf.int64) and count is not None and count <= _PINNED_ELEMENTS
    key = (device, dtype.name, context.context().device_name or "", small)
    found = _SLICED_IN_PLACE.get(key)
    if found is None:
        try:
            with harmless(device):
                probe = tf.zeros([2 if small else _PINNED_ELEMENTS + 1], dtype)
            with harmless():
                found = probe[0].device == device
        except Exception:  # no kernel for the probe: keep the device to be sure
            found = False
        _SLICED_IN_PLACE[key] = found
    return found
