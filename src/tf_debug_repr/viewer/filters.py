"""Filter mode of the tensor viewer: a conv kernel ``[h, w, in, out]`` (HWIO, what Keras's
Conv2D holds) as its filters, one ``h x w`` tile per output channel and input channel, so
the page can draw them as a grid. Cut and cast on the value's device (call under
``guards.harmless``); only the tiles shown come to the host, within a byte budget."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from .slices import CELL_BYTES

MAX_FILTERS = 1024  # output channels sent (a 3x3 kernel of 1024 is 9216 cells an input)


def _b64(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


def shown_counts(shape: tuple[int, ...], budget: int) -> tuple[int, int]:
    """(input channels, output channels) whose tiles fit ``budget`` bytes: every output
    channel up to MAX_FILTERS (fewer for big tiles), then as many inputs as fit, at least one."""
    h, w, inputs, outputs = shape
    cells = max(1, budget // CELL_BYTES)
    tile = max(1, h * w)
    out_shown = max(1, min(outputs, MAX_FILTERS, cells // tile))
    in_shown = max(1, min(inputs, cells // (tile * out_shown)))
    return in_shown, out_shown


def filters(tensor: Any, shape: tuple[int, ...], budget: int) -> dict:
    """The ``filters`` of a payload (docs/tensor-viewer.md): values ``[in, out, h, w]``
    row-major as float32, a mask of NaN/±Inf like the slice's, the finite range."""
    h, w, inputs, outputs = shape
    in_shown, out_shown = shown_counts(shape, budget)
    if isinstance(tensor, np.ndarray):
        cut = np.transpose(tensor[:, :, :in_shown, :out_shown], (2, 3, 0, 1))
        values = np.asarray(cut, np.float64)
    else:
        import tensorflow as tf

        cut = tf.transpose(tensor[:, :, :in_shown, :out_shown], [2, 3, 0, 1])
        values = np.asarray(tf.cast(cut, tf.float64).numpy())
    mask = np.zeros(values.shape, np.uint8)
    mask[np.isnan(values)] = 1
    mask[np.isposinf(values)] = 2
    mask[np.isneginf(values)] = 3
    finite = values[mask == 0]
    low = float(finite.min()) if finite.size else 0.0
    high = float(finite.max()) if finite.size else 0.0
    return {
        "layout": "HWIO",
        "tile": [int(h), int(w)],
        "in_channels": int(inputs),
        "out_channels": int(outputs),
        "in_shown": int(in_shown),
        "out_shown": int(out_shown),
        "values": _b64(np.where(mask == 0, values, 0).astype("<f4")),
        "mask": _b64(mask),
        "min": low,
        "max": high,
        "signed": low < 0 < high,
    }
