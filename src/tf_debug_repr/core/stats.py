"""Statistics of a tensor, computed without disturbing the program.

Every figure the plugin shows comes from here, under the guards that make looking
harmless (``guards.harmless``): no op is recorded on a user's GradientTape, no op is
added to a graph being traced, no random state is drawn (samples are strided), and
a tensor on a GPU is reduced on its own device so that only scalars come to the host.

Cost is bounded whatever the size: min/max and the NaN/Inf counts are exact up to
``EXACT_LIMIT`` elements (an integer or bool tensor's range up to ``INT_EXACT_LIMIT``);
mean and std come from a strided sample of at most ``SAMPLE_LIMIT`` elements (and say so).
"""

from __future__ import annotations

import math
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from .guards import harmless, host_view, is_on_host
from .strides import prime_stride
from .tensor_like import EagerTensorLike, TensorLike

# Mean/std are exact up to this many elements, sampled (strided) beyond.
SAMPLE_LIMIT = 1 << 16
# Min/max and NaN/Inf counts are exact up to this many elements, sampled beyond.
EXACT_LIMIT = 1 << 27
# Integers and bools hold no NaN/Inf, so past this size only their range is at stake: it
# comes from at most INT_SAMPLE elements spaced at least SKIP_BYTES apart. (A stride
# shorter than a few cache lines still reads every byte, and costs more than no stride.)
INT_EXACT_LIMIT = 1 << 24
INT_SAMPLE = 1 << 20
SKIP_BYTES = 512


@dataclass(frozen=True)
class Stats:
    """Figures of one tensor. ``None`` means "does not apply" (e.g. std of strings)."""

    size: int
    category: str  # "float", "int", "bool", "complex", "string" or "other"
    min: float | None = None  # finite elements only (|z| for complex)
    max: float | None = None
    mean: float | None = None
    std: float | None = None
    nan: int = 0
    posinf: int = 0
    neginf: int = 0
    true_count: int | None = None
    # Elements used for mean/std when they come from a sample, else None.
    moments_sample: int | None = None
    # Stride of the sample used for mean/std (1 when exact).
    moments_stride: int = 1
    # True when even min/max and the NaN/Inf counts come from a sample.
    extremes_sampled: bool = False
    extremes_stride: int = 1

    @property
    def bad(self) -> int:
        return self.nan + self.posinf + self.neginf


def category_of(np_dtype: np.dtype) -> str:
    kind = np_dtype.kind
    # ml_dtypes types (bfloat16, float8_*, float4_*, int4, uint2…) are numpy kind "V".
    if kind == "f" or (kind == "V" and np_dtype.name.startswith(("float", "bfloat"))):
        return "float"
    if kind in "iu" or (kind == "V" and np_dtype.name.startswith(("int", "uint"))):
        return "int"
    if kind == "b":
        return "bool"
    if kind == "c":
        return "complex"
    if kind in "OSU":
        return "string"
    return "other"


def _stride_for(size: int, limit: int) -> int:
    return 1 if size <= limit else -(-size // limit)


def extremes_stride_for(size: int, category: str, itemsize: int) -> int:
    """Every how many elements min/max (and NaN/Inf counts) are read."""
    if category in ("int", "bool") and size > INT_EXACT_LIMIT:
        return max(_stride_for(size, INT_SAMPLE), -(-SKIP_BYTES // max(1, itemsize)))
    return _stride_for(size, EXACT_LIMIT)


def sampled_stride(size: int, itemsize: int, last: int = 1) -> int:
    """The stride of sampled figures (summaries past their time budget, ``time_budget``): at most
    SAMPLE_LIMIT elements, spaced at least SKIP_BYTES apart so the pass skips whole cache
    lines (every 16th float32 would still read every byte); prime to the last dimension
    ``last``, so that the sample visits every column (a stride of 16 over a [..., 16]
    layer output read only its first unit: a mean of 0.020 where the whole one is -0.003)."""
    return prime_stride(
        max(_stride_for(size, SAMPLE_LIMIT), -(-SKIP_BYTES // max(1, itemsize))), last
    )


def array_stats(array: np.ndarray, stride: int | None = None) -> Stats:
    """Statistics of a host array (a zero-copy view of a CPU tensor, typically); every
    figure from every ``stride``-th element when given (sampled figures)."""
    # Overflow in a square of float64 extremes must not print a warning into the program.
    with np.errstate(all="ignore"):
        return _array_stats(array, stride)


def _array_stats(array: np.ndarray, stride: int | None = None) -> Stats:
    size = int(array.size)
    category = category_of(array.dtype)
    if size == 0 or category in ("string", "other"):
        return Stats(size=size, category=category)
    flat = array.reshape(-1)
    extremes_stride = stride or extremes_stride_for(size, category, array.dtype.itemsize)
    extremes = flat[::extremes_stride]
    moments_stride = stride or _stride_for(size, SAMPLE_LIMIT)
    moments = flat[::moments_stride]
    common: dict[str, Any] = {
        "size": size,
        "category": category,
        "moments_sample": int(moments.size) if moments_stride > 1 else None,
        "moments_stride": moments_stride,
        "extremes_sampled": extremes_stride > 1,
        "extremes_stride": extremes_stride,
    }
    if category == "bool":
        true_count = int(np.count_nonzero(extremes)) * extremes_stride
        sample = moments.astype(np.float64)
        return Stats(true_count=true_count, mean=float(sample.mean()), **common)
    if category == "complex":
        magnitude = np.abs(extremes)
        return _real_stats(magnitude, np.abs(moments), extremes_stride, common)
    if extremes.dtype.kind not in "fiu":
        # ml_dtypes (bfloat16, float8, int4…): numpy reductions on them are slow or missing.
        wide = np.int64 if category == "int" else np.float32
        extremes = extremes.astype(wide)
        moments = moments.astype(wide)
    elif extremes_stride == moments_stride and extremes_stride > 1:
        # A sample (sampled figures): gathered once into a small contiguous copy, so min,
        # max and the moments read it from the cache instead of striding through the
        # whole buffer three times (each element of the sample is a cache miss).
        extremes = moments = np.ascontiguousarray(extremes)
    elif extremes_stride == 1 and size >= 2 * CHUNK and flat.flags.c_contiguous:
        clean = _clean_float_pass(flat, moments_stride) if extremes.dtype.kind == "f" else None
        if clean is not None:
            lo, hi, sample = clean
            return _stats_of(lo, hi, sample, common)
    return _real_stats(extremes, moments, extremes_stride, common)


# Elements of a contiguous float array read per step of the exact pass: min, max and the
# moments' sample of one chunk are taken while it is in the CPU's cache (256 KiB of float32),
# so a tensor just written (not in the cache) is read from memory once, not three times.
CHUNK = 1 << 16


def _clean_float_pass(flat: np.ndarray, moments_stride: int) -> tuple[Any, Any, np.ndarray] | None:
    """Exact min and max, and every ``moments_stride``-th element (as float64), of a 1-D
    contiguous float array in one pass over memory; None when it holds a NaN or ±Inf (the
    caller then counts them). The same figures as separate passes, at about half the cost
    on a tensor that is not in the cache."""
    size = int(flat.size)
    step = max(1, CHUNK // moments_stride) * moments_stride  # the sample lines up across chunks
    sample = np.empty(-(-size // moments_stride), np.float64)
    lows, highs = [], []
    at = 0
    for start in range(0, size, step):
        chunk = flat[start : start + step]
        lows.append(chunk.min())
        highs.append(chunk.max())
        part = chunk[::moments_stride]
        sample[at : at + part.size] = part
        at += part.size
    lo, hi = np.min(lows), np.max(highs)  # numpy's: a NaN among them propagates
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return None
    return lo, hi, sample


def _stats_of(lo: Any, hi: Any, wide: np.ndarray, common: dict[str, Any]) -> Stats:
    """Figures of a clean (all finite) array from its extremes and its float64 sample."""
    mean = float(wide.mean())
    std = float(np.sqrt(np.square(wide - mean).mean()))
    return Stats(min=_number(lo), max=_number(hi), mean=mean, std=std, **common)


def _real_stats(
    extremes: np.ndarray, moments: np.ndarray, scale: int, common: dict[str, Any]
) -> Stats:
    lo = extremes.min()
    hi = extremes.max()
    nan = posinf = neginf = 0
    if extremes.dtype.kind == "f" and not (np.isfinite(lo) and np.isfinite(hi)):
        # min/max propagate NaN and reach ±Inf, so finite extremes prove a clean tensor
        # and the (costlier) counting only happens when something is wrong.
        nan = int(np.count_nonzero(np.isnan(extremes))) * scale
        posinf = int(np.count_nonzero(extremes == np.inf)) * scale
        neginf = int(np.count_nonzero(extremes == -np.inf)) * scale
        finite = extremes[np.isfinite(extremes)]
        lo, hi = (finite.min(), finite.max()) if finite.size else (None, None)
        moments = moments[np.isfinite(moments)]
    mean = std = None
    if moments.size:
        # One gather of the (strided) sample into a contiguous float64 copy, then two
        # fast passes over it, instead of three strided passes (mean, then std's two).
        wide = moments.astype(np.float64)
        mean = float(wide.mean())
        std = float(np.sqrt(np.square(wide - mean).mean()))
    return Stats(
        min=None if lo is None else _number(lo),
        max=None if hi is None else _number(hi),
        mean=mean,
        std=std,
        nan=nan,
        posinf=posinf,
        neginf=neginf,
        **common,
    )


def _number(value: Any) -> float:
    item = value.item() if hasattr(value, "item") else value
    return item if isinstance(item, int) else float(item)


def tensor_stats(tensor: EagerTensorLike, on_host: bool | None = None) -> Stats:
    """Statistics of an eager tensor, on the host (CPU tensors) or on its device.

    An eager tensor never changes, so its figures are computed once and reused by its
    summary, its children and later stops, for as long as the tensor lives."""
    cached = _cached(tensor)
    if cached is not None and on_host is None:
        return cached
    if on_host is None:
        on_host = is_on_host(tensor)
    # Strings have no figures: never copy them to the host for none (a 100 MB string scalar).
    on_host = on_host and getattr(tensor.dtype, "name", "") != "string"
    figures = array_stats(np.asarray(host_view(tensor))) if on_host else device_stats(tensor)
    _remember(tensor, figures)
    return figures


# id(tensor) -> (weak reference to it, its figures); an entry leaves with its tensor.
_CACHE: OrderedDict[int, tuple[weakref.ref, Stats]] = OrderedDict()
_CACHE_ENTRIES = 512


def cached_stats(tensor: Any) -> Stats | None:
    """The exact figures already computed for this eager tensor, if any."""
    return _cached(tensor)


def _cached(tensor: Any) -> Stats | None:
    entry = _CACHE.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return _version_cached(tensor) if _VERSIONS else None
    try:
        _CACHE.move_to_end(id(tensor))
    except KeyError:  # its tensor just left (a collection on another thread)
        pass
    return entry[1]


# --------------------------------------------------------------------------- versions
# A variable is read afresh at every row (a new eager tensor each time), yet two reads of a
# variable that nothing wrote in between share one buffer. Figures measured for a read that
# someone holds (the snapshot of ``Δ since last stop``) are kept by that buffer: any other
# read sharing it gets them. Sound while the holder lives: TF's resource variables copy
# their buffer on a write while a read still holds it (copy-on-write), so the held buffer
# never changes, and its address is not reused.

# (buffer address, dtype, shape) -> (weak reference to the holder, its figures)
_VERSIONS: dict[tuple[int, str, tuple[int, ...]], tuple[weakref.ref, Stats]] = {}


_NO_BUFFER = ("string", "resource", "variant")


# id(eager tensor) -> (weak reference to it, its buffer's address): a tensor's buffer never
# moves, and a stop asks for the same tensor's several times (its version compared, its
# figures remembered and looked up), each a host view (``_numpy``) of its own otherwise.
_ADDRESSES: OrderedDict[int, tuple[weakref.ref, int | None]] = OrderedDict()
_ADDRESSES_KEPT = 4096


def buffer_address(tensor: Any) -> int | None:
    """Where an eager tensor's buffer is, when that can be told without a copy: a CPU
    tensor's from its zero-copy host view, another device's from its DLPack capsule (the
    capsule's reference to the buffer is dropped with it); None for an empty tensor or
    anything else. Told once per eager tensor (kept while it lives)."""
    key = id(tensor)
    found = _ADDRESSES.get(key)
    if found is not None and found[0]() is tensor:
        return found[1]
    where = _buffer_address(tensor)
    if type(tensor).__name__.endswith("EagerTensor"):
        try:
            ref = weakref.ref(tensor, lambda _, key=key: _ADDRESSES.pop(key, None))  # type: ignore[misc]
        except TypeError:
            return where
        _ADDRESSES[key] = (ref, where)
        while len(_ADDRESSES) > _ADDRESSES_KEPT:
            _ADDRESSES.popitem(last=False)
    return where


def _buffer_address(tensor: Any) -> int | None:
    try:
        dtype = tensor.dtype
        if getattr(dtype, "name", "") in _NO_BUFFER or not getattr(dtype, "is_numpy_compatible", 0):
            return None  # a string tensor's host view would be a copy of every string
        if not int(tensor.shape.num_elements() or 0):
            return None
        if is_on_host(tensor):
            if not hasattr(tensor, "_numpy"):
                return None
            return int(host_view(tensor).ctypes.data)
        return _dlpack_address(tensor)
    except Exception:
        return None


def _dlpack_address(tensor: Any) -> int | None:
    import ctypes

    import tensorflow as tf

    capsule = tf.experimental.dlpack.to_dlpack(tensor)
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    managed = get(capsule, b"dltensor")
    if not managed:
        return None
    # DLTensor: void* data; DLDevice device (2 x int32); int32 ndim; DLDataType dtype
    # (4 bytes); int64* shape; int64* strides; uint64 byte_offset
    data = ctypes.c_void_p.from_address(managed).value
    offset = ctypes.c_uint64.from_address(managed + 8 + 8 + 4 + 4 + 8 + 8).value
    return None if data is None else int(data) + int(offset)


def _version_key(tensor: Any) -> tuple[int, str, tuple[int, ...]] | None:
    if not type(tensor).__name__.endswith("EagerTensor") or not is_on_host(tensor):
        return None
    where = buffer_address(tensor)
    if where is None:
        return None
    return where, str(getattr(tensor.dtype, "name", "")), tuple(int(d) for d in tensor.shape)


def remember_version(holder: Any, figures: Stats) -> None:
    """Exact figures of ``holder`` (an eager CPU tensor the caller keeps alive), for it and
    for any other tensor sharing its buffer while it lives."""
    _remember(holder, figures)
    key = _version_key(holder)
    if key is None:
        return
    try:
        ref = weakref.ref(holder, lambda r, key=key: _forget_version(key, r))  # type: ignore[misc]
    except TypeError:
        return
    _VERSIONS[key] = (ref, figures)


def _forget_version(key: tuple[int, str, tuple[int, ...]], ref: weakref.ref) -> None:
    entry = _VERSIONS.get(key)
    if entry is not None and entry[0] is ref:
        _VERSIONS.pop(key, None)


def _version_cached(tensor: Any) -> Stats | None:
    key = _version_key(tensor)
    entry = None if key is None else _VERSIONS.get(key)
    if entry is None or entry[0]() is None:
        return None
    return entry[1]


def _remember(tensor: Any, figures: Stats) -> None:
    if not type(tensor).__name__.endswith("EagerTensor"):
        return  # variables and anything mutable are read afresh
    key = id(tensor)
    try:
        ref = weakref.ref(tensor, lambda _, key=key: _CACHE.pop(key, None))  # type: ignore[misc]
    except TypeError:
        return
    _CACHE[key] = (ref, figures)
    while len(_CACHE) > _CACHE_ENTRIES:
        _CACHE.popitem(last=False)


def sampled_stats(tensor: EagerTensorLike) -> Stats:
    """Figures of an eager tensor from a strided sample (``sampled_stride``), marked as
    sampled: what a summary shows once its time budget is spent. Never cached as exact."""
    size = int(tensor.shape.num_elements() or 0)
    dims: list = list(tensor.shape.as_list() or [])
    last = int(dims[-1] or 1) if dims else 1
    stride = sampled_stride(size, int(getattr(tensor.dtype, "size", 0) or 1), last)
    if is_on_host(tensor) and getattr(tensor.dtype, "name", "") != "string":
        return array_stats(np.asarray(host_view(tensor)), stride)
    return device_stats(tensor, stride)


def device_stats(tensor: TensorLike, stride: int | None = None) -> Stats:
    """Reduce on the tensor's own device; only a handful of scalars reach the host."""
    import tensorflow as tf

    dtype = tensor.dtype
    size = int(tensor.shape.num_elements() or 0)
    category = category_of(np.dtype(dtype.as_numpy_dtype)) if dtype.is_numpy_compatible else "other"
    if size == 0 or category in ("string", "other"):
        return Stats(size=size, category=category)
    with harmless(tensor.device):
        flat = tf.reshape(tensor, [-1])
        extremes_stride = stride or extremes_stride_for(size, category, dtype.size)
        moments_stride = stride or _stride_for(size, SAMPLE_LIMIT)
        extremes = flat[::extremes_stride] if extremes_stride > 1 else flat
        moments = flat[::moments_stride] if moments_stride > 1 else flat
        common: dict[str, Any] = {
            "size": size,
            "category": category,
            "moments_sample": int(moments.shape[0]) if moments_stride > 1 else None,
            "moments_stride": moments_stride,
            "extremes_sampled": extremes_stride > 1,
            "extremes_stride": extremes_stride,
        }
        if category == "bool":
            true_count = tf.math.count_nonzero(extremes, dtype=tf.int64)
            mean = tf.reduce_mean(tf.cast(moments, tf.float64))
            values = tf.stack([tf.cast(true_count, tf.float64), mean]).numpy()
            return Stats(
                true_count=int(values[0]) * extremes_stride, mean=float(values[1]), **common
            )
        if category == "complex":
            extremes, moments = tf.abs(extremes), tf.abs(moments)
        wide = tf.float64
        lo, hi, nan, posinf, neginf = _device_extremes(tf, extremes, wide)
        moments64 = tf.cast(moments, wide)
        finite_m = tf.math.is_finite(moments64)
        count_m = tf.reduce_sum(tf.cast(finite_m, wide))
        clean_m = tf.where(finite_m, moments64, tf.zeros_like(moments64))
        mean = tf.reduce_sum(clean_m) / tf.maximum(count_m, 1.0)
        centred = tf.where(finite_m, moments64 - mean, tf.zeros_like(moments64))
        std = tf.sqrt(tf.reduce_sum(centred * centred) / tf.maximum(count_m, 1.0))
        values = tf.stack([lo, hi, mean, std, nan, posinf, neginf, count_m]).numpy()
    lo_v, hi_v, mean_v, std_v, nan_v, pos_v, neg_v, count_v = (float(v) for v in values)
    has_finite = math.isfinite(lo_v)
    as_int = category == "int"
    return Stats(
        min=(int(lo_v) if as_int else lo_v) if has_finite else None,
        max=(int(hi_v) if as_int else hi_v) if has_finite else None,
        mean=mean_v if count_v else None,
        std=std_v if count_v else None,
        nan=int(nan_v) * extremes_stride,
        posinf=int(pos_v) * extremes_stride,
        neginf=int(neg_v) * extremes_stride,
        **common,
    )


# Elements of a device tensor widened to float64 at once for its min/max and NaN/Inf
# counts: the device holds at most this many float64 temporaries besides the value (a
# float32 tensor of 2^27 elements widened whole took 1 GiB more, on a GPU maybe full).
EXTREMES_CHUNK = 1 << 24


def _device_extremes(tf: Any, extremes: Any, wide: Any) -> tuple[Any, ...]:
    """min and max of the finite values, NaN, +Inf and -Inf counts of the 1-D ``extremes``,
    widened and reduced a chunk at a time on its device."""
    big = tf.constant(np.inf, wide)
    size = int(extremes.shape[0])
    parts = []
    for a in range(0, size, EXTREMES_CHUNK):
        chunk = tf.cast(extremes[a : a + EXTREMES_CHUNK], wide)
        finite = tf.math.is_finite(chunk)
        parts.append(
            tf.stack(
                [
                    tf.reduce_min(tf.where(finite, chunk, big)),
                    tf.reduce_max(tf.where(finite, chunk, -big)),
                    tf.reduce_sum(tf.cast(tf.math.is_nan(chunk), wide)),
                    tf.reduce_sum(tf.cast(tf.equal(chunk, big), wide)),
                    tf.reduce_sum(tf.cast(tf.equal(chunk, -big), wide)),
                ]
            )
        )
    table = tf.stack(parts)
    return (
        tf.reduce_min(table[:, 0]),
        tf.reduce_max(table[:, 1]),
        tf.reduce_sum(table[:, 2]),
        tf.reduce_sum(table[:, 3]),
        tf.reduce_sum(table[:, 4]),
    )


def first_bad_index(values: Any) -> tuple[int, ...] | None:
    """Index of the first NaN or ±Inf element (row-major): found in the host array of a
    CPU tensor (or of a numpy array), on the device of any other tensor."""
    if isinstance(values, np.ndarray) or is_on_host(values):
        array = values if isinstance(values, np.ndarray) else np.asarray(host_view(values))
        if category_of(array.dtype) not in ("float", "complex"):
            return None
        flat = array.reshape(-1)
        if flat.dtype.kind == "V":
            flat = flat.astype(np.float32)
        bad = ~np.isfinite(flat)
        position = int(np.argmax(bad)) if flat.size else 0
        if not flat.size or not bad[position]:
            return None
        return tuple(int(i) for i in np.unravel_index(position, array.shape))
    return _first_bad_index_on_device(values)


def _first_bad_index_on_device(tensor: Any) -> tuple[int, ...] | None:
    import tensorflow as tf

    if not (tensor.dtype.is_floating or tensor.dtype.is_complex):
        return None
    with harmless(tensor.device):
        if tensor.dtype.is_complex:
            wide = tf.abs(tensor)
        elif tensor.dtype in (tf.float16, tf.bfloat16, tf.float32, tf.float64):
            wide = tensor
        else:  # float8 and float4 have no IsFinite kernel
            wide = tf.cast(tensor, tf.float32)
        where = tf.where(tf.reshape(tf.logical_not(tf.math.is_finite(wide)), [-1]))
        if int(tf.size(where)) == 0:
            return None
        flat_index = int(where[0, 0])
    shape = tuple(int(d) for d in tensor.shape)
    return tuple(int(i) for i in np.unravel_index(flat_index, shape)) if shape else ()
