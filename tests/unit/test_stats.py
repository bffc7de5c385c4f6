"""Statistics on real tensors and arrays: exact where promised, sampled where said, the same
figures from the host path and the on-device path."""

import math

import numpy as np
import pytest
import tensorflow as tf

from tf_debug_repr.core import guards, stats


def test_clean_float_array_is_exact():
    a = np.arange(10, dtype=np.float32)
    s = stats.array_stats(a)
    assert (s.min, s.max, s.size, s.bad) == (0.0, 9.0, 10, 0)
    assert s.mean == pytest.approx(4.5) and s.std == pytest.approx(np.std(a))
    assert s.moments_sample is None and not s.extremes_sampled


def test_nan_and_inf_are_counted_and_excluded_from_figures():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 3.0, np.nan], dtype=np.float32)
    s = stats.array_stats(a)
    assert (s.nan, s.posinf, s.neginf) == (2, 1, 1)
    assert (s.min, s.max, s.mean) == (1.0, 3.0, 2.0)


def test_large_arrays_sample_moments_but_keep_exact_extremes():
    a = np.zeros(1_000_003, dtype=np.float32)
    a[777_777] = 5.0  # not on the sample's stride
    a[123_457] = np.nan
    s = stats.array_stats(a)
    assert s.max == 5.0 and s.nan == 1, "extremes and bad counts must be exact"
    assert s.moments_sample is not None and s.moments_sample <= stats.SAMPLE_LIMIT
    assert s.moments_stride == -(-a.size // stats.SAMPLE_LIMIT)


def test_huge_integer_tensors_sample_their_range_sparsely_floats_stay_exact():
    # Integers hold no NaN/Inf: past INT_EXACT_LIMIT their range is read from at most
    # INT_SAMPLE elements at least SKIP_BYTES apart (a dense stride would read every byte).
    size = stats.INT_EXACT_LIMIT + 1
    ints = np.zeros(size, dtype=np.int8)
    ints[1] = 100  # off the sample's stride: missed, and the range says it is sampled
    s = stats.array_stats(ints)
    assert s.extremes_sampled and s.extremes_stride >= stats.SKIP_BYTES
    assert size / s.extremes_stride <= stats.INT_SAMPLE
    assert (s.min, s.max) == (0, 0)
    assert s.extremes_stride == stats.extremes_stride_for(size, "int", 1)
    # The same figures on the device path.
    d = stats.device_stats(tf.constant(ints))
    assert (d.min, d.max, d.extremes_stride) == (s.min, s.max, s.extremes_stride)
    # A float tensor of the same size keeps exact extremes and NaN counts.
    floats = np.zeros(size, dtype=np.float32)
    floats[1] = np.nan
    f = stats.array_stats(floats)
    assert not f.extremes_sampled and f.nan == 1
    # Just under the limit, integers are exact.
    assert not stats.array_stats(ints[: stats.INT_EXACT_LIMIT]).extremes_sampled
    assert stats.array_stats(ints[: stats.INT_EXACT_LIMIT]).max == 100


def test_other_categories():
    assert stats.array_stats(np.array([True, False, True])).true_count == 2
    ints = stats.array_stats(np.array([3, -1, 7], dtype=np.int8))
    assert (ints.min, ints.max) == (-1, 7) and isinstance(ints.min, int)
    cplx = stats.array_stats(np.array([3 + 4j, 0j], dtype=np.complex64))
    assert (cplx.min, cplx.max, cplx.category) == (0.0, 5.0, "complex")
    assert stats.array_stats(np.array([b"a"], dtype=object)).category == "string"
    assert stats.array_stats(np.zeros((0, 3))).size == 0


@pytest.mark.parametrize(
    "values",
    [
        tf.constant([[1.0, -2.0], [np.nan, np.inf]], dtype=tf.float32),
        tf.random.stateless_normal([300, 500], seed=[1, 2]),
        tf.constant([1, 5, -3], dtype=tf.int32),
        tf.constant([True, False, False]),
        tf.constant([1.5, 2.5], dtype=tf.bfloat16),
        tf.constant([3 + 4j, 1j], dtype=tf.complex64),
    ],
    ids=["bad-floats", "sampled", "ints", "bool", "bfloat16", "complex"],
)
def test_device_path_agrees_with_host_path(values):
    """The reductions used for GPU tensors (run here on the CPU) give the host's figures."""
    host = stats.tensor_stats(values, on_host=True)
    device = stats.device_stats(values)
    for field in ("size", "category", "nan", "posinf", "neginf", "true_count", "moments_sample"):
        assert getattr(host, field) == getattr(device, field), field
    for field in ("min", "max", "mean", "std"):
        h, d = getattr(host, field), getattr(device, field)
        assert (h is None and d is None) or d == pytest.approx(h, rel=1e-5), field


def test_first_bad_index():
    t = tf.constant([[1.0, 2.0], [3.0, np.nan]])
    assert stats.first_bad_index(t) == (1, 1)
    assert stats.first_bad_index(tf.ones([3])) is None
    assert stats.first_bad_index(tf.constant([1, 2])) is None


def test_host_view_shares_memory_and_is_read_only():
    t = tf.constant([1.0, 2.0])
    view = guards.host_view(t)
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0] = 5.0
    assert t.numpy().tolist() == [1.0, 2.0]


def test_reading_and_reducing_records_nothing_on_an_active_tape():
    from tf_debug_repr.views.variables import read_value

    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(watch_accessed_variables=True) as tape:
        value = read_value(v)
        stats.tensor_stats(value)
        stats.device_stats(value)
    assert tape.watched_variables() == ()


def test_figures_of_an_eager_tensor_are_computed_once_and_leave_with_it():
    x = tf.random.stateless_normal([300, 300], seed=[3, 4])
    first = stats.tensor_stats(x)
    assert stats.tensor_stats(x) is first, "an eager tensor cannot change: reuse its figures"
    key = id(x)
    assert key in stats._CACHE
    del x
    import gc

    gc.collect()
    assert key not in stats._CACHE
    v = tf.Variable([1.0, 2.0])
    stats.tensor_stats(v.value())
    v.assign([5.0, 6.0])
    assert stats.tensor_stats(v.value()).max == 6.0, "a variable's new value is read afresh"


def _separate_passes(a: np.ndarray, stride: int | None = None) -> stats.Stats:
    """The figures as separate numpy passes give them (min, max, then the moments' sample):
    what the one-pass and one-gather paths must reproduce exactly."""
    size = a.size
    flat = a.reshape(-1)
    e_stride = stride or stats.extremes_stride_for(size, "float", a.dtype.itemsize)
    m_stride = stride or -(-size // stats.SAMPLE_LIMIT)
    extremes, moments = flat[::e_stride], flat[::m_stride]
    finite = extremes[np.isfinite(extremes)]
    wide = moments[np.isfinite(moments)].astype(np.float64)
    mean = float(wide.mean())
    return stats.Stats(
        size=size,
        category="float",
        min=float(finite.min()),
        max=float(finite.max()),
        mean=mean,
        std=float(np.sqrt(np.square(wide - mean).mean())),
        nan=int(np.isnan(extremes).sum()) * e_stride,
        posinf=int((extremes == np.inf).sum()) * e_stride,
        neginf=int((extremes == -np.inf).sum()) * e_stride,
        moments_sample=int(moments.size) if m_stride > 1 else None,
        moments_stride=m_stride,
        extremes_sampled=e_stride > 1,
        extremes_stride=e_stride,
    )


@pytest.mark.parametrize("size", [2 * stats.CHUNK, 1_000_003, 3 * stats.CHUNK + 17])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("bad", ["clean", "nan-in-last-chunk", "inf-first", "-inf-last"])
def test_one_pass_figures_are_those_of_separate_passes(size, dtype, bad):
    # Exact figures of a big float array come from one chunked pass (min, max and the
    # moments' sample per chunk), sampled ones from one gather: the same numbers, and a
    # NaN or ±Inf anywhere (the last chunk too) is still found and counted.
    a = (np.random.default_rng(size).standard_normal(size) * 3).astype(dtype)
    a[size // 3] = 40.0  # the maximum, off the moments' stride
    if bad == "nan-in-last-chunk":
        a[size - 5] = np.nan
    elif bad == "inf-first":
        a[0] = np.inf
    elif bad == "-inf-last":
        a[size - 1] = -np.inf
    exact = stats.array_stats(a)
    assert exact == _separate_passes(a) and exact.max == 40.0
    assert exact.bad == (0 if bad == "clean" else 1)
    stride = stats.sampled_stride(size, a.dtype.itemsize)
    assert stats.array_stats(a, stride) == _separate_passes(a, stride)


def test_a_sample_visits_every_column_of_the_last_dimension():
    """A stride the last dimension divides read one column: a [.., 16] output whose first
    unit is biased had a sampled mean of that unit, not of the whole."""
    from tf_debug_repr.core.stats import array_stats, sampled_stride

    columns = np.arange(16, dtype=np.float32) - 7.5  # mean 0 over a row; column 0 is -7.5
    array = np.tile(columns, (16_000, 1))
    stride = sampled_stride(array.size, array.dtype.itemsize, array.shape[-1])
    assert stride > 1 and math.gcd(stride, 16) == 1, stride
    sampled = array_stats(array, stride)
    assert sampled.moments_sample is not None  # a sample, and said so
    assert abs(sampled.mean) < 0.01, sampled.mean  # every column's share, not column 0's


def test_a_tensors_buffer_address_is_told_once_while_it_lives(monkeypatch):
    """The address of an eager tensor's buffer (what tells a value's version) is read
    from its host view once; a new tensor, even at a recycled id, is read anew."""
    import gc

    from tensorflow.python.framework import ops

    t = tf.constant(np.arange(6, dtype=np.float32))
    expected = int(t._numpy().ctypes.data)
    views = []
    real = ops._EagerTensorBase._numpy
    monkeypatch.setattr(ops._EagerTensorBase, "_numpy", lambda self: views.append(1) or real(self))
    assert [stats.buffer_address(t) for _ in range(3)] == [expected] * 3
    assert len(views) == 1
    key = id(t)
    del t
    gc.collect()
    assert key not in stats._ADDRESSES  # forgotten with its tensor
    u = tf.constant(np.arange(6, dtype=np.float32) + 1)
    assert stats.buffer_address(u) == int(real(u).ctypes.data) and len(views) == 2
