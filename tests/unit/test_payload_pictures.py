"""The notebook pictures drawn from payload dicts: colours, masks, layout, bounds."""

from __future__ import annotations

import numpy as np
import pytest

from tf_debug_repr.hosts.notebook import colour_maps
from tf_debug_repr.hosts.notebook import pictures as payload_pictures
from tf_debug_repr.hosts.notebook.pixel_font import draw_text, text_size

from .payload_dicts import image_payload, payload


def colours_in(picture: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(c) for c in px) for px in picture.reshape(-1, picture.shape[-1])}


def opaque(colour) -> tuple[int, ...]:
    return (*(int(c) for c in colour), 255)


def test_pictures_are_transparent_around_what_is_drawn_with_grey_labels():
    """No white card in a dark theme: the margins and the space around the labels are
    transparent, everything drawn opaque, the labels a grey that reads on both themes."""
    for data in (payload(np.array([[0.0, 10.0]])), payload(np.linspace(0, 1, 50))):
        picture = payload_pictures.draw(data)
        assert picture.shape[2] == 4
        assert tuple(picture[0, 0]) == (0, 0, 0, 0)
        assert set(np.unique(picture[..., 3]).tolist()) == {0, 255}
        assert (picture == payload_pictures.INK).all(axis=2).any()
    ink = np.array(payload_pictures.INK[:3]) / 255.0

    def luminance(c: np.ndarray) -> float:
        c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return float(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2])

    dark = luminance(np.array([0x11, 0x11, 0x11]) / 255.0)  # JupyterLab's dark background
    assert (1.05 / (luminance(ink) + 0.05)) > 4 and (luminance(ink) + 0.05) / (dark + 0.05) > 4


def test_a_2d_value_is_a_heatmap_with_each_cell_in_its_map_colour():
    cells = np.array([[0.0, 1.0], [2.0, 4.0]], np.float32)
    picture = payload_pictures.draw(payload(cells))
    assert payload_pictures.picture_kind(payload(cells)) == "heatmap"
    # square cells filling the heatmap side: 128 px each, starting at the margin
    side = payload_pictures.HEATMAP_SIDE // 2
    m = payload_pictures.MARGIN
    expected = colour_maps.colour(cells, 0.0, 4.0, colour_maps.VIRIDIS)
    for r in range(2):
        for c in range(2):
            centre = picture[m + r * side + side // 2, m + c * side + side // 2]
            assert tuple(centre) == opaque(expected[r, c])
    assert tuple(picture[m + 5, m + 5]) == opaque(colour_maps.VIRIDIS[0].astype(np.uint8))


def test_nan_and_infinities_get_their_own_colours():
    cells = np.array([[np.nan, np.inf], [-np.inf, 1.0], [2.0, 3.0]], np.float32)
    picture = payload_pictures.draw(payload(cells))
    found = colours_in(picture)
    for special in (colour_maps.NAN_COLOUR, colour_maps.POSINF_COLOUR, colour_maps.NEGINF_COLOUR):
        assert opaque(special) in found


def test_signed_data_uses_the_diverging_map_centred_on_zero():
    cells = np.array([[-2.0, 0.0, 1.0]], np.float32)
    picture = payload_pictures.draw(payload(cells))
    # the zero cell is the diverging map's middle (near white), not viridis
    m, (down, across) = payload_pictures.MARGIN, payload_pictures._cell_pixels(1, 3)
    zero = picture[m + down // 2, m + across + across // 2]
    assert tuple(zero) == opaque(
        colour_maps.DIVERGING[len(colour_maps.DIVERGING) // 2].astype(np.uint8)
    )


def test_the_colour_bar_runs_from_the_high_end_at_the_top():
    picture = payload_pictures.draw(payload(np.array([[0.0, 10.0]])))
    m = payload_pictures.MARGIN
    down, across = payload_pictures._cell_pixels(1, 2)
    bar_left = m + 2 * across + 2 * m
    bar = picture[m : m + down, bar_left + payload_pictures.COLOUR_BAR_WIDTH // 2]
    assert tuple(bar[0]) == opaque(colour_maps.sample(colour_maps.VIRIDIS, np.array(1.0)))
    assert tuple(bar[-1]) == opaque(colour_maps.sample(colour_maps.VIRIDIS, np.array(0.0)))
    # labelled: ink right of the bar
    labels = picture[:, bar_left + payload_pictures.COLOUR_BAR_WIDTH :]
    assert (labels == payload_pictures.INK).all(axis=2).any()


def test_3d_values_show_a_slice_and_big_slices_are_shrunk_to_the_side():
    cells = np.random.default_rng(0).normal(size=(3, 600, 40)).astype(np.float32)
    picture = payload_pictures.draw(payload(cells))
    assert picture.shape[0] <= payload_pictures.HEATMAP_SIDE + 2 * payload_pictures.MARGIN
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
    assert picture.shape[0] >= payload_pictures.MIN_STRIP


def test_a_1d_value_is_a_histogram_with_bars_for_nan_and_inf():
    values = np.concatenate([np.linspace(0, 1, 50), [np.nan, np.nan, np.inf]]).astype(np.float32)
    data = payload(values)
    assert payload_pictures.picture_kind(data) == "histogram"
    picture = payload_pictures.draw(data)
    found = colours_in(picture)
    assert payload_pictures.BAR in found
    assert opaque(colour_maps.NAN_COLOUR) in found and opaque(colour_maps.POSINF_COLOUR) in found
    assert opaque(colour_maps.NEGINF_COLOUR) not in found  # no -Inf: no bar for it


def test_a_1d_value_of_only_nan_still_draws_its_nan_bar():
    data = payload(np.full(4, np.nan, np.float32))
    picture = payload_pictures.draw(data)
    assert opaque(colour_maps.NAN_COLOUR) in colours_in(picture)


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
    picture = payload_pictures.draw(data)
    gap = payload_pictures.TILE_GAP
    assert picture.shape == (28 * 4, 56 * 4 + gap, 4)
    assert tuple(picture[0, 0]) == (255, 0, 0, 255) and tuple(picture[-1, -1]) == (0, 0, 255, 255)
    assert tuple(picture[0, 28 * 4]) == (0, 0, 0, 0)  # the gap between the two tiles


def test_text_is_drawn_in_ink_where_it_says():
    canvas = np.full((20, 40, 3), 255, np.uint8)
    draw_text(canvas, 2, 3, "1.5e+03", (0, 0, 0))
    width, height = text_size("1.5e+03")
    inked = np.argwhere((canvas == 0).all(axis=2))
    assert inked.size
    assert inked[:, 0].min() >= 3 and inked[:, 0].max() < 3 + height
    assert inked[:, 1].min() >= 2 and inked[:, 1].max() < 2 + width
    # clipped at the edge without error
    draw_text(canvas, 35, 15, "888", (0, 0, 0))


def test_nothing_finite_means_no_colour_bar():
    picture = payload_pictures.draw(payload(np.full((2, 3), -np.inf, np.float32)))
    found = colours_in(picture)
    assert found == {opaque(colour_maps.NEGINF_COLOUR), payload_pictures.BACKGROUND}


def test_a_tall_thin_matrix_is_wide_enough_to_see():
    picture = payload_pictures.heatmap(payload(np.zeros((1600, 10)))["slice"])
    heat_width = picture.shape[1] - payload_pictures.COLOUR_BAR_WIDTH
    assert heat_width >= payload_pictures.MIN_STRIP


def test_images_with_nan_are_drawn_as_a_heatmap_where_the_nan_shows():
    data = image_payload(np.zeros((28, 28, 4), np.uint8), tile=(28, 28), count=1, columns=1)
    data["stats"]["nan"] = 1
    assert payload_pictures.picture_kind(data) == "heatmap"


def test_glyphs_of_other_widths_advance_by_their_width():
    assert text_size("N") == (8, 10) and text_size("NaN") == (8 + 2 + 6 + 2 + 8, 10)
