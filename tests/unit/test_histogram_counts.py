"""The viewer histogram's counts against numpy's, exactly: finite values per bin, NaN/±Inf
taken out, zeros (both signs) counted, on floats and on integers."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from tf_debug_repr.viewer import histograms  # noqa: E402


def _expected(array: np.ndarray, h: histograms.Histogram) -> list[int]:
    """numpy's counts over the same edges, with TF's rule: a value on an inner edge goes
    to the bin above it, the last edge to the last bin."""
    finite = array[np.isfinite(array)].astype(np.float64)
    first, last, n = h.edges[0], h.edges[-1], len(h.counts)
    index = np.minimum((finite - first) / ((last - first) / n), n - 1).astype(np.int64)
    return np.bincount(index, minlength=n).tolist()


@pytest.mark.parametrize("may_be_bad", [True, False])
def test_float_counts_zeros_and_bad_values(may_be_bad):
    rng = np.random.default_rng(3)
    array = rng.standard_normal(50_000).astype(np.float32)
    array[:300] = 0.0
    array[300:310] = -0.0
    if may_be_bad:
        array[310:317] = np.nan
        array[317:320] = np.inf
        array[320:322] = -np.inf
    finite = array[np.isfinite(array)]
    h = histograms.histogram(tf.constant(array), finite.min(), finite.max(), False, 64, may_be_bad)
    assert h.zeros == 310 and not h.sampled
    assert sum(h.counts) == finite.size
    assert h.counts == _expected(array, h)


def test_integer_counts_one_bin_per_value():
    array = np.array([-3, -3, 0, 0, 0, 1, 4, 4, 4, 4], np.int8)
    h = histograms.histogram(tf.constant(array), -3, 4, True, 64, False)
    assert h.counts == [2, 0, 0, 3, 1, 0, 0, 4] and h.zeros == 3
