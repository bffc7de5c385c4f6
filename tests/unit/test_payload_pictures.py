"""The notebook pictures drawn from payload dicts: colours, masks, layout, bounds; their
labels as HTML text beside the pixels."""

from __future__ import annotations

import base64
import re

import numpy as np
import pytest

from tf_debug_repr.hosts.notebook import colour_maps, picture_html
from tf_debug_repr.hosts.notebook import pictures as payload_pictures

from .payload_dicts import image_payload, payload


def colours_in(picture: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(c) for c in px) for px in picture.reshape(-1, picture.shape[-1])}


def opaque(colour) -> tuple[int, ...]:
    return (*(int(c) for c in colour), 255)


def pixels_of(picture) -> np.ndarray:
    return picture.pixels


def test_pictures_are_only_their_cells_and_bars_with_no_text_in_pixels():
    """No white card in a dark theme and no label drawn in pixels: a heatmap is its cells
    (all opaque), a histogram its bars on a transparent ground."""
    heat = payload_pictures.draw(payload(np.array([[0.0, 10.0]])))
    assert isinstance(heat, payload_pictures.Heatmap)
    assert heat.pixels.shape[2] == 4 and (heat.pixels[..., 3] == 255).all()
    down, across = payload_pictures._cell_pixels(1, 2)
    assert heat.pixels.shape[:2] == (down, 2 * across)
    hist = payload_pictures.draw(payload(np.linspace(0, 1, 50)))
    assert isinstance(hist, payload_pictures.Histogram)
    assert hist.pixels.shape[0] == payload_pictures.HISTOGRAM_HEIGHT
    assert (hist.pixels[:, -1] == payload_pictures.BACKGROUND).all()  # the gap after a bar
    assert {tuple(c) for c in hist.pixels.reshape(-1, 4)} == {
        payload_pictures.BACKGROUND,
        payload_pictures.BAR,
    }


def test_a_2d_value_is_a_heatmap_with_each_cell_in_its_map_colour():
    cells = np.array([[0.0, 1.0], [2.0, 4.0]], np.float32)
    picture = pixels_of(payload_pictures.draw(payload(cells)))
    assert payload_pictures.picture_kind(payload(cells)) == "heatmap"
    # square cells filling the heatmap side: 128 px each
    side = payload_pictures.HEATMAP_SIDE // 2
    m = 0
    expected = colour_maps.colour(cells, 0.0, 4.0, colour_maps.VIRIDIS)
    for r in range(2):
        for c in range(2):
            centre = picture[m + r * side + side // 2, m + c * side + side // 2]
            assert tuple(centre) == opaque(expected[r, c])
    assert tuple(picture[m + 5, m + 5]) == opaque(colour_maps.VIRIDIS[0].astype(np.uint8))


def test_nan_and_infinities_get_their_own_colours():
    cells = np.array([[np.nan, np.inf], [-np.inf, 1.0], [2.0, 3.0]], np.float32)
    picture = pixels_of(payload_pictures.draw(payload(cells)))
    found = colours_in(picture)
    for special in (colour_maps.NAN_COLOUR, colour_maps.POSINF_COLOUR, colour_maps.NEGINF_COLOUR):
        assert opaque(special) in found


def test_signed_data_uses_the_diverging_map_centred_on_zero():
    cells = np.array([[-2.0, 0.0, 1.0]], np.float32)
    picture = pixels_of(payload_pictures.draw(payload(cells)))
    # the zero cell is the diverging map's middle (near white), not viridis
    m, (down, across) = 0, payload_pictures._cell_pixels(1, 3)
    zero = picture[m + down // 2, m + across + across // 2]
    assert tuple(zero) == opaque(
        colour_maps.DIVERGING[len(colour_maps.DIVERGING) // 2].astype(np.uint8)
    )


def test_the_colour_bar_is_the_map_from_the_high_end_at_the_top_labelled_in_text():
    picture = payload_pictures.draw(payload(np.array([[0.0, 10.0]])))
    scale = picture.scale
    assert (scale.low, scale.high, scale.zero) == ("0", "10", None)
    assert scale.anchors[0] == tuple(colour_maps.sample(colour_maps.VIRIDIS, np.array(0.0)))
    assert scale.anchors[-1] == tuple(colour_maps.sample(colour_maps.VIRIDIS, np.array(1.0)))
    text = picture_html.html_of(picture, "heatmap")
    gradient = re.search(r"linear-gradient\(to top,([^)]*\)[^;]*)\)", text).group(1)
    stops = re.findall(r"rgb\((\d+),(\d+),(\d+)\) ([\d.]+)%", gradient)
    assert len(stops) == len(colour_maps.VIRIDIS)
    assert tuple(int(c) for c in stops[0][:3]) == scale.anchors[0] and stops[0][3] == "0"
    assert tuple(int(c) for c in stops[-1][:3]) == scale.anchors[-1] and stops[-1][3] == "100"
    # the range as text, high at the top, low at the bottom
    assert re.search(r"top:0;left:0\">10</span>", text)
    assert re.search(r"bottom:0;left:0\">0</span>", text)


def test_a_signed_scale_says_where_zero_is():
    picture = payload_pictures.draw(payload(np.array([[-2.0, 0.0, 1.0]])))
    assert (picture.scale.low, picture.scale.high, picture.scale.zero) == ("-2", "2", 0.5)
    assert 'top:50.0%;transform:translateY(-50%)">0</span>' in picture_html.html_of(picture, "")


def test_the_picture_html_is_one_png_of_the_pixels_and_escaped_text():
    picture = payload_pictures.draw(payload(np.arange(20.0).reshape(4, 5)))
    text = picture_html.html_of(picture, 'x[0] of <b>"weights"</b>')
    found = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(found) == 1
    decoded = tf_decode(base64.b64decode(found[0]))
    np.testing.assert_array_equal(decoded, picture.pixels)
    assert "<b>" not in text and "&lt;b&gt;&quot;weights&quot;&lt;/b&gt;" in text
    height, width = picture.pixels.shape[:2]
    assert f'width="{width}" height="{height}"' in text


def tf_decode(data: bytes) -> np.ndarray:
    tf = pytest.importorskip("tensorflow")
    return tf.io.decode_png(data, channels=0).numpy()


def test_3d_values_show_a_slice_and_big_slices_are_shrunk_to_the_side():
    cells = np.random.default_rng(0).normal(size=(3, 600, 40)).astype(np.float32)
    picture = pixels_of(payload_pictures.draw(payload(cells)))
    assert picture.shape[0] <= payload_pictures.HEATMAP_SIDE
    assert picture.shape[1] < 400


def test_shrink_keeps_the_mean_of_finite_cells_and_nan_over_infinity():
    values = np.array([[1.0, 3.0, 0.0, 0.0], [5.0, 7.0, 0.0, 0.0]], np.float32)
    mask = np.array([[0, 0, 2, 1], [0, 0, 3, 0]], np.uint8)
    means, reduced = payload_pictures.shrink(values, mask, 2)
    assert means.shape == (2, 2)
    assert means[:, 0].tolist() == pytest.approx([2.0, 6.0])
    assert reduced.tolist() == [[0, 1], [0, 3]]
    means, reduced = payload_pictures.shrink(values, mask, 1)
    assert means.shape == (1, 1) and means[0, 0] == pytest.approx(16 / 5)
    assert reduced.tolist() == [[1]]


def test_a_very_flat_heatmap_still_has_height():
    picture = payload_pictures.heatmap(payload(np.arange(500.0).reshape(1, 500))["slice"])
    assert picture.pixels.shape[0] >= payload_pictures.MIN_STRIP


def test_a_1d_value_is_a_histogram_with_bars_for_nan_and_inf():
    values = np.concatenate([np.linspace(0, 1, 50), [np.nan, np.nan, np.inf]]).astype(np.float32)
    data = payload(values)
    assert payload_pictures.picture_kind(data) == "histogram"
    picture = payload_pictures.draw(data)
    assert payload_pictures.BAR in colours_in(picture.pixels)
    counts = data["histogram"]["counts"]
    assert picture.peak == f"{max(counts):,}"
    assert (picture.low, picture.high) == ("0", "1")
    # one bar each for NaN and +Inf, on the finite bars' scale; none for -Inf
    assert [(s.label, s.count, s.colour) for s in picture.specials] == [
        ("NaN", 2, colour_maps.NAN_COLOUR),
        ("+Inf", 1, colour_maps.POSINF_COLOUR),
    ]
    tallest = payload_pictures.HISTOGRAM_HEIGHT
    assert picture.specials[0].height == max(2, round(tallest * 2 / max(counts)))
    text = picture_html.html_of(picture, "histogram")
    assert text.count("<img") == 1
    for label in ("NaN", "+Inf", ">0<", ">1<", f">{max(counts):,}<"):
        assert label in text, label
    assert "-Inf" not in text
    assert f"background:rgb{colour_maps.NAN_COLOUR}".replace(" ", "") in text


def test_a_1d_value_of_only_nan_still_draws_its_nan_bar():
    data = payload(np.full(4, np.nan, np.float32))
    picture = payload_pictures.draw(data)
    assert picture.pixels is None
    assert [(s.label, s.count, s.height) for s in picture.specials] == [
        ("NaN", 4, payload_pictures.HISTOGRAM_HEIGHT)
    ]
    assert "<img" not in picture_html.html_of(picture, "histogram")


def test_scalars_and_errors_have_no_picture():
    assert payload_pictures.draw(payload(np.float32(3.0))) is None
    failed = payload(np.zeros((2, 2)))
    failed.update(slice=None, histogram=None)
    assert payload_pictures.draw(failed) is None


def test_an_image_grid_is_drawn_as_it_is_enlarged_when_small():
    grid = np.zeros((28, 56, 4), np.uint8)
    grid[:, :28] = (255, 0, 0, 255)
    grid[:, 28:] = (0, 0, 255, 255)
    data = image_payload(grid, tile=(28, 28), count=2, columns=2)
    assert payload_pictures.picture_kind(data) == "image"
    picture = pixels_of(payload_pictures.draw(data))
    gap = payload_pictures.TILE_GAP
    assert picture.shape == (28 * 4, 56 * 4 + gap, 4)
    assert tuple(picture[0, 0]) == (255, 0, 0, 255) and tuple(picture[-1, -1]) == (0, 0, 255, 255)
    assert tuple(picture[0, 28 * 4]) == (0, 0, 0, 0)  # the gap between the two tiles


def test_nothing_finite_means_no_colour_bar():
    picture = payload_pictures.draw(payload(np.full((2, 3), -np.inf, np.float32)))
    assert picture.scale is None
    assert colours_in(picture.pixels) == {opaque(colour_maps.NEGINF_COLOUR)}
    assert "linear-gradient" not in picture_html.html_of(picture, "")


def test_a_tall_thin_matrix_is_wide_enough_to_see():
    picture = payload_pictures.heatmap(payload(np.zeros((1600, 10)))["slice"])
    assert picture.pixels.shape[1] >= payload_pictures.MIN_STRIP


def test_images_with_nan_are_drawn_as_a_heatmap_where_the_nan_shows():
    data = image_payload(np.zeros((28, 28, 4), np.uint8), tile=(28, 28), count=1, columns=1)
    data["stats"]["nan"] = 1
    assert payload_pictures.picture_kind(data) == "heatmap"


def test_a_small_heatmap_keeps_every_cell_in_fewer_pixels():
    cells = np.arange(16 * 8, dtype=np.float32).reshape(16, 8)
    full = payload_pictures.draw(payload(cells))
    small = payload_pictures.draw(payload(cells), side=96)
    assert full.pixels.shape[:2] == (256, 128)
    assert small.pixels.shape[:2] == (96, 48)  # 6 pixels a cell, every cell drawn
    assert colours_in(small.pixels) == colours_in(full.pixels)
