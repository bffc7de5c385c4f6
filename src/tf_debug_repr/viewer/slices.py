"""The 2-D slice the tensor viewer draws: which slice (axes, index, region), and the
slice brought down to a byte budget by block means, with NaN/±Inf marks per cell.

The slice is cut and reduced on the tensor's own device (the caller holds the guards);
only the downsampled cells (at most ``budget`` bytes) come to the host.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

# Bytes per cell sent: a float32 value and a uint8 mask.
CELL_BYTES = 5
# Elements of the region cut and reduced at once (a band of whole blocks): bounds what
# the device holds besides the value, 64 MiB of float32.
BAND_ELEMENTS = 1 << 24
# Mask codes, as the page reads them.
FINITE, NAN, POSINF, NEGINF = 0, 1, 2, 3
# The most axes TF's StridedSlice kernel handles ("Unhandled input dimensions 9"); a
# host array is cut by numpy, which has no such limit.
_STRIDED_SLICE_RANK = 8


class PayloadError(ValueError):
    """A request the payload cannot honour (bad argument, no values): its message is
    what the viewer shows."""


@dataclass(frozen=True)
class SliceSpec:
    """Which 2-D slice of a value is shown, validated against its shape."""

    axes: tuple[int | None, int | None]  # row axis, column axis (None: the value has none)
    index: tuple[int | None, ...]  # one per axis; None on the shown axes
    rows: int
    cols: int
    region: tuple[tuple[int, int], tuple[int, int]]


def _shown(value: Any) -> str:
    """A request's value in an error message, cut: the page may send a list of millions."""
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return f"a list of {len(value)}"
    text = repr(value) if isinstance(value, (int, float, str, list, tuple, type(None))) else "?"
    return text if len(text) <= 80 else text[:79] + "…"


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise PayloadError(f"{what} must be an integer, not {_shown(value)}")
    if not -(2**62) <= value <= 2**62:  # no axis is this long; its digits stay out of messages
        raise PayloadError(f"{what} is out of range")
    return int(value)


def resolve(shape: tuple[int, ...], axes: Any = None, index: Any = None, region: Any = None):
    """The slice ``axes``/``index``/``region`` ask for, checked against ``shape``."""
    rank = len(shape)
    row_axis: int | None
    col_axis: int | None
    if rank >= 2:
        wanted = [-2, -1] if axes is None else axes
        if not isinstance(wanted, (list, tuple)) or len(wanted) != 2:
            raise PayloadError(f"axes must be two axes [row, column], not {_shown(axes)}")
        shown = []
        for axis, default in zip(wanted, (-2, -1)):
            # None keeps that axis's default, as the page reads a payload's axes.
            a = default if axis is None else _int(axis, "an axis")
            if not -rank <= a < rank:
                raise PayloadError(f"axis {a} is out of range for rank {rank}")
            shown.append(a % rank)
        if shown[0] == shown[1]:
            raise PayloadError(f"axes {list(wanted)} name the same axis twice")
        row_axis, col_axis = shown
        rows, cols = shape[row_axis], shape[col_axis]
    else:  # nothing to choose: a vector is one row, a scalar one cell
        row_axis = None
        col_axis = 0 if rank == 1 else None
        rows, cols = 1, (shape[0] if rank == 1 else 1)
    full_index = _resolve_index(shape, (row_axis, col_axis), index)
    return SliceSpec(
        (row_axis, col_axis), full_index, rows, cols, _resolve_region(rows, cols, region)
    )


def _resolve_index(shape: tuple[int, ...], shown: tuple, index: Any) -> tuple[int | None, ...]:
    rank = len(shape)
    if index is None:
        index = [0] * rank
    if not isinstance(index, (list, tuple)) or len(index) != rank:
        raise PayloadError(f"index must hold one entry per axis ({rank}), not {_shown(index)}")
    resolved: list[int | None] = []
    for axis, entry in enumerate(index):
        if axis in shown:
            resolved.append(None)
            continue
        if entry is None:
            entry = 0
        i = _int(entry, f"index[{axis}]")
        size = shape[axis]
        if not -size <= i < size:
            raise PayloadError(f"index {i} is out of range for axis {axis} of size {size}")
        resolved.append(i % size)
    return tuple(resolved)


def _resolve_region(rows: int, cols: int, region: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    if region is None:
        return (0, rows), (0, cols)
    if not isinstance(region, (list, tuple)) or len(region) != 2:
        raise PayloadError(f"region must be [[r0, r1], [c0, c1]], not {_shown(region)}")
    ranges = []
    for (name, extent), span in zip((("rows", rows), ("columns", cols)), region):
        if not isinstance(span, (list, tuple)) or len(span) != 2:
            raise PayloadError(f"region must be [[r0, r1], [c0, c1]], not {_shown(region)}")
        a, b = _int(span[0], "a region bound"), _int(span[1], "a region bound")
        if not 0 <= a < b <= extent:
            raise PayloadError(f"region {[a, b]} is not inside the {extent} {name}")
        ranges.append((a, b))
    return ranges[0], ranges[1]


def choose_step(rows: int, cols: int, max_cells: int) -> tuple[int, int]:
    """The smallest block (rows x columns per cell) that brings the region to at most
    ``max_cells`` cells, square where both sides allow it."""
    max_cells = max(1, max_cells)
    if rows * cols <= max_cells:
        return 1, 1
    s = max(1, math.isqrt(rows * cols // max_cells))
    while True:
        sr, sc = min(s, rows), min(s, cols)
        height = -(-rows // sr)
        if sr == rows or sc == cols or height * -(-cols // sc) <= max_cells:
            break
        s += 1
    # One side used up (a long thin region): the other takes what the budget needs.
    sc = max(sc, -(-cols // max(1, max_cells // height)))
    width = -(-cols // sc)
    sr = max(sr, -(-rows // max(1, max_cells // width)))
    return sr, sc


def take(tensor: Any, spec: SliceSpec, compute_dtype: Any) -> Any:
    """The region of the 2-D slice as a ``compute_dtype`` tensor [height, width] (None: in
    the tensor's own dtype), cut on the tensor's device (call under ``guards.harmless``)."""
    import tensorflow as tf

    def cast(part: Any) -> Any:
        return part if compute_dtype is None else tf.cast(part, compute_dtype)

    (r0, r1), (c0, c1) = spec.region
    row_axis, col_axis = spec.axes
    rank = len(spec.index)
    if rank == 0:
        return tf.reshape(cast(tensor), [1, 1])
    index = list(spec.index)
    if rank > _STRIDED_SLICE_RANK and not isinstance(tensor, np.ndarray):
        assert row_axis is not None and col_axis is not None  # both shown from rank 2 on
        tensor, index, row_axis, col_axis = _merge_fixed_axes(tf, tensor, index, row_axis, col_axis)
        rank = len(index)
    key: list[Any] = []
    for axis in range(rank):
        if axis == row_axis:
            key.append(slice(r0, r1))
        elif axis == col_axis:
            key.append(slice(c0, c1))
        else:
            key.append(index[axis])
    part = cast(tensor[tuple(key)])
    if rank == 1:
        return tf.reshape(part, [1, -1])
    assert row_axis is not None and col_axis is not None  # both shown from rank 2 on
    return tf.transpose(part) if row_axis > col_axis else part


def _merge_fixed_axes(tf: Any, tensor: Any, index: list, row_axis: int, col_axis: int):
    """TF's strided slice takes at most 8 axes: each run of consecutive fixed axes becomes
    one axis (a reshape: no copy, any dtype and device), its index the flat one; at most 5
    axes are left."""
    shape = [int(d) for d in tensor.shape]
    merged_shape: list[int] = []
    merged_index: list[int | None] = []
    shown = {}
    run: list[int] = []

    def close_run() -> None:
        if run:
            dims = [shape[a] for a in run]
            merged_shape.append(math.prod(dims))
            merged_index.append(int(np.ravel_multi_index([index[a] for a in run], dims)))
            run.clear()

    for axis in range(len(shape)):
        if axis in (row_axis, col_axis):
            close_run()
            shown[axis] = len(merged_shape)
            merged_shape.append(shape[axis])
            merged_index.append(None)
        else:
            run.append(axis)
    close_run()
    return tf.reshape(tensor, merged_shape), merged_index, shown[row_axis], shown[col_axis]


@dataclass(frozen=True)
class Cells:
    """The cells sent: block means over finite values, their marks, and which cells hold
    at least one finite value (those make the colour range)."""

    values: np.ndarray  # float32 [height, width]
    mask: np.ndarray  # uint8 [height, width]
    filled: np.ndarray  # bool [height, width]


def _block_sum(tf: Any, x: Any, step: tuple[int, int], size: tuple[int, int]) -> Any:
    sr, sc = step
    height, width = size
    rows, cols = x.shape
    padded = (
        x
        if (height * sr, width * sc) == (rows, cols)
        else tf.pad(x, [[0, height * sr - rows], [0, width * sc - cols]])
    )
    # The inner (contiguous) axis first, then the rows: twice as fast as both at once.
    blocks = tf.reshape(padded, [height, sr, width, sc])
    return tf.reduce_sum(tf.reduce_sum(blocks, axis=3), axis=1)


def host_cells(part: Any) -> Cells:
    """The cells of a region shown at full resolution (one element a cell), from its raw
    values converted on the host: TF's CPU kernels run with subnormals flushed to zero (its
    threads set FTZ/DAZ), so a ``tf.cast`` there showed a subnormal (an underflowing
    gradient's 1e-40) as 0; numpy keeps it. Marks and the float32 clip as ``reduce_blocks``."""
    values = np.asarray(part.numpy() if hasattr(part, "numpy") else part).astype(np.float64)
    finite = np.isfinite(values)
    mask = np.where(
        np.isnan(values),
        NAN,
        np.where(values == np.inf, POSINF, np.where(values == -np.inf, NEGINF, FINITE)),
    ).astype(np.uint8)
    top = float(np.finfo(np.float32).max)
    shown = np.clip(np.where(finite, values, 0.0), -top, top)
    return Cells(shown.astype(np.float32), mask, finite)


def reduce_blocks(x: Any, step: tuple[int, int], may_be_bad: bool) -> Cells:
    """Each ``step`` block of the 2-D float tensor ``x`` as one cell: the mean of its
    finite values, marked NaN if any is NaN, else +Inf/-Inf if any is. Runs where ``x``
    lives; only the cells are copied to the host. ``may_be_bad=False`` (the value's
    figures show no NaN/Inf) skips the marks."""
    import tensorflow as tf

    rows, cols = (int(d) for d in x.shape)
    sr, sc = step
    size = (-(-rows // sr), -(-cols // sc))
    inf = tf.constant(np.inf, x.dtype)
    if may_be_bad:
        finite = tf.math.is_finite(x)
        flags = [tf.math.is_nan(x), tf.equal(x, inf), tf.equal(x, -inf)]
        x = tf.where(finite, x, tf.zeros_like(x))
    if step == (1, 1):
        values = x
        counts = tf.cast(finite, x.dtype) if may_be_bad else None
        marks = [tf.cast(f, tf.uint8) for f in flags] if may_be_bad else None
    else:
        values = _block_sum(tf, x, step, size)
        if may_be_bad:
            counts = _block_sum(tf, tf.cast(finite, x.dtype), step, size)
            marks = [
                tf.cast(_block_sum(tf, tf.cast(f, x.dtype), step, size) > 0, tf.uint8)
                for f in flags
            ]
        else:
            counts = None
            marks = None
    if counts is None:  # every element finite: a block's count is its size
        row_counts = np.minimum(sr, rows - np.arange(size[0]) * sr)
        col_counts = np.minimum(sc, cols - np.arange(size[1]) * sc)
        host_counts = np.outer(row_counts, col_counts).astype(np.float64)
        host_sums = np.asarray(values.numpy(), np.float64)
        mask = np.zeros(size, np.uint8)
    else:
        fetched = tf.stack([tf.cast(values, tf.float64), tf.cast(counts, tf.float64)]).numpy()
        host_sums, host_counts = fetched[0], fetched[1]
        assert marks is not None  # counted, so marked
        nan, pos, neg = (m.numpy() for m in marks)
        mask = np.where(nan > 0, NAN, np.where(pos > 0, POSINF, np.where(neg > 0, NEGINF, FINITE)))
        mask = mask.astype(np.uint8)
    filled = host_counts > 0
    with np.errstate(all="ignore"):
        means = np.where(filled, host_sums / np.maximum(host_counts, 1), 0.0)
    # float64 beyond float32's range (or a sum that overflowed) stays finite on the wire.
    top = float(np.finfo(np.float32).max)
    means = np.nan_to_num(means, nan=0.0, posinf=top, neginf=-top).clip(-top, top)
    return Cells(means.astype(np.float32), mask, filled)
