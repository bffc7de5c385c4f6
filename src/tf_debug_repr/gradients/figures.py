"""The figures of a gradient: its norm, and what is kept of one whose values are not.

Computed at capture time, so they must be cheap: the norm is one pass (a zero-copy
numpy dot product on the host; a device scalar on a GPU, read only when shown, so a
step never waits for it). A gradient over the memory budget keeps min/max/mean/std
from a strided sample and exact NaN/Inf counts (free when the norm is finite).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.guards import harmless

SAMPLE = 1 << 16  # elements used to describe a gradient whose values are not kept


@dataclass
class Figures:
    """What is kept of a gradient whose values are not: its figures, computed at capture.

    ``values`` holds min, max, mean, std, NaN, +Inf, -Inf (a host array, or a device
    tensor read only when shown, so a GPU step never waits for it).
    """

    size: int
    values: Any
    stride: int  # min/max/mean/std from every ``stride``-th element; the counts are exact
    counts_sampled: bool = False  # the NaN/Inf counts too (compiled steps: the sample's)

    def stats(self) -> Any:
        from ..core import stats

        raw = self.values if isinstance(self.values, np.ndarray) else self.values.numpy()
        lo, hi, mean, std, nan, pos, neg = (float(v) for v in np.asarray(raw, np.float64))
        sampled = self.stride > 1
        return stats.Stats(
            size=self.size,
            category="float",
            min=lo if math.isfinite(lo) else None,
            max=hi if math.isfinite(hi) else None,
            mean=mean if math.isfinite(mean) else None,
            std=std if math.isfinite(std) else None,
            nan=int(nan),
            posinf=int(pos),
            neginf=int(neg),
            moments_sample=(self.size + self.stride - 1) // self.stride if sampled else None,
            moments_stride=self.stride,
            extremes_sampled=sampled,
            extremes_stride=self.stride,
        )


def as_float(value: Any) -> float | None:
    if value is None or isinstance(value, float):
        return value
    try:
        return float(value.numpy())  # a scalar left on an accelerator until asked for
    except Exception:
        return None


def _plain(gradient: Any) -> bool:
    # Most gradients are plain eager tensors, whose missing-attribute path is slow
    # (TF builds a long message), so they skip the attribute probes below.
    return type(gradient).__name__ == "EagerTensor"


def dense_part(gradient: Any) -> Any:
    """The tensor holding a gradient's values (IndexedSlices and ragged ones included)."""
    if _plain(gradient):
        return gradient
    for attr in ("values", "flat_values"):
        inner = getattr(gradient, attr, None)
        if inner is not None and not callable(inner):
            return dense_part(inner)
    return gradient


def _on_host(tensor: Any) -> bool:
    device = getattr(tensor, "device", "") or ""
    return "GPU" not in device and "TPU" not in device


def _host_floats(tensor: Any) -> np.ndarray:
    """A flat float array of a CPU tensor's values (zero-copy for float32/float64)."""
    array = np.asarray(tensor._numpy()).reshape(-1)
    if array.dtype.kind == "c":
        return np.abs(array)
    if array.dtype.kind != "f" or array.dtype.itemsize < 4:
        return array.astype(np.float32)
    return array


def norm_of(gradient: Any) -> Any:
    """The L2 norm: a float for host tensors (zero-copy numpy), a device scalar otherwise,
    so a GPU step never waits for it. IndexedSlices: the norm of their values."""
    tensor = dense_part(gradient)
    if _on_host(tensor):
        array = _host_floats(tensor)
        with np.errstate(all="ignore"):
            return math.sqrt(float(np.dot(array, array)))
    import tensorflow as tf

    from ..core import tf_compat

    tape_recording = tf_compat.tape_recording()

    # harmless: an observer's ops (the NaN check never stops on them)
    with harmless(tensor.device), tape_recording.stop_recording():
        return tf.norm(tf.cast(tf.reshape(tensor, [-1]), tf.float32))


def figures_of(gradient: Any, norm: float | None) -> Figures:
    """Figures of a gradient that will not be kept, in one cheap pass at most.

    Min/max/mean/std come from a strided sample of at most ``SAMPLE`` elements (the
    norm, already computed, is exact); NaN/Inf counts are exact: zero when the norm is
    finite (one NaN or Inf makes it so), counted otherwise.
    """
    tensor = dense_part(gradient)
    size = int(tensor.shape.num_elements() or 0)
    stride = max(1, -(-size // SAMPLE))
    known_clean = _finite(norm)
    if _on_host(tensor):
        array = _host_floats(tensor)
        counts = [0.0, 0.0, 0.0] if known_clean else host_counts(array)
        return Figures(size, np.array(host_moments(array[::stride]) + counts), stride)
    return Figures(size, device_figures(tensor, stride), stride)


def host_moments(sample: np.ndarray) -> list[float]:
    """min, max, mean, std of the finite elements of a host sample (NaN for each when none
    is finite), in float64."""
    wide = sample[np.isfinite(sample)].astype(np.float64)
    if not wide.size:
        return [math.nan] * 4
    with np.errstate(all="ignore"):
        return [float(wide.min()), float(wide.max()), float(wide.mean()), float(wide.std())]


def host_counts(array: np.ndarray) -> list[float]:
    """NaN, +Inf and -Inf counts of a host array."""
    return [
        float(np.count_nonzero(np.isnan(array))),
        float(np.count_nonzero(array == np.inf)),
        float(np.count_nonzero(array == -np.inf)),
    ]


def _finite(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def device_figures(tensor: Any, stride: int) -> Any:
    """The same figures reduced on the tensor's device; a tensor read only when shown."""
    import tensorflow as tf

    from ..core import tf_compat

    tape_recording = tf_compat.tape_recording()

    # harmless: an observer's ops (the NaN check never stops on them)
    with harmless(tensor.device), tape_recording.stop_recording():
        flat = tf.reshape(tensor, [-1])
        if tensor.dtype.is_complex:
            flat = tf.abs(flat)
        flat = tf.cast(flat, tf.float32)
        sample = flat[::stride]
        finite = tf.math.is_finite(sample)
        clean = tf.boolean_mask(sample, finite)
        inf = tf.constant(np.inf, tf.float32)
        return tf.stack(
            [
                tf.reduce_min(clean),
                tf.reduce_max(clean),
                tf.reduce_mean(clean),
                tf.math.reduce_std(clean),
                tf.reduce_sum(tf.cast(tf.math.is_nan(flat), tf.float32)),
                tf.reduce_sum(tf.cast(tf.equal(flat, inf), tf.float32)),
                tf.reduce_sum(tf.cast(tf.equal(flat, -inf), tf.float32)),
            ]
        )


def nbytes(gradient: Any) -> int:
    total = 0
    for part in _parts(gradient):
        try:
            total += int(part.shape.num_elements() or 0) * int(part.dtype.size)
        except Exception:
            continue
    return total


def _parts(gradient: Any) -> list:
    """The tensors a gradient holds (IndexedSlices: values and indices)."""
    if _plain(gradient):
        return [gradient]
    parts = []
    for attr in ("values", "indices", "dense_shape"):
        inner = getattr(gradient, attr, None)
        if inner is not None and not callable(inner) and hasattr(inner, "shape"):
            parts.append(inner)
    return parts or [gradient]
