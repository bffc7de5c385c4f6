"""Pictures of a viewer payload (docs/tensor-viewer.md) as RGBA uint8 arrays, drawn in numpy:
a heatmap of the 2-D slice with a colour bar, a histogram with NaN/±Inf bars, or the image grid.

The background is transparent and the labels a mid grey, so a picture sits on the
notebook's own background in light and dark themes (no white card).

Works on the payload dict only (already small and on the host), so it knows nothing of
TensorFlow; ``png.encode_png`` turns the result into a file.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

from . import colour_maps
from .pixel_font import draw_text, number_text, text_size

HEATMAP_SIDE = 256  # pixels of the heatmap's longer side, at most
# Cells along a side, at most: 2x2 pixels each at full size, so a noisy 128x128 slice
# stays a ~60 KB PNG (zlib finds the repeated rows).
HEATMAP_CELLS = 128
MIN_STRIP = 64  # pixels a thin heatmap ([1600, 10], [2, 1000]) still gets across
COLOUR_BAR_WIDTH = 12
HISTOGRAM_WIDTH = 256
HISTOGRAM_HEIGHT = 96
IMAGE_SIDE = 256  # an image grid is enlarged up to this, never beyond 4x
TILE_GAP = 2  # transparent pixels between the images of a batch
MARGIN = 4
BACKGROUND = (0, 0, 0, 0)  # transparent: the theme's background shows
# Mid greys: about 4.4:1 against JupyterLab's light background (white) and 4.2:1 against
# its dark one (#111), readable on both.
INK = (120, 120, 120, 255)
AXIS = (128, 128, 128, 255)
BAR = (70, 130, 180, 255)
SPECIAL_BARS = (
    ("nan", "NaN", colour_maps.NAN_COLOUR),
    ("posinf", "+Inf", colour_maps.POSINF_COLOUR),
    ("neginf", "-Inf", colour_maps.NEGINF_COLOUR),
)


def picture_kind(payload: dict[str, Any]) -> str | None:
    """ "image", "heatmap" (2-D and more), "histogram" (1-D) or None (no picture: an error,
    a scalar, nothing drawable)."""
    if payload.get("image") and not _special_counts(payload):
        return "image"  # with NaN/Inf the heatmap, where they show in their colours
    shape = payload.get("shape") or []
    if len(shape) >= 2 and payload.get("slice"):
        return "heatmap"
    if len(shape) == 1 and (payload.get("histogram") or _special_counts(payload)):
        return "histogram"
    return None


def _opaque(rgb: np.ndarray) -> np.ndarray:
    """RGB uint8 pixels with a full alpha channel."""
    alpha = np.full(rgb.shape[:-1] + (1,), 255, np.uint8)
    return np.concatenate([rgb, alpha], axis=-1)


def _rgba(colour: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(colour) if len(colour) == 4 else (*colour, 255)


def draw(payload: dict[str, Any]) -> np.ndarray | None:
    """The picture the payload calls for (see ``picture_kind``), or None."""
    kind = picture_kind(payload)
    if kind == "image":
        return image_grid(payload["image"])
    if kind == "heatmap":
        return heatmap(payload["slice"])
    if kind == "histogram":
        return histogram(payload.get("histogram"), _special_counts(payload))
    return None


# ------------------------------------------------------------------------------ heatmap


def slice_arrays(cells: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The slice's values (float32) and mask (uint8) as (height, width) arrays."""
    height, width = int(cells["height"]), int(cells["width"])
    values = np.frombuffer(base64.b64decode(cells["values"]), "<f4").reshape(height, width)
    mask_bytes = cells.get("mask")
    if mask_bytes:
        mask = np.frombuffer(base64.b64decode(mask_bytes), np.uint8).reshape(height, width)
    else:
        mask = np.zeros((height, width), np.uint8)
    return values, mask


def shrink(values: np.ndarray, mask: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """Block means so that neither side exceeds ``limit`` cells, as the payload reduces:
    the mean of a block's finite cells; a block is NaN if any cell is, else ±Inf if any."""
    rows, cols = values.shape
    fr, fc = math.ceil(rows / limit), math.ceil(cols / limit)
    if fr == 1 and fc == 1:
        return values, mask
    out_r, out_c = math.ceil(rows / fr), math.ceil(cols / fc)
    pad = ((0, out_r * fr - rows), (0, out_c * fc - cols))
    finite = np.pad(mask == 0, pad)
    padded = np.pad(np.where(mask == 0, values, 0).astype(np.float64), pad)
    blocks = (out_r, fr, out_c, fc)
    total = padded.reshape(blocks).sum(axis=(1, 3))
    count = finite.reshape(blocks).sum(axis=(1, 3))
    means = np.where(count > 0, total / np.maximum(count, 1), 0.0).astype(np.float32)
    padded_mask = np.pad(mask, pad).reshape(blocks)
    reduced = np.zeros((out_r, out_c), np.uint8)
    for code in (3, 2, 1):  # the last written wins: NaN over +Inf over -Inf
        reduced[(padded_mask == code).any(axis=(1, 3))] = code
    return means, reduced


def _cell_pixels(rows: int, cols: int) -> tuple[int, int]:
    """Pixels per cell (down, across): square cells filling ``HEATMAP_SIDE`` where the
    shape allows, a thin side stretched to ``MIN_STRIP``."""
    side = max(1, HEATMAP_SIDE // max(rows, cols))
    return max(side, math.ceil(MIN_STRIP / rows)), max(side, math.ceil(MIN_STRIP / cols))


def heatmap(cells: dict[str, Any]) -> np.ndarray:
    """The slice's cells coloured (diverging around zero if signed), NaN/±Inf in their own
    colours, with a colour bar labelled with the range on the right."""
    values, mask = shrink(*slice_arrays(cells), HEATMAP_CELLS)
    low, high = float(cells.get("min") or 0.0), float(cells.get("max") or 0.0)
    anchors, bar_low, bar_high = colour_maps.scale_of(low, high, bool(cells.get("signed")))
    rgb = colour_maps.paint_mask(colour_maps.colour(values, bar_low, bar_high, anchors), mask)
    down, across = _cell_pixels(*values.shape)
    big = _opaque(np.repeat(np.repeat(rgb, down, axis=0), across, axis=1))

    if not (mask == 0).any():  # nothing finite: a colour bar would only mislead
        canvas = np.empty((big.shape[0] + 2 * MARGIN, big.shape[1] + 2 * MARGIN, 4), np.uint8)
        canvas[:] = BACKGROUND
        canvas[MARGIN:-MARGIN, MARGIN:-MARGIN] = big
        return canvas
    labels = [number_text(bar_high), number_text(bar_low)]
    if bar_low < 0 < bar_high:
        labels.append("0")
    label_width = max(text_size(t)[0] for t in labels)
    bar_height = max(big.shape[0], 64)
    height = bar_height + 2 * MARGIN
    bar_left = MARGIN + big.shape[1] + 2 * MARGIN
    width = bar_left + COLOUR_BAR_WIDTH + MARGIN + label_width + MARGIN
    canvas = np.empty((height, width, 4), np.uint8)
    canvas[:] = BACKGROUND
    canvas[MARGIN : MARGIN + big.shape[0], MARGIN : MARGIN + big.shape[1]] = big

    # the bar: top is the high end
    ramp = np.linspace(bar_high, bar_low, bar_height)
    bar = _opaque(colour_maps.colour(ramp, bar_low, bar_high, anchors))
    canvas[MARGIN : MARGIN + bar_height, bar_left : bar_left + COLOUR_BAR_WIDTH] = bar[:, None, :]
    text_left = bar_left + COLOUR_BAR_WIDTH + MARGIN
    _, text_height = text_size("0")
    draw_text(canvas, text_left, MARGIN, labels[0], INK)
    draw_text(canvas, text_left, MARGIN + bar_height - text_height, labels[1], INK)
    if len(labels) == 3:
        zero_row = MARGIN + int(round((bar_high / (bar_high - bar_low)) * (bar_height - 1)))
        draw_text(canvas, text_left, zero_row - text_height // 2, "0", INK)
    return canvas


# ---------------------------------------------------------------------------- histogram


def _special_counts(payload: dict[str, Any]) -> list[tuple[str, int, tuple[int, int, int]]]:
    stats = payload.get("stats") or {}
    found = []
    for key, label, colour in SPECIAL_BARS:
        count = int(stats.get(key) or 0)
        if count:
            found.append((label, count, colour))
    return found


def histogram(
    hist: dict[str, Any] | None, specials: list[tuple[str, int, tuple[int, int, int]]]
) -> np.ndarray:
    """Bars of the finite values' histogram, then one bar each for the NaN, +Inf and -Inf
    counts in their colours (same count scale); the largest count labelled on the left, the
    edges' range and the special bars' names below."""
    counts = np.asarray((hist or {}).get("counts") or [], np.int64)
    edges = (hist or {}).get("edges") or []
    peak = max([int(counts.max()) if counts.size else 0] + [c for _, c, _ in specials] + [1])
    bar_width = max(1, HISTOGRAM_WIDTH // max(1, counts.size)) if counts.size else 0
    plot_width = bar_width * counts.size
    special_width = max(text_size(label)[0] for label in ("NaN", "+Inf", "-Inf")) + 2 * MARGIN

    peak_label = number_text(peak)
    left = MARGIN + text_size(peak_label)[0] + MARGIN
    _, text_height = text_size("0")
    plot_top = MARGIN
    base = plot_top + HISTOGRAM_HEIGHT  # the row under the bars
    specials_left = left + plot_width + (2 * MARGIN if specials else 0)
    width = specials_left + len(specials) * special_width + MARGIN
    width = max(width, left + 2 * MARGIN)
    height = base + 1 + MARGIN + text_height + MARGIN
    canvas = np.empty((height, width, 4), np.uint8)
    canvas[:] = BACKGROUND

    def bar(x0: int, x1: int, count: int, colour: tuple[int, ...]) -> None:
        if count <= 0:
            return
        tall = max(2, int(round(HISTOGRAM_HEIGHT * count / peak)))
        canvas[base - tall : base, x0:x1] = _rgba(colour)

    for i, count in enumerate(counts):
        x0 = left + i * bar_width
        bar(x0, x0 + max(1, bar_width - (1 if bar_width > 2 else 0)), int(count), BAR)
    x = specials_left
    for label, count, colour in specials:
        label_width = text_size(label)[0]
        bar(x + MARGIN, x + special_width - MARGIN, count, colour)
        draw_text(canvas, x + (special_width - label_width) // 2, base + 1 + MARGIN, label, INK)
        x += special_width
    canvas[base, left : left + max(plot_width, 1)] = AXIS
    canvas[plot_top:base, left - 1] = AXIS
    draw_text(canvas, MARGIN, plot_top, peak_label, INK)
    if len(edges) >= 2 and plot_width:
        low, high = number_text(float(edges[0])), number_text(float(edges[-1]))
        draw_text(canvas, left, base + 1 + MARGIN, low, INK)
        high_left = max(
            left + text_size(low)[0] + 2 * MARGIN, left + plot_width - text_size(high)[0]
        )
        draw_text(canvas, high_left, base + 1 + MARGIN, high, INK)
    return canvas


# -------------------------------------------------------------------------------- image


def image_size(image: dict[str, Any]) -> tuple[int, int]:
    """(height, width) of the payload's image grid: rows of ``columns`` tiles, the last
    row finished with transparent tiles."""
    tile_h, tile_w = (int(n) for n in image["tile"])
    columns = max(1, int(image.get("columns") or 1))
    rows = math.ceil(max(1, int(image.get("count") or 1)) / columns)
    return rows * tile_h, columns * tile_w


def image_grid(image: dict[str, Any]) -> np.ndarray:
    """The payload's RGBA grid, enlarged (nearest neighbour) when small (a 28x28 digit
    shows at 4x), with a transparent gap between the tiles of a batch."""
    height, width = image_size(image)
    grid = np.frombuffer(base64.b64decode(image["rgba"]), np.uint8).reshape(height, width, 4)
    tile_h, tile_w = (int(n) for n in image["tile"])
    rows, columns = height // tile_h, width // tile_w
    gap = TILE_GAP if rows * columns > 1 else 0
    scale = max(1, min(4, IMAGE_SIDE // max(height, width)))
    out = np.zeros(
        (rows * (tile_h * scale + gap) - gap, columns * (tile_w * scale + gap) - gap, 4), np.uint8
    )
    for r in range(rows):
        for c in range(columns):
            tile = grid[r * tile_h : (r + 1) * tile_h, c * tile_w : (c + 1) * tile_w]
            top, left = r * (tile_h * scale + gap), c * (tile_w * scale + gap)
            out[top : top + tile_h * scale, left : left + tile_w * scale] = np.repeat(
                np.repeat(tile, scale, axis=0), scale, axis=1
            )
    return out
