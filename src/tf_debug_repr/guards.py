"""The guards that make looking harmless: every TF op the plugin runs goes through here.

``harmless`` runs ops as an observer (eagerly, off every tape, on the tensor's own
device); ``host_view`` hands out read-only views, never writable buffers; ``is_on_host``
tells where a reduction may run on the host without copying a whole accelerator tensor.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np


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


def is_on_host(tensor: Any) -> bool:
    device = getattr(tensor, "device", "") or ""
    return "GPU" not in device and "TPU" not in device


def host_view(tensor: Any) -> np.ndarray:
    """The tensor's values as numpy without a copy when TF allows it (CPU tensors).

    The public ``.numpy()`` always copies; ``_numpy()`` shares the buffer of a CPU
    tensor. The view is made read-only so nothing we hand out can change the tensor.
    """
    array = tensor._numpy()
    if isinstance(array, np.ndarray):
        array = array.view()
        array.flags.writeable = False
    return array
