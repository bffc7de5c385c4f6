"""One pass per value version per stop: a tracked value's figures and its change since the
last stop's snapshot, read together (issue 27).

**What one pass gives.** ``measure(now, then)`` reads the value (and the snapshot) once, a
chunk at a time while it is in the CPU's cache, and returns everything a stop shows of it:

- ``Figures``: min and max of the finite elements, mean, std and the L2 norm of the finite
  elements, NaN and ±Inf counts (``core.stats.Stats``, exact: what the summary line, the
  ``stats`` row and the history entry show), and the block means of the history's
  downsampled copy (``history.copy_cells``);
- ``Delta`` (with ``then``): elements changed (NaN where NaN was counts as unchanged), the
  L2 norm of the difference, the largest change and where it is.

Before, the summary's figures, the history entry (its own pass, then the copy) and the
``Δ since last stop`` compare each read the whole value.

**Arithmetic.** Values of at most ``SMALL`` elements, float64 values and integers are
reduced in float64 (exact as before). A bigger float32, float16 or bfloat16 value is reduced
in float32 (BLAS dots and matrix-vector sums within a chunk, the chunks summed in float64):
about as exact as numpy's own float32 reductions (relative error ~1e-7 to a few 1e-6, as
the CPU's BLAS kernel rounds: 3.5e-6 for one chunk's dot on an AMD EPYC; a value whose mean
is 4x its std or more has its std
again from a second, centred pass in float64), at half the cost of widening every chunk.
The largest change is recomputed in float64 in the chunk that holds it (in every chunk
whose float32 largest equals it: a step that moved all elements alike costs a pass more).

**Versions.** A variable read while a snapshot of it is held shares its buffer until the
variable is next written: TF's resource variables copy their buffer on a write while a read
still holds it (copy-on-write), and a read in copy-on-read mode is a copy of its own. So a
read whose buffer is the snapshot's buffer is the snapshot's value (``same_version``): the
stop costs one read and that test, and the figures measured for the snapshot hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core import stats as core_stats
from ..core.guards import harmless, host_view, is_on_host

SMALL = 1 << 16  # values of at most this many elements: float64 arithmetic throughout
CHUNK = 1 << 16  # elements read per step (about; whole cells of the copy per step)
COPY_ELEMENTS = 1024  # cells of the history's downsampled copy
CENTRED = 16.0  # mean² past this many times the variance: the moments again, centred


def copy_cells(size: int) -> tuple[int, int]:
    """(cells, elements per cell) of the downsampled copy of ``size`` elements."""
    block = max(1, -(-size // COPY_ELEMENTS))
    return size // block + (1 if size % block else 0), block


@dataclass(frozen=True)
class Figures:
    """A value's figures at one version."""

    stats: core_stats.Stats  # exact (moments_sample None)
    norm: float | None  # L2 norm of the finite elements (sqrt of true_count for bool)
    cells: Any  # float32 block means of the flattened value (None for bool)
    block: int  # elements per cell


@dataclass(frozen=True)
class Delta:
    """How a value differs from its snapshot."""

    norm: float  # ‖now − then‖₂
    changed: int  # elements that differ (NaN where NaN was: not)
    largest: float  # max |now − then|
    where: int | None  # flat index of the largest change (None: none changed)


UNCHANGED = Delta(norm=0.0, changed=0, largest=0.0, where=None)


# --------------------------------------------------------------------------- versions


def address(tensor: Any) -> int | None:
    """Where the tensor's buffer is (``core.stats.buffer_address``)."""
    return core_stats.buffer_address(tensor)


def same_version(now: Any, then: Any) -> bool:
    """Is ``now`` (a read of a variable) the value ``then`` (an earlier read, still held)
    holds? Its buffer is ``then``'s: nothing wrote the variable since (copy-on-write)."""
    if now is then:
        return True
    if then is None or now.dtype != then.dtype or now.shape != then.shape:
        return False
    if getattr(now, "device", None) != getattr(then, "device", None):
        return False
    here = address(now)
    return here is not None and here == address(then)


# --------------------------------------------------------------------------- the pass


def fused(dtype: Any) -> bool:
    """Does ``measure`` take values of this TF dtype (real numbers and bools)?"""
    return (dtype.is_floating or dtype.is_integer or dtype.is_bool) and not dtype.is_complex


def measure(now: Any, then: Any = None, cells: bool = True) -> tuple[Figures, Delta | None]:
    """The figures of the eager tensor ``now`` and, with ``then`` (a snapshot of the same
    shape and dtype), how it differs from it: one pass on the value's device. ``cells``:
    make the history's block means too."""
    size = int(now.shape.num_elements() or 0)
    on_host = is_on_host(now) and hasattr(now, "_numpy")
    if then is not None and (not on_host or not is_on_host(then) or not hasattr(then, "_numpy")):
        on_host = False
    if on_host:
        flat = host_view(now).reshape(-1)
        other = None if then is None else host_view(then).reshape(-1)
        return host_pass(flat, other, cells and not now.dtype.is_bool)
    with harmless(now.device):
        return device_pass(now, then, cells and not now.dtype.is_bool, size)


def compare(now: Any, then: Any) -> Delta:
    """Only the change of ``now`` since ``then`` (same shape and dtype), no figures: what a
    model's ``Δ since last stop`` row shows of each weight whose own row is not shown."""
    size = int(now.shape.num_elements() or 0)
    on_host = all(is_on_host(t) and hasattr(t, "_numpy") for t in (now, then))
    if on_host and not now.dtype.is_bool:
        with np.errstate(all="ignore"):
            _, delta = _host_pass(
                host_view(now).reshape(-1), host_view(then).reshape(-1), False, False
            )
    elif on_host:
        _, delta = host_pass(host_view(now).reshape(-1), host_view(then).reshape(-1), False)
    else:
        with harmless(now.device):
            _, delta = device_pass(now, then, False, size)
    assert delta is not None
    return delta


def _category(array: np.ndarray) -> str:
    return core_stats.category_of(array.dtype)


def _work_dtype(array: np.ndarray) -> Any:
    """The dtype a chunk is reduced in: float32 for a big float of 32 bits or fewer."""
    if _category(array) == "float" and array.dtype.itemsize <= 4 and int(array.size) > SMALL:
        return np.dtype(np.float32)
    return np.dtype(np.float64)


class _Buffers:
    """Scratch arrays for one pass, made once (a fresh array per chunk cost more)."""

    def __init__(self, length: int, work: Any) -> None:
        self.length, self.work = length, work
        self._made: dict[str, np.ndarray] = {}

    def get(self, name: str, n: int, dtype: Any = None) -> np.ndarray:
        found = self._made.get(name)
        if found is None:
            found = self._made[name] = np.empty(self.length, dtype or self.work)
        return found[:n]


# float64 vectors are reduced by numpy's own loops, float32 ones by BLAS. OpenBLAS hands a
# float64 dot of more than 10^4 elements (and a large matrix-vector product) to its thread
# pool; on busy cores each such call waited for those threads: a ResNet-50's 286 small
# weights (float64 arithmetic) took 153 ms to compare, 90th-percentile ddot 28 ms for 20,480
# elements against 0.004 ms as its median (2026-12-07, load ~15). The float32 kernels ran on
# the calling thread in the same runs.


def _square_sum(x: np.ndarray) -> float:
    """``x · x``, in ``x``'s dtype."""
    if x.dtype == np.float64:
        return float(np.einsum("i,i->", x, x))
    return float(np.dot(x, x))


def _row_sums(rows: np.ndarray, ones: np.ndarray) -> np.ndarray:
    """Each row's sum, in ``rows``' dtype (``ones``: a vector of ones of its row length)."""
    if rows.dtype == np.float64:
        return np.einsum("ij->i", rows)
    return rows @ ones


def _widen(raw: np.ndarray, buffers: _Buffers, name: str) -> np.ndarray:
    if raw.dtype == buffers.work:
        return raw
    out = buffers.get(name, int(raw.size))
    np.copyto(out, raw, casting="unsafe")
    return out


def host_pass(
    now: np.ndarray, then: np.ndarray | None, want_cells: bool
) -> tuple[Figures, Delta | None]:
    """``measure`` of flat host arrays (``then``: the same size and dtype, or None)."""
    with np.errstate(all="ignore"):  # NaN and inf are figures here, not warnings
        found, delta = _host_pass(now, then, want_cells)
    assert found is not None
    return found, delta


def _host_pass(
    now: np.ndarray, then: np.ndarray | None, want_cells: bool, want_figures: bool = True
) -> tuple[Figures | None, Delta | None]:
    size = int(now.size)
    category = _category(now)
    if category == "bool":
        return _bool_pass(now, then)
    if category not in ("float", "int"):
        raise TypeError(f"no one-pass figures for {now.dtype}")
    if then is not None and (then.dtype != now.dtype or then.size != size):
        raise ValueError("the snapshot's dtype or size differs")
    work = _work_dtype(now)
    cells_count, block = copy_cells(size)
    step = block * max(1, CHUNK // block)  # whole cells in every chunk but the last
    buffers = _Buffers(min(size, step), work)
    ones = np.ones(block, work)
    sums = np.empty(cells_count, np.float64)
    raw_compare = now.dtype.kind in "fiub"  # numpy's own != (ml_dtypes: on the widened)
    at = 0
    lo = hi = None
    nan = posinf = neginf = count = 0
    total = squares = 0.0
    changed = 0
    d_squares = 0.0
    largest = 0.0
    best: int | None = None  # start of the chunk with the largest change
    exact_where: int | None = None
    # float32 differences are rounded: every chunk whose largest rounds to the largest one
    # may hold the true largest (a step that moved every element by the same amount: all of
    # them); float64 ones (and integers) are exact
    exact = work == np.float64
    tops: list[tuple[float, int, bool]] = []  # (largest, chunk start, every element alike)
    for start in range(0, size, step):
        raw = now[start : start + step]
        n = int(raw.size)
        x = _widen(raw, buffers, "x")
        if want_figures:
            whole = n // block * block
            c_total = 0.0
            if whole:
                part = _row_sums(x[:whole].reshape(-1, block), ones)
                sums[at : at + part.size] = part
                at += int(part.size)
                c_total = float(np.add.reduce(part, dtype=np.float64))
            if whole < n:
                sums[at] = float(np.add.reduce(x[whole:], dtype=np.float64))
                c_total += float(sums[at])
                at += 1
            extremes = raw if raw.dtype.kind in "iu" else x  # int64 past 2^53: its own
            c_lo, c_hi = extremes.min(), extremes.max()
            if math.isfinite(c_lo) and math.isfinite(c_hi):
                c_count = n
                c_squares = _square_sum(x)
            else:  # min/max propagate NaN and reach ±Inf: only such a chunk is counted
                c_nan = int(np.count_nonzero(np.isnan(x)))
                c_pos = int(np.count_nonzero(x == np.inf))
                c_neg = int(np.count_nonzero(x == -np.inf))
                nan, posinf, neginf = nan + c_nan, posinf + c_pos, neginf + c_neg
                finite = x[np.isfinite(x)].astype(np.float64)
                c_count = int(finite.size)
                c_lo, c_hi = (finite.min(), finite.max()) if c_count else (None, None)
                c_total = float(np.add.reduce(finite))
                c_squares = _square_sum(finite)
            if c_lo is not None:
                lo = c_lo if lo is None else min(lo, c_lo)
                hi = c_hi if hi is None else max(hi, c_hi)
            count += c_count
            total += c_total
            squares += c_squares
        if then is None:
            continue
        raw_then = then[start : start + step]
        mask = buffers.get("mask", n, np.bool_)
        if raw_compare:
            np.not_equal(raw, raw_then, out=mask)
            y = None
        else:
            y = _widen(raw_then, buffers, "y")
            np.not_equal(x, y, out=mask)
        c_changed = int(np.count_nonzero(mask))
        if not c_changed:
            continue
        if y is None:
            y = _widen(raw_then, buffers, "y")
        d = np.subtract(x, y, out=buffers.get("d", n))
        d_hi, d_lo = float(d.max()), float(d.min())
        block_where: int | None = None
        if math.isfinite(d_hi) and math.isfinite(d_lo):
            c_d_squares = _square_sum(d)
            top = max(d_hi, -d_lo)
        else:  # NaN where NaN was, inf - inf, a NaN or inf appearing: element by element
            c_d_squares, c_changed, top, index = exact_block(raw, raw_then)
            block_where = start + index
        if not c_changed:
            continue
        changed += c_changed
        d_squares += c_d_squares
        if block_where is None and not exact:
            # every element of the chunk changed by the same float32 amount: any of them
            # is the chunk's largest, up to the rounding (see ``_delta``)
            tops.append((top, start, d_hi == d_lo))
        if (top > largest or math.isnan(top)) and not math.isnan(largest):
            largest, best, exact_where = top, start, block_where
    if not want_figures:
        return None, _delta(
            now, then, step, work, exact, tops, best, exact_where, largest, changed, d_squares
        )
    figures = _figures(category, size, lo, hi, count, total, squares, nan, posinf, neginf)
    if _needs_centring(figures):
        figures = _centred(now, figures, step)
    copy = None
    if want_cells:
        lengths = np.full(cells_count, float(block))
        if size % block:
            lengths[-1] = float(size % block)
        copy = (sums / lengths).astype(np.float32)
    found = Figures(figures, math.sqrt(max(0.0, squares)), copy, block if want_cells else 1)
    if then is None:
        return found, None
    return found, _delta(
        now, then, step, work, exact, tops, best, exact_where, largest, changed, d_squares
    )


# Chunks read again in float64 for the largest change, at most (see ``_delta``).
TIED_CHUNKS = 4


def _delta(
    now: np.ndarray,
    then: np.ndarray | None,
    step: int,
    work: Any,
    exact: bool,
    tops: list[tuple[float, int, bool]],
    best: int | None,
    exact_where: int | None,
    largest: float,
    changed: int,
    d_squares: float,
) -> Delta | None:
    """The change from the pass's per-chunk findings: where the largest is, exactly."""
    if then is None:
        return None
    where: int | None = None
    if best is not None:
        if exact_where is not None:
            where = exact_where
        else:  # the largest change again, in float64, in the chunks that may hold it
            # rounding is monotonic: the true largest rounds to the largest float32 one
            starts = (
                [(best, False)]
                if exact
                else [(at, alike) for top, at, alike in tops if top == largest]
            )
            # A change shared by every element (a counter's +1, a fill, a rescale) ties in
            # every chunk: a float64 pass over all of them would cost 4x the pass itself
            # (measured: 10.8 against 2.4 ms per 10^6). Their exact changes all round to
            # the same float32: at most half its last place apart (~3e-8 relative), below
            # what a row shows. The first chunks are read again; the largest is theirs. A
            # chunk whose every element changed by the same float32 amount (a counter's +1,
            # a rescale: the usual tie) is not read again: its first element is its largest
            # to the same rounding, and its change is computed in float64 alone (a float64
            # pass over each tied chunk was a fifth of a training loop's Locals).
            starts = sorted(starts)[:TIED_CHUNKS]
            top, largest = largest, -1.0
            for at, alike in starts:
                if alike:
                    index, exact_top = 0, _exact_change(now[at], then[at])
                else:
                    index, exact_top = _largest_in(
                        now[at : at + step], then[at : at + step], work, top
                    )
                if exact_top > largest:
                    where, largest = at + index, exact_top
    elif changed:
        where = 0
    return Delta(math.sqrt(d_squares), changed, largest, where)


def _exact_change(now: Any, then: Any) -> float:
    """|now − then| of two elements, in float64."""
    return abs(float(np.float64(now)) - float(np.float64(then)))


def _largest_in(now: np.ndarray, then: np.ndarray, work: Any, top: float) -> tuple[int, float]:
    """(index, |now − then| in float64) of the largest change in one chunk: among the
    elements whose change in ``work`` arithmetic is ``top`` (rounded: all that may be it)."""
    a, b = now.astype(work, copy=False), then.astype(work, copy=False)
    magnitude = np.abs(a - b)
    if work == np.float64:
        index = int(np.argmax(magnitude))
        return index, float(magnitude[index])
    near = np.flatnonzero(magnitude == top)
    if not near.size:  # cannot be (the chunk's largest is top): the whole chunk then
        near = np.arange(a.size)
    exact = np.abs(now[near].astype(np.float64) - then[near].astype(np.float64))
    best = int(np.argmax(exact))
    return int(near[best]), float(exact[best])


def _figures(
    category: str,
    size: int,
    lo: Any,
    hi: Any,
    count: int,
    total: float,
    squares: float,
    nan: int,
    posinf: int,
    neginf: int,
) -> core_stats.Stats:
    mean = std = None
    if count:
        mean = total / count
        std = math.sqrt(max(0.0, squares / count - mean * mean))
        if lo is not None and lo == hi:
            mean, std = float(lo), 0.0  # all equal: no rounding of the sums shows
    as_int = category == "int"

    def number(value: Any) -> Any:
        if value is None:
            return None
        return int(value) if as_int else float(value)

    return core_stats.Stats(
        size=size,
        category=category,
        min=number(lo),
        max=number(hi),
        mean=mean,
        std=std,
        nan=nan,
        posinf=posinf,
        neginf=neginf,
    )


def _needs_centring(stats: core_stats.Stats) -> bool:
    """Are the moments from plain sums too coarse (the mean far from zero in units of the
    std, where sum of squares minus square of sums cancels)?"""
    if stats.mean is None or stats.std is None or stats.std == 0.0:
        return False
    return stats.mean * stats.mean > CENTRED * stats.std * stats.std


def _centred(now: np.ndarray, stats: core_stats.Stats, step: int) -> core_stats.Stats:
    """The std again from deviations from the mean, in float64 (a second pass)."""
    mean = float(stats.mean or 0.0)
    squares = 0.0
    count = 0
    wide = np.empty(min(int(now.size), step), np.float64)
    for start in range(0, int(now.size), step):
        raw = now[start : start + step]
        part = wide[: raw.size]
        np.copyto(part, raw, casting="unsafe")
        if stats.bad:
            part = part[np.isfinite(part)]
        part -= mean
        squares += _square_sum(part)
        count += int(part.size)
    return replace(stats, std=math.sqrt(squares / count) if count else stats.std)


def exact_block(x: np.ndarray, y: np.ndarray) -> tuple[float, int, float, int]:
    """One block's (square sum, changed, largest, its index) element by element, with
    NaN where NaN was (and equal infinities) unchanged."""
    a, b = x.astype(np.float64), y.astype(np.float64)
    differ = a != b
    if core_stats.category_of(x.dtype) == "float":
        differ &= ~(np.isnan(a) & np.isnan(b))
    diff = np.where(differ, a - b, 0.0)
    magnitude = np.abs(diff)
    index = int(np.argmax(magnitude))
    return (
        float(np.sum(diff * diff)),
        int(np.count_nonzero(differ)),
        float(magnitude[index]),
        index,
    )


def _bool_figures(size: int, true_count: int) -> Figures:
    """A bool value's figures (on the host or a device): its count of True, their share."""
    stats = core_stats.Stats(
        size=size,
        category="bool",
        true_count=true_count,
        mean=true_count / size if size else None,
    )
    return Figures(stats, math.sqrt(true_count), None, 1)


def _bool_pass(now: np.ndarray, then: np.ndarray | None) -> tuple[Figures, Delta | None]:
    size = int(now.size)
    found = _bool_figures(size, int(np.count_nonzero(now)))
    if then is None:
        return found, None
    differ = now != then
    changed = int(np.count_nonzero(differ))
    where = int(np.argmax(differ)) if changed else None
    return found, Delta(math.sqrt(changed), changed, 1.0 if changed else 0.0, where)


# --------------------------------------------------------------------------- on a device


def device_pass(now: Any, then: Any, want_cells: bool, size: int) -> tuple[Figures, Delta | None]:
    """``measure`` by TF's ops on the value's own device (a GPU's): float64 chunks of
    ``core.stats.EXTREMES_CHUNK`` elements at most, every figure stacked into one small
    tensor, then one transfer of it (and of the block means) to the host. Never a copy of
    the value."""
    import tensorflow as tf

    dtype = now.dtype
    category = "bool" if dtype.is_bool else "int" if dtype.is_integer else "float"
    wide = tf.float64
    flat = tf.reshape(now, [-1])
    other = None if then is None else tf.reshape(then, [-1])
    big = tf.constant(np.inf, wide)
    chunk = core_stats.EXTREMES_CHUNK
    rows = []
    for start in range(0, size, chunk):
        a = tf.cast(flat[start : start + chunk], wide)
        finite = tf.math.is_finite(a)
        clean = tf.where(finite, a, tf.zeros_like(a))
        row = [
            tf.reduce_min(tf.where(finite, a, big)),
            tf.reduce_max(tf.where(finite, a, -big)),
            tf.reduce_sum(tf.cast(finite, wide)),
            tf.reduce_sum(clean),
            tf.reduce_sum(clean * clean),
            tf.reduce_sum(tf.cast(tf.math.is_nan(a), wide)),
            tf.reduce_sum(tf.cast(tf.equal(a, big), wide)),
            tf.reduce_sum(tf.cast(tf.equal(a, -big), wide)),
        ]
        if other is not None:
            b = tf.cast(other[start : start + chunk], wide)
            same = tf.logical_or(
                tf.equal(a, b), tf.logical_and(tf.math.is_nan(a), tf.math.is_nan(b))
            )
            diff = tf.where(same, tf.zeros_like(a), a - b)
            magnitude = tf.abs(diff)
            # a NaN change is the largest (as on the host): the first one
            nans = tf.math.is_nan(magnitude)
            index = tf.where(
                tf.reduce_any(nans),
                tf.argmax(tf.cast(nans, tf.int32)),
                tf.argmax(magnitude),
            )
            row += [
                tf.reduce_sum(diff * diff),
                tf.reduce_sum(tf.cast(tf.logical_not(same), wide)),
                tf.gather(magnitude, index),
                tf.cast(index, wide) + float(start),
            ]
        rows.append(tf.stack(row))
    table = tf.stack(rows) if rows else None
    cells = None
    _, block = copy_cells(size)
    if want_cells and size:
        whole = (size // block) * block
        means = tf.reduce_mean(tf.reshape(tf.cast(flat[:whole], wide), [-1, block]), axis=1)
        if whole < size:
            means = tf.concat([means, tf.reduce_mean(tf.cast(flat[whole:], wide))[None]], 0)
        cells = means.numpy().astype(np.float32)
    values = np.zeros((0, 12)) if table is None else table.numpy()
    lo = float(values[:, 0].min()) if len(values) else math.inf
    hi = float(values[:, 1].max()) if len(values) else -math.inf
    count = int(values[:, 2].sum()) if len(values) else 0
    total = float(values[:, 3].sum()) if len(values) else 0.0
    squares = float(values[:, 4].sum()) if len(values) else 0.0
    nan, posinf, neginf = (int(values[:, i].sum()) if len(values) else 0 for i in (5, 6, 7))
    if category == "bool":
        found = _bool_figures(size, int(round(total)))
    else:
        has = math.isfinite(lo)
        stats = _figures(
            category,
            size,
            lo if has else None,
            hi if has else None,
            count,
            total,
            squares,
            nan,
            posinf,
            neginf,
        )
        if _needs_centring(stats):
            stats = _device_centred(flat, stats, size)
        found = Figures(
            stats, math.sqrt(max(0.0, squares)), cells, block if cells is not None else 1
        )
    if other is None:
        return found, None
    d_squares = float(values[:, 8].sum()) if len(values) else 0.0
    changed = int(values[:, 9].sum()) if len(values) else 0
    where = None
    largest = 0.0
    if changed:
        tops = values[:, 10]
        row_at = int(np.argmax(np.where(np.isnan(tops), np.inf, tops)))
        largest, where = float(tops[row_at]), int(values[row_at, 11])
    return found, Delta(math.sqrt(d_squares), changed, largest, where)


def _device_centred(flat: Any, stats: core_stats.Stats, size: int) -> core_stats.Stats:
    import tensorflow as tf

    mean = float(stats.mean or 0.0)
    total = tf.constant(0.0, tf.float64)
    count = tf.constant(0.0, tf.float64)
    for start in range(0, size, core_stats.EXTREMES_CHUNK):
        a = tf.cast(flat[start : start + core_stats.EXTREMES_CHUNK], tf.float64)
        finite = tf.math.is_finite(a)
        centred = tf.where(finite, a - mean, tf.zeros_like(a))
        total += tf.reduce_sum(centred * centred)
        count += tf.reduce_sum(tf.cast(finite, tf.float64))
    squares, n = (float(v) for v in tf.stack([total, count]).numpy())
    return replace(stats, std=math.sqrt(squares / n) if n else stats.std)
