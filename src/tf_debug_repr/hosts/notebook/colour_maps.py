"""Colour maps for the notebook pictures, as a few anchor colours interpolated in numpy.

Sequential data gets viridis (perceptually even, readable in greyscale); data whose range
crosses zero a blue-white-red diverging map centred on zero. NaN and ±Inf cells get
colours that neither map uses.
"""

from __future__ import annotations

import numpy as np

# viridis at 0, 1/8, ..., 1 (matplotlib's table, sampled)
VIRIDIS = np.array(
    [
        (68, 1, 84),
        (72, 40, 120),
        (62, 74, 137),
        (49, 104, 142),
        (38, 130, 142),
        (31, 158, 137),
        (53, 183, 121),
        (109, 205, 89),
        (253, 231, 37),
    ],
    np.float64,
)
# ColorBrewer RdBu, reversed: negative blue, zero near white, positive red
DIVERGING = np.array(
    [(33, 102, 172), (103, 169, 207), (247, 247, 247), (239, 138, 98), (178, 24, 43)],
    np.float64,
)

NAN_COLOUR = (255, 0, 255)  # magenta
POSINF_COLOUR = (0, 255, 0)  # lime, as the VS Code viewer page (docs/tensor-viewer.md, 4)
NEGINF_COLOUR = (0, 255, 255)  # cyan, as the page
# mask codes of the payload (docs/tensor-viewer.md): 0 finite, 1 NaN, 2 +Inf, 3 -Inf
MASK_COLOURS = {1: NAN_COLOUR, 2: POSINF_COLOUR, 3: NEGINF_COLOUR}
MASK_LEGEND = (("NaN", NAN_COLOUR), ("+Inf", POSINF_COLOUR), ("-Inf", NEGINF_COLOUR))


def sample(anchors: np.ndarray, t: np.ndarray) -> np.ndarray:
    """RGB uint8 of the map at positions ``t`` in [0, 1] (clipped; NaN reads as 0)."""
    t = np.nan_to_num(np.clip(np.asarray(t, np.float64), 0.0, 1.0))
    position = t * (len(anchors) - 1)
    low = np.minimum(position.astype(np.int64), len(anchors) - 2)
    frac = (position - low)[..., None]
    rgb = anchors[low] * (1.0 - frac) + anchors[low + 1] * frac
    return np.rint(rgb).astype(np.uint8)


def scale_of(low: float, high: float, signed: bool) -> tuple[np.ndarray, float, float]:
    """The map and the value range it spans: a diverging map symmetric around zero for
    signed data, viridis over [low, high] otherwise."""
    if signed:
        reach = max(abs(low), abs(high)) or 1.0
        return DIVERGING, -reach, reach
    return VIRIDIS, low, high


def colour(values: np.ndarray, low: float, high: float, anchors: np.ndarray) -> np.ndarray:
    """RGB uint8 for ``values`` on a map spanning [low, high]; a flat range is the middle."""
    values = np.asarray(values, np.float64)
    span = high - low
    t = np.full(values.shape, 0.5) if not span > 0 else (values - low) / span
    return sample(anchors, t)


def paint_mask(rgb: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """NaN / ±Inf cells (mask codes 1..3) in their own colours, in place; returns rgb."""
    for code, special in MASK_COLOURS.items():
        rgb[mask == code] = special
    return rgb
