"""Image mode of the tensor viewer: a value shaped like an image (HWC, CHW) or a batch of
them (NHWC, NCHW) as one RGBA grid of at most ``MAX_IMAGES`` tiles, downsampled on the
value's device to a byte budget; only the grid's bytes come to the host.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

from .slices import BAND_ELEMENTS, choose_step

MAX_IMAGES = 64
MIN_SIDE = 2  # a "picture" one pixel wide is a vector, not an image
# The slice an image-shaped value shows by default: its height and width axes.
SPATIAL_AXES = {"HWC": [0, 1], "CHW": [1, 2], "NHWC": [1, 2], "NCHW": [2, 3]}


def layout_of(shape: tuple[int, ...], category: str) -> str | None:
    """``"HWC"``, ``"CHW"``, ``"NHWC"``, ``"NCHW"`` or None (channels last wins a tie)."""
    if category not in ("int", "float"):
        return None

    def sides(h: int, w: int) -> bool:
        return h >= MIN_SIDE and w >= MIN_SIDE

    if len(shape) == 3:
        if shape[2] in (1, 3, 4) and sides(shape[0], shape[1]):
            return "HWC"
        if shape[0] in (1, 3) and sides(shape[1], shape[2]):
            return "CHW"
    if len(shape) == 4 and shape[0] > 0:
        if shape[3] in (1, 3, 4) and sides(shape[1], shape[2]):
            return "NHWC"
        if shape[1] in (1, 3) and sides(shape[2], shape[3]):
            return "NCHW"
    return None


# A 3-D value is images only when it looks like one: its shape alone ([3, 4, 5], three
# 40x50 matrices of noise) says little. Smaller sides are a stack of matrices; and in a
# picture neighbouring pixels are alike, where in noise they differ by about as much as
# any two values (mean |difference| / standard deviation: ~1.13 for Gaussian or uniform
# noise, 0.1-0.5 for photos, digits, masks). uint8 values are light levels: always images.
MIN_PICTURE_SIDE = 8
NOISE_RATIO = 0.9
_PROBE_SIDE = 64  # the top-left corner looked at, copied to the host (<= 64x64x4 values)


def looks_like_pictures(tensor: Any, shape: tuple[int, ...], layout: str, dtype: str) -> bool:
    """Is a value ``layout`` fits (call under ``guards.harmless``) images rather than a
    stack of matrices or noise? Only 3-D values are questioned (4-D batches keep their
    shape's word); uint8 ones are always images."""
    if len(shape) != 3 or dtype == "uint8":
        return True
    height, width = (shape[1], shape[2]) if layout == "CHW" else (shape[0], shape[1])
    if min(height, width) < MIN_PICTURE_SIDE:
        return False
    corner = (
        tensor[:, :_PROBE_SIDE, :_PROBE_SIDE]
        if layout == "CHW"
        else tensor[:_PROBE_SIDE, :_PROBE_SIDE, :]
    )
    values = np.asarray(corner.numpy() if hasattr(corner, "numpy") else corner, np.float64)
    if layout == "CHW":
        values = np.moveaxis(values, 0, -1)
    return _smoothness(values) < NOISE_RATIO


def _smoothness(values: np.ndarray) -> float:
    """Mean |difference| of neighbouring finite pixels over the finite values' standard
    deviation, of (height, width, channels) values; 0 for a flat or nearly empty image."""
    finite = np.isfinite(values)
    if finite.sum() < 4:
        return 0.0
    spread = float(values[finite].std())
    if not spread > 0:
        return 0.0
    steps = []
    for axis in (0, 1):
        a, b = np.swapaxes(values, 0, axis)[1:], np.swapaxes(values, 0, axis)[:-1]
        both = np.isfinite(a) & np.isfinite(b)
        if both.any():
            steps.append(np.abs(a - b)[both])
    if not steps:
        return 0.0
    return float(np.concatenate(steps).mean()) / spread


# uint8 values all below this are class ids (a segmentation mask, a trimap), not light
# levels: drawn as is they are black, so they are stretched, as ImageOps.autocontrast is
# used on them (keras-io's oxford_pets_image_segmentation).
LABEL_LEVELS = 64
# A conv kernel is HWIO, [k, k, in, out]: square, small leading sides. Read as a batch it
# becomes k "images" of its in x out (or k x in) slices, which no one means.
KERNEL_SIDE = 7


def filter_bank(shape: tuple[int, ...], name: str | None) -> bool:
    """Is a value of ``shape`` (named ``name`` when it is a variable) a convolution kernel
    rather than images: a 4-D ``[k, k, in, out]`` with k <= 7, or a variable named
    ``kernel`` (Keras's name for it: also ``depthwise_kernel``, Conv1D's ``[k, in, out]``)."""
    if len(shape) == 4 and shape[0] == shape[1] <= KERNEL_SIDE:
        return True
    last = (name or "").split(":")[0].rsplit("/", 1)[-1]
    return last == "kernel" or last.endswith("_kernel")


def scale_for(dtype: str, category: str, low: float | None, high: float | None) -> str:
    """How the grid maps values to light levels, from the whole value's finite range:

    - ``"uint8"``: bytes as they are, unless they are class ids (``LABEL_LEVELS``);
    - ``"pixels"``: floats in [0, 255] reaching past ``LABEL_LEVELS``, as they are: what
      ``image_dataset_from_directory`` and resizing give (float32 light levels), which a
      stretch over min..max would brighten or darken batch by batch;
    - ``"unit"``: floats in [0, 1], x255;
    - ``"normalised"``: anything else, stretched over the finite range of the images shown.
    """
    if low is None or high is None:
        return "normalised"
    if dtype == "uint8":
        return "uint8" if high >= LABEL_LEVELS else "normalised"
    if category == "float" and low >= 0:
        if high <= 1:
            return "unit"
        if LABEL_LEVELS <= high <= 255:
            return "pixels"
    return "normalised"


def image(tensor: Any, layout: str, scale: str, budget: int, with_values: bool = False) -> dict:
    """The grid (call under ``guards.harmless``), with ``scale`` from ``scale_for``; with
    ``with_values`` also the values its pixels stand for (the VS Code page's hover), in half
    the budget."""
    import tensorflow as tf

    # A host array stays one: each chunk of images is converted as it is cut.
    batch = tensor if layout.startswith("N") else tensor[None]
    count = min(int(batch.shape[0]), MAX_IMAGES)
    dims = [int(d) for d in batch.shape[1:]]
    height, width, channels = dims[1:] + dims[:1] if layout.endswith("CHW") else dims
    # Images a few at a time, so that the device holds at most BAND_ELEMENTS more.
    chunk = max(1, BAND_ELEMENTS // (height * width * channels))

    def images(a: int) -> tuple[Any, Any]:
        part = tf.cast(batch[a : min(a + chunk, count)], tf.float32)
        if layout.endswith("CHW"):
            part = tf.transpose(part, [0, 2, 3, 1])
        return part, tf.math.is_finite(part)

    low, factor = 0.0, 1.0
    if scale == "unit":
        factor = 255.0
    elif scale not in ("uint8", "pixels"):
        scale, lows, highs = "normalised", [], []
        for a in range(0, count, chunk):
            part, finite = images(a)
            lows.append(float(tf.reduce_min(tf.where(finite, part, np.inf))))
            highs.append(float(tf.reduce_max(tf.where(finite, part, -np.inf))))
        if math.isfinite(min(lows)):
            low = min(lows)
            factor = 255.0 / max(max(highs) - low, 1e-30)
    columns = math.ceil(math.sqrt(count))
    grid_rows = math.ceil(count / columns)
    # With values: half the budget for the light (RGBA bytes), half for the values the page's
    # hover reads (float32 a channel, at their own, coarser step where they would not fit).
    light = budget // 2 if with_values else budget
    per_tile = max(1, light // 4 // (columns * grid_rows))
    sr, sc = choose_step(height, width, per_tile)
    tile_h, tile_w = -(-height // sr), -(-width // sc)
    vr, vc = choose_step(
        height, width, max(1, budget // 2 // (4 * channels) // (columns * grid_rows))
    )
    value_h, value_w = -(-height // vr), -(-width // vc)
    tiles, values = [], []
    for a in range(0, count, chunk):
        part, finite = images(a)
        # What each value cell stands for: a block's mean (NaN if any NaN), or the value.
        if with_values:
            values.append(
                part if (vr, vc) == (1, 1) else _block_mean(tf, part, vr, vc, value_h, value_w)
            )
        part = tf.where(finite, (part - low) * factor, 0.0)  # NaN/Inf pixels: black
        if (sr, sc) != (1, 1):
            part = _block_mean(tf, part, sr, sc, tile_h, tile_w)
        tiles.append(tf.cast(tf.clip_by_value(tf.round(part), 0.0, 255.0), tf.uint8))
    pixels = tf.concat(tiles, 0)
    if channels == 1:
        pixels = tf.concat([pixels] * 3, axis=-1)
    if channels in (1, 3):
        pixels = tf.concat(
            [pixels, tf.fill(tf.shape(pixels[..., :1]), tf.constant(255, tf.uint8))], -1
        )
    empty = grid_rows * columns - count  # transparent tiles finish the last grid row
    pixels = tf.pad(pixels, [[0, empty], [0, 0], [0, 0], [0, 0]])
    # The tiles into rows in numpy: the grid is already small (``budget``), and TF's uint8
    # transpose on oneDNN CPUs writes an "E0000 ... DT_UINT8" error line into the cell.
    grid = tf.reshape(pixels, [grid_rows, columns, tile_h, tile_w, 4]).numpy()
    rgba = np.ascontiguousarray(
        grid.transpose(0, 2, 1, 3, 4).reshape(grid_rows * tile_h, columns * tile_w, 4)
    )
    result = {
        "layout": layout,
        "count": count,
        "columns": columns,
        "tile": [tile_h, tile_w],
        "channels": channels,
        "scale": scale,
        "rgba": base64.b64encode(rgba.tobytes()).decode("ascii"),
        "step": [sr, sc],
    }
    if with_values:
        drawn = np.ascontiguousarray(tf.concat(values, 0).numpy(), "<f4")  # [n, h, w, channels]
        result["values"] = {
            "tile": [value_h, value_w],
            "step": [vr, vc],
            "data": base64.b64encode(drawn.tobytes()).decode("ascii"),
        }
    return result


def _block_mean(tf: Any, batch: Any, sr: int, sc: int, tile_h: int, tile_w: int) -> Any:
    """Each ``sr`` x ``sc`` block of every image and channel as its mean."""
    n, height, width, channels = (int(d) for d in batch.shape)
    padded = tf.pad(batch, [[0, 0], [0, tile_h * sr - height], [0, tile_w * sc - width], [0, 0]])
    sums = tf.reduce_sum(tf.reshape(padded, [n, tile_h, sr, tile_w, sc, channels]), axis=[2, 4])
    rows = np.minimum(sr, height - np.arange(tile_h) * sr)
    cols = np.minimum(sc, width - np.arange(tile_w) * sc)
    counts = np.outer(rows, cols).astype(np.float32)[None, :, :, None]
    return sums / tf.constant(counts)
