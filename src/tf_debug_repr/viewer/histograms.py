"""The viewer's histogram of a whole value: finite values only, counted on the value's
device with ``tf.histogram_fixed_width`` (only the counts come to the host).

Past ``EXACT_LIMIT`` elements the counts come from a strided sample (no random state is
drawn) and say so. Integers spanning fewer values than bins get one bin per value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

EXACT_LIMIT = 1 << 24


@dataclass(frozen=True)
class Histogram:
    edges: list[float]  # len(counts) + 1
    counts: list[int]
    sampled: bool
    zeros: int  # elements equal to zero (scaled up from the sample when sampled)


def bin_edges(lo: float, hi: float, integral: bool, bins: int) -> tuple[float, float, int]:
    """(first edge, last edge, number of bins) for finite values in ``[lo, hi]``."""
    if integral and hi - lo + 1 <= bins:
        return lo - 0.5, hi + 0.5, int(hi - lo) + 1
    if lo == hi:  # one value: one bin around it
        half = 0.5 if integral else max(abs(lo) * 1e-3, 1e-12)
        return lo - half, hi + half, 1
    return lo, hi, bins


def histogram(
    tensor: Any, lo: float, hi: float, integral: bool, bins: int, may_be_bad: bool = True
) -> Histogram:
    """Counts of the finite values of ``tensor`` (a tensor or a host array of any real or
    bool dtype TF can cast) in ``bins`` equal bins over ``[lo, hi]``; call under
    ``guards.harmless``. ``may_be_bad=False`` (the value's figures show no NaN/Inf) skips
    looking for them."""
    size = math.prod(int(d) for d in tensor.shape)
    stride = 1 if size <= EXACT_LIMIT else -(-size // EXACT_LIMIT)
    host = _host_array(tensor)
    counted = None if host is None else _host_histogram(host, stride, lo, hi, integral, bins)
    if counted is not None:
        return counted
    import tensorflow as tf

    if isinstance(tensor, np.ndarray):  # only the sample goes to TF (``flat`` copies no more)
        flat = tf.constant(
            tensor.reshape(-1)[::stride] if tensor.flags.c_contiguous else tensor.flat[::stride]
        )
    else:
        flat = tf.reshape(tensor, [-1])
        if stride > 1:
            flat = flat[::stride]
    # Counted in the value's own float type where TF can (no full-size copy); else in a
    # float wide enough to hold every value exactly.
    if flat.dtype in (tf.float32, tf.float64):
        values = flat
    else:
        values = tf.cast(flat, tf.float64 if flat.dtype.size >= 4 else tf.float32)
    # Counted in float32, exact up to EXACT_LIMIT (2^24) elements: count_nonzero's int64
    # cast of every element cost as much as the histogram itself, and an int32 Sum runs on
    # the host on a GPU (its only GPU kernel keeps input and output in host memory).
    zeros = tf.cast(tf.reduce_sum(tf.cast(tf.equal(values, 0), tf.float32)), tf.int64)
    first, last, count = bin_edges(float(lo), float(hi), integral, bins)
    edge = tf.constant([first, last], values.dtype)
    bad = tf.zeros([], tf.int64)
    if may_be_bad:
        # NaN/Inf are counted at the first edge, then taken out of the first bin: cheaper
        # than gathering the finite values into a new tensor.
        finite = tf.math.is_finite(values)
        bad = tf.cast(tf.reduce_sum(tf.cast(tf.logical_not(finite), tf.float32)), tf.int64)
        values = tf.where(finite, values, edge[0])
    # int32 counts: the only dtype HistogramFixedWidth has a GPU kernel for (int64 ran on
    # the CPU, copying the values there); at most EXACT_LIMIT elements fit.
    counts = tf.cast(tf.histogram_fixed_width(values, edge, nbins=count, dtype=tf.int32), tf.int64)
    counts -= tf.one_hot(0, count, on_value=bad, off_value=tf.zeros([], tf.int64), dtype=tf.int64)
    fetched = tf.concat([counts, tf.reshape(zeros, [1])], 0).numpy()
    width = (last - first) / count
    edges = [first + i * width for i in range(count)] + [last]
    return Histogram(
        edges=edges,
        counts=[int(c) for c in fetched[:-1]],
        sampled=stride > 1,
        zeros=int(fetched[-1]) * stride,
    )


# Host values are counted by numpy in chunks of this many elements (its temporaries stay in
# the cache and small whatever the value's size).
_CHUNK = 1 << 18


def _host_array(tensor: Any) -> np.ndarray | None:
    """The values of a host array or a CPU tensor of a plain real or bool dtype as numpy,
    no copy; None for the rest (a GPU tensor's are counted where it lives, by TF's ops).
    On the host numpy counts them directly: a dozen eager TF ops, each a hand-off to TF's
    thread pool, took 2-7 ms for a [512, 512] kernel on 2 busy cores (numpy ~1 ms)."""
    from ..core.guards import host_view, is_on_host

    if isinstance(tensor, np.ndarray):
        array = tensor
    else:
        if not is_on_host(tensor) or not hasattr(tensor, "_numpy"):
            return None
        try:
            array = host_view(tensor)
        except Exception:  # TF has no numpy view of it: its own ops count it
            return None
        if not isinstance(array, np.ndarray):
            return None
    return array if array.dtype.kind in "biuf" else None


def _host_histogram(
    array: np.ndarray, stride: int, lo: float, hi: float, integral: bool, bins: int
) -> Histogram | None:
    """``histogram``'s counts by numpy: the values in the dtype TF would count them in,
    ``(max(v, first) - first) / width`` in float64, truncated, at most the last bin (TF's
    ``histogram_fixed_width`` rule; in float64 throughout, so that a range wider than
    float32's, 3e38 - -1e38, still has a finite width, where a value within a float32
    rounding of an edge may fall in the bin beside TF's); NaN/±Inf not counted. None
    where the width is not a positive float64 (edges that round to one value in the
    dtype, a range past float64's): TF's ops count those."""
    flat = array.reshape(-1) if array.flags.c_contiguous else array.ravel()
    if stride > 1:
        flat = flat[::stride]
    if flat.dtype in (np.float32, np.float64):
        dtype = flat.dtype
    else:
        dtype = np.dtype(np.float64 if flat.dtype.itemsize >= 4 else np.float32)
    first, last, count = bin_edges(float(lo), float(hi), integral, bins)
    low = float(dtype.type(first))
    width = (float(dtype.type(last)) - low) / count
    if not (math.isfinite(width) and width > 0):
        return None
    counts = np.zeros(count, np.int64)
    zeros = 0
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, _CHUNK):
            values = flat[start : start + _CHUNK].astype(dtype, copy=False)
            zeros += int(np.count_nonzero(values == 0))
            if values.dtype.kind == "f":
                finite = np.isfinite(values)
                if not finite.all():
                    values = values[finite]
            # one float64 temporary, each step in place (a new array per step was 3.6x)
            offsets = values.astype(np.float64)
            np.maximum(offsets, low, out=offsets)
            offsets -= low
            offsets /= width
            np.minimum(offsets, count - 1, out=offsets)
            counts += np.bincount(offsets.astype(np.intp), minlength=count)
    edges = [first + i * ((last - first) / count) for i in range(count)] + [last]
    return Histogram(
        edges=edges, counts=[int(c) for c in counts], sampled=stride > 1, zeros=zeros * stride
    )
