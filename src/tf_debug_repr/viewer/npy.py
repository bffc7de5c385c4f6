"""``save_npy``: the whole value of a tensor, variable or array written with
``numpy.save``. The one place the viewer copies a whole value to the host: the user
asked for the file."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..core.formatting import bytes_text

# Fixed-width bytes pad every element to the longest: 120 KB of strings once made 1.86 GiB.
MAX_PADDED_BYTES = 256 * 2**20
MAX_PADDING = 4  # the padded file may be at most this many times the strings' own bytes


def _fixed_width(array: np.ndarray) -> np.ndarray:
    """TF strings as fixed-width bytes (they load without pickle), refused where padding to
    the longest element would write far more than the strings hold."""
    lengths = [len(v) if isinstance(v, (bytes, str)) else 0 for v in array.reshape(-1)]
    longest = max(lengths, default=0)
    padded = longest * array.size
    if padded > MAX_PADDED_BYTES and padded > MAX_PADDING * max(1, sum(lengths)):
        raise ValueError(
            f"strings padded to the longest ({bytes_text(longest)}) would write "
            f"{bytes_text(padded)}; save them with numpy.save(path, value.numpy(), "
            "allow_pickle=True) instead"
        )
    return array.astype(np.bytes_)


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
            array = _fixed_width(array)
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
