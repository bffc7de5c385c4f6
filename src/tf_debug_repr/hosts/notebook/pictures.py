"""The pixels of a viewer payload's picture (docs/tensor-viewer.md), as RGBA uint8 arrays
drawn in numpy: the heatmap's cells, the histogram's bars, the image grid. Only what needs
pixels is pixels; the words that label them (the colour bar's range, the histogram's counts
and edges, NaN/±Inf) are returned as text, which ``picture_html`` lays out as HTML beside
the picture, where it follows the notebook's theme, stays sharp and can be selected and
read aloud.

Works on the payload dict only (already small and on the host), so it knows nothing of
TensorFlow; ``png.encode_png`` turns the pixels into a file.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from . import colour_maps

HEATMAP_SIDE = 256  # pixels of the heatmap's longer side, at most
# Cells along a side, at most: 2x2 pixels each at full size, so a noisy 128x128 slice
# stays a ~60 KB PNG (zlib finds the repeated rows).
HEATMAP_CELLS = 128
MIN_STRIP = 64  # pixels a thin heatmap ([1600, 10], [2, 1000]) still gets across
HISTOGRAM_WIDTH = 256
HISTOGRAM_HEIGHT = 96
IMAGE_SIDE = 256  # an image grid is enlarged up to this, never beyond 4x
TILE_GAP = 2  # transparent pixels between the images of a batch
BACKGROUND = (0, 0, 0, 0)  # transparent: the theme's background shows
BAR = (70, 130, 180, 255)
SPECIAL_BARS = (
    ("nan", "NaN", colour_maps.NAN_COLOUR),
    ("posinf", "+Inf", colour_maps.POSINF_COLOUR),
    ("neginf", "-Inf", colour_maps.NEGINF_COLOUR),
)


@dataclass(frozen=True)
class Scale:
    """A heatmap's colour bar: the map's anchor colours from ``low`` to ``high`` (evenly
    spaced, interpolated linearly in RGB, as a CSS gradient draws them), its end labels,
    and where zero sits (0 at the top, 1 at the bottom) when the range crosses it."""

    anchors: tuple[tuple[int, int, int], ...]
    low: str
    high: str
    zero: float | None


@dataclass(frozen=True)
class Heatmap:
    pixels: np.ndarray  # the cells, RGBA
    scale: Scale | None  # None when nothing is finite (a colour bar would only mislead)


@dataclass(frozen=True)
class Special:
    """A bar for the NaN, +Inf or -Inf count, on the finite bars' count scale."""

    label: str
    count: int
    colour: tuple[int, int, int]
    height: int  # pixels, of HISTOGRAM_HEIGHT


@dataclass(frozen=True)
class Histogram:
    pixels: np.ndarray | None  # the finite values' bars, RGBA; None when there are none
    peak: str  # the largest count, the height of the plot
    low: str  # the first edge and the last, under the bars ("" without bars)
    high: str
    specials: tuple[Special, ...]


@dataclass(frozen=True)
class Image:
    pixels: np.ndarray  # the payload's grid, enlarged, RGBA


Picture = Union[Heatmap, Histogram, Image]  # runtime alias: no `X | Y` on Python 3.9


def number_text(value: float) -> str:
    """A short label for a finite number: 3 significant figures (``-0.25``, ``1.5e+03``)."""
    text = f"{value:.3g}"
    return "0" if text == "-0" else text


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


def draw(payload: dict[str, Any], side: int = HEATMAP_SIDE) -> Picture | None:
    """The picture the payload calls for (see ``picture_kind``), or None; a heatmap's
    longer side at most ``side`` pixels where its cells allow (a small picture: less)."""
    kind = picture_kind(payload)
    if kind == "image":
        return Image(image_grid(payload["image"]))
    if kind == "heatmap":
        return heatmap(payload["slice"], side)
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


def _cell_pixels(rows: int, cols: int, longest: int = HEATMAP_SIDE) -> tuple[int, int]:
    """Pixels per cell (down, across): square cells filling ``longest`` where the shape
    allows, a thin side stretched to ``MIN_STRIP`` (in proportion for a small picture)."""
    side = max(1, longest // max(rows, cols))
    strip = MIN_STRIP * longest // HEATMAP_SIDE
    return max(side, math.ceil(strip / rows)), max(side, math.ceil(strip / cols))


def heatmap(cells: dict[str, Any], side: int = HEATMAP_SIDE) -> Heatmap:
    """The slice's cells coloured (diverging around zero if signed), NaN/±Inf in their own
    colours, and the colour bar's scale (None when no cell is finite)."""
    values, mask = shrink(*slice_arrays(cells), HEATMAP_CELLS)
    low, high = float(cells.get("min") or 0.0), float(cells.get("max") or 0.0)
    anchors, bar_low, bar_high = colour_maps.scale_of(low, high, bool(cells.get("signed")))
    rgb = colour_maps.paint_mask(colour_maps.colour(values, bar_low, bar_high, anchors), mask)
    down, across = _cell_pixels(values.shape[0], values.shape[1], side)
    pixels = _opaque(np.repeat(np.repeat(rgb, down, axis=0), across, axis=1))
    if not (mask == 0).any():
        return Heatmap(pixels, None)
    zero = bar_high / (bar_high - bar_low) if bar_low < 0 < bar_high else None
    stops = tuple(tuple(int(c) for c in np.floor(a + 0.5)) for a in anchors)
    scale = Scale(stops, number_text(bar_low), number_text(bar_high), zero)  # type: ignore[arg-type]
    return Heatmap(pixels, scale)


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
) -> Histogram:
    """Bars of the finite values' histogram, and one bar each for the NaN, +Inf and -Inf
    counts in their colours (on the same count scale); the largest count and the edges'
    range as text."""
    counts = np.asarray((hist or {}).get("counts") or [], np.int64)
    edges = (hist or {}).get("edges") or []
    peak = max([int(counts.max()) if counts.size else 0] + [c for _, c, _ in specials] + [1])

    def tall(count: int) -> int:
        return 0 if count <= 0 else max(2, int(round(HISTOGRAM_HEIGHT * count / peak)))

    pixels = None
    if counts.size:
        bar_width = max(1, HISTOGRAM_WIDTH // counts.size)
        drawn = max(1, bar_width - (1 if bar_width > 2 else 0))  # a gap between wide bars
        pixels = np.zeros((HISTOGRAM_HEIGHT, bar_width * counts.size, 4), np.uint8)
        pixels[:] = BACKGROUND
        for i, count in enumerate(counts):
            if count > 0:
                x0 = i * bar_width
                pixels[HISTOGRAM_HEIGHT - tall(int(count)) :, x0 : x0 + drawn] = BAR
    low = high = ""
    if len(edges) >= 2 and pixels is not None:
        low, high = number_text(float(edges[0])), number_text(float(edges[-1]))
    bars = tuple(Special(label, count, colour, tall(count)) for label, count, colour in specials)
    return Histogram(pixels, f"{peak:,}", low, high, bars)


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
