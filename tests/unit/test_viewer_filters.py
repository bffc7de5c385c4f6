"""A conv kernel's payload also holds its filters (viewer/filters.py): one h x w tile per
input and output channel, the kernel's own values, within the budget; other values none."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from tf_debug_repr.viewer.filters import MAX_FILTERS, shown_counts
from tf_debug_repr.viewer.payload import build

tf = pytest.importorskip("tensorflow")


def _tiles(f: dict) -> np.ndarray:
    values = np.frombuffer(base64.b64decode(f["values"]), "<f4")
    return values.reshape(f["in_shown"], f["out_shown"], *f["tile"])


def test_a_conv_kernel_holds_its_filters_as_tiles_of_its_own_values():
    kernel = np.random.default_rng(0).normal(size=(5, 5, 1, 64)).astype(np.float32)
    for value in (kernel, tf.constant(kernel), tf.Variable(kernel, name="conv2d/kernel")):
        p = build(value)
        f = p["filters"]
        assert (f["layout"], f["tile"], f["in_shown"], f["out_shown"]) == ("HWIO", [5, 5], 1, 64)
        assert (f["in_channels"], f["out_channels"]) == (1, 64)
        tiles = _tiles(f)
        np.testing.assert_array_equal(tiles[0, 7], kernel[:, :, 0, 7])  # filter 7, row-major
        assert f["min"] == pytest.approx(kernel.min()) and f["signed"]
        assert p["slice"]["axes"] == [2, 3]  # the heatmap is still in x out


def test_non_finite_weights_are_marked_and_the_filters_stay_in_budget():
    kernel = np.zeros((3, 3, 64, 128), np.float32)
    kernel[1, 2, 0, 5] = np.nan
    p = build(kernel, budget=200_000)
    f = p["filters"]
    mask = np.frombuffer(base64.b64decode(f["mask"]), np.uint8).reshape(_tiles(f).shape)
    assert mask[0, 5, 1, 2] == 1 and mask.sum() == 1
    assert f["out_shown"] == 128 and 1 <= f["in_shown"] < 64
    assert f["in_shown"] * f["out_shown"] * 9 * 5 <= 200_000 // 4


def test_only_conv_kernels_have_filters():
    assert build(np.zeros((8, 28, 28, 1), np.float32))["filters"] is None  # images
    assert build(np.zeros((4, 5), np.float32))["filters"] is None
    assert build(np.zeros((3, 16, 16), np.float32))["filters"] is None  # Conv1D: a heatmap
    assert build(np.zeros((3, 3, 2, 2), bool))["filters"] is None


def test_shown_counts_keep_every_output_up_to_the_cap_then_fill_inputs():
    assert shown_counts((3, 3, 3, 64), 1_000_000) == (3, 64)
    assert shown_counts((3, 3, 512, 2048), 250_000)[1] == MAX_FILTERS
    assert shown_counts((7, 7, 1, 10), 5) == (1, 1)  # never nothing
