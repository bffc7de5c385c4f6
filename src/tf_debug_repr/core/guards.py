"""The guards that make looking harmless: every TF op the plugin runs goes through here.

``harmless`` runs ops as an observer (eagerly, off every tape, on the tensor's own
device); ``host_view`` hands out read-only views, never writable buffers; ``is_on_host``
tells where a reduction may run on the host without copying a whole accelerator tensor.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from .tensor_like import EagerTensorLike
from .tf_types import Kind, kind_of
from .view_model import FACADE


@contextlib.contextmanager
def harmless(device: str | None = None) -> Iterator[None]:
    """Run TF ops as an observer: eagerly, off every tape, on the tensor's own device.

    ``init_scope`` lifts out of any graph being traced (a breakpoint inside a
    ``tf.function``, or Keras's scratch graph while it infers shapes) and pauses gradient
    tapes; ``tf.device`` keeps work on a tensor's own device even inside a user's
    ``with tf.device('/CPU:0')``.
    """
    import tensorflow as tf

    with tf.init_scope():
        if device:
            with tf.device(device):
                yield
        else:
            yield


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


def extend(parent: str, suffix: str, replacing: str = "") -> str:
    """``parent`` + ``suffix`` (``replacing`` a trailing part of it first), inside the lambda
    when ``parent`` came from ``eager_expression``."""
    found = _EAGER_EXPRESSIONS.get(parent)
    body, root = found if found is not None else (parent, None)
    if replacing and body.endswith(replacing):
        body = body[: -len(replacing)]
    return eager_expression(body + suffix, root) if root is not None else body + suffix


def eagerly(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` run as ``harmless`` runs the plugin's own ops. For the expressions of
    children shown while Keras builds a layer: evaluated in that frame, ``w[0]`` would
    become an op of Keras's scratch graph (no value), ``w.numpy()`` would raise."""
    with harmless():
        return fn(*args)
