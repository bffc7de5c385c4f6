"""``save_npy``: the whole value of a tensor, variable or array written with
``numpy.save``. The one place the viewer copies a whole value to the host: the user
asked for the file."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..core.formatting import bytes_text


def save_npy(value: Any, path: str) -> str:
    """Write ``value`` to ``path``; returns a one-line report (an error one, never raises)."""
    from ..core.guards import harmless
    from .payload import source_of
    from .slices import PayloadError

    try:
        source = source_of(value)
        values = source.values
        if isinstance(values, np.ndarray):
            array = values
        else:
            with harmless(values.device):
                array = np.asarray(values.numpy())
        if array.dtype.kind == "O":  # TF strings: fixed-width bytes load without pickle
            array = array.astype(np.bytes_)
        path = os.path.abspath(os.path.expanduser(os.fspath(path)))
        with open(path, "wb") as out:  # numpy.save on a name would append ".npy"
            np.save(out, array, allow_pickle=False)
        dtype = str(getattr(values.dtype, "name", values.dtype))
        shape = "[" + ", ".join(str(int(d)) for d in array.shape) + "]"
        note = f" ({source.note})" if source.note else ""
        return f"saved {dtype}{shape} ({bytes_text(array.nbytes)}) to {path}{note}"
    except PayloadError as exc:
        return f"not saved: {exc}"
    except Exception as exc:
        return f"not saved: {type(exc).__name__}: {exc}".splitlines()[0]
