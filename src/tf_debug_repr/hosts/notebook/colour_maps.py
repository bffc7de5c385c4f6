"""Colour maps for the notebook pictures, as a few anchor colours interpolated in numpy.

Sequential data gets viridis (perceptually even, readable in greyscale); data whose range
crosses zero a blue-white-red diverging map centred on zero. NaN and ±Inf cells get
colours that neither map uses.
"""

from __future__ import annotations

import numpy as np

from ...viewer import contract

# The page's own stops (viewer/contract.json), so a value gets the same colour in the
# notebook and in VS Code (tests/unit/test_viewer_contract.py paints both).
VIRIDIS = np.array(contract.colour_stops("viridis"), np.float64)
# ColorBrewer RdBu, reversed: negative blue, zero near white, positive red
DIVERGING = np.array(contract.colour_stops("diverging"), np.float64)

NAN_COLOUR = contract.special_colour("nan")  # magenta
POSINF_COLOUR = contract.special_colour("posinf")  # lime
NEGINF_COLOUR = contract.special_colour("neginf")  # cyan
# mask codes of the payload (docs/tensor-viewer.md): 0 finite, 1 NaN, 2 +Inf, 3 -Inf
MASK_COLOURS = {
    contract.mask_code("nan"): NAN_COLOUR,
    contract.mask_code("posinf"): POSINF_COLOUR,
    contract.mask_code("neginf"): NEGINF_COLOUR,
}
MASK_LEGEND = (("NaN", NAN_COLOUR), ("+Inf", POSINF_COLOUR), ("-Inf", NEGINF_COLOUR))


def sample(anchors: np.ndarray, t: np.ndarray) -> np.ndarray:
    """RGB uint8 of the map at positions ``t`` in [0, 1] (clipped; NaN reads as 0)."""
    t = np.nan_to_num(np.clip(np.asarray(t, np.float64), 0.0, 1.0))
    position = t * (len(anchors) - 1)
    low = np.minimum(position.astype(np.int64), len(anchors) - 2)
    frac = (position - low)[..., None]
    rgb = anchors[low] + (anchors[low + 1] - anchors[low]) * frac
    # halves round up, as the page's Math.round does (np.rint would round them to even)
    return np.floor(rgb + 0.5).astype(np.uint8)


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
