"""An image payload for the VS Code page (``view_payload``) carries the values its pixels stand
for (the page's hover reads them, not the light): float32 a channel, block means at their own
step where the budget is short. The notebook's (``build``) keeps its whole budget for light."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from tf_debug_repr.viewer.payload import build, decode, view_payload

tf = pytest.importorskip("tensorflow")


def _values(image: dict) -> np.ndarray:
    v = image["values"]
    data = np.frombuffer(base64.b64decode(v["data"]), "<f4")
    return data.reshape(image["count"], *v["tile"], image["channels"])


def test_the_values_of_a_batch_are_the_batch():
    batch = np.random.default_rng(3).uniform(size=(4, 6, 5, 3)).astype(np.float32)
    for value in (batch, tf.constant(batch)):
        image = build(value, pixel_values=True)["image"]
        assert image["values"]["step"] == [1, 1] and image["step"] == [1, 1]
        np.testing.assert_array_equal(_values(image), batch)


def test_channels_first_values_come_channels_last_like_the_light():
    chw = np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)
    image = build(chw, pixel_values=True)["image"]
    assert image["layout"] == "CHW"
    np.testing.assert_array_equal(_values(image)[0], np.transpose(chw, (1, 2, 0)))


def test_short_of_budget_the_values_are_block_means_within_their_half():
    photo = np.random.default_rng(4).uniform(size=(64, 64, 3)).astype(np.float32)
    photo[0, 0, 0] = np.nan
    image = build(photo, budget=60_000, pixel_values=True)["image"]
    v = image["values"]
    assert v["step"][0] > 1 and v["step"] >= image["step"]
    values = _values(image)
    assert values.nbytes <= 60_000 // 2 // 2  # half of the image's half
    sr, sc = v["step"]
    np.testing.assert_allclose(
        values[0, 1, 1], photo[sr : 2 * sr, sc : 2 * sc].mean(axis=(0, 1)), rtol=1e-5
    )
    assert np.isnan(values[0, 0, 0, 0])  # a block with a NaN is NaN


def test_view_payload_sends_them_and_the_notebook_payload_keeps_its_light():
    photo = np.random.default_rng(5).uniform(size=(64, 64, 3)).astype(np.float32)
    page = decode(view_payload(photo, budget=60_000))["image"]
    notebook = build(photo, budget=60_000)["image"]
    assert "values" in page and "values" not in notebook
    # all its half of the budget for RGBA: tiles at least as fine as the page's
    assert notebook["tile"][0] * notebook["tile"][1] > page["tile"][0] * page["tile"][1]
