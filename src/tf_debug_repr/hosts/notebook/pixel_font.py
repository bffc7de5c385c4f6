"""A 5-pixel-high font (3 wide, N 4) for the numbers on the notebook pictures (colour bar,
histogram axes), so a PNG on its own says what its colours and bars mean, with no font file
or library."""

from __future__ import annotations

import numpy as np

_ROWS = {
    "0": ("111", "101", "101", "101", "111"),
    "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"),
    "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"),
    "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"),
    "7": ("111", "001", "001", "001", "001"),
    "8": ("111", "101", "111", "101", "111"),
    "9": ("111", "101", "111", "001", "111"),
    ".": ("000", "000", "000", "000", "010"),
    "-": ("000", "000", "111", "000", "000"),
    "+": ("000", "010", "111", "010", "000"),
    "e": ("010", "101", "111", "100", "011"),
    "N": ("1001", "1101", "1011", "1001", "1001"),
    "a": ("000", "011", "101", "101", "011"),
    "I": ("111", "010", "010", "010", "111"),
    "n": ("000", "110", "101", "101", "101"),
    "f": ("011", "010", "111", "010", "010"),
    " ": ("000", "000", "000", "000", "000"),
}
GLYPHS = {ch: np.array([[c == "1" for c in row] for row in rows]) for ch, rows in _ROWS.items()}
GLYPH_WIDTH, GLYPH_HEIGHT = 3, 5


def text_size(text: str, scale: int = 2) -> tuple[int, int]:
    """(width, height) in pixels of ``text`` drawn at ``scale``: one blank column between glyphs."""
    if not text:
        return 0, 0
    columns = sum(_glyph(ch).shape[1] + 1 for ch in text) - 1
    return columns * scale, GLYPH_HEIGHT * scale


def _glyph(ch: str) -> np.ndarray:
    return GLYPHS.get(ch, GLYPHS[" "])


def draw_text(
    rgb: np.ndarray, x: int, y: int, text: str, colour: tuple[int, ...], scale: int = 2
) -> None:
    """Draw ``text`` with its top left corner at (x, y), clipped to the picture.
    Characters the font lacks are drawn as blanks."""
    height, width = rgb.shape[:2]
    left = x
    for ch in text:
        glyph = _glyph(ch)
        big = np.kron(glyph, np.ones((scale, scale), bool))
        top = y
        # clip the glyph to the picture
        r0, c0 = max(0, -top), max(0, -left)
        r1 = min(big.shape[0], height - top)
        c1 = min(big.shape[1], width - left)
        if r1 > r0 and c1 > c0:
            region = rgb[top + r0 : top + r1, left + c0 : left + c1]
            region[big[r0:r1, c0:c1]] = colour
        left += (glyph.shape[1] + 1) * scale


def number_text(value: float) -> str:
    """A short label for a finite number: 3 significant figures (``-0.25``, ``1.5e+03``)."""
    text = f"{value:.3g}"
    return "0" if text == "-0" else text
