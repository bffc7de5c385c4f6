"""A PNG encoder in numpy and the standard library (zlib, struct): no imaging library.

Only what the notebook pictures need: 8-bit greyscale, RGB or RGBA, not interlaced, every
row with filter 0 (the pictures are small; zlib does the rest).
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# PNG colour types by channel count: greyscale, grey + alpha, RGB, RGBA.
_COLOUR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}
MAX_SIDE = 1 << 14  # far above any picture drawn here; a guard against a wrong shape


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(data, zlib.crc32(kind)) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def encode_png(pixels: np.ndarray, compress_level: int = 6) -> bytes:
    """The PNG file of ``pixels``: uint8 of shape (H, W) or (H, W, C), C in 1..4."""
    array = np.asarray(pixels)
    if array.dtype != np.uint8:
        raise TypeError(f"pixels must be uint8, not {array.dtype}")
    if array.ndim == 2:
        array = array[:, :, None]
    if array.ndim != 3 or array.shape[2] not in _COLOUR_TYPES:
        raise ValueError(f"pixels must be (H, W) or (H, W, 1..4), not {array.shape}")
    height, width, channels = array.shape
    if not (0 < height <= MAX_SIDE and 0 < width <= MAX_SIDE):
        raise ValueError(f"picture size {width}x{height} out of range")
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOUR_TYPES[channels], 0, 0, 0)
    rows = np.empty((height, 1 + width * channels), np.uint8)
    rows[:, 0] = 0  # filter type None on every row
    rows[:, 1:] = np.ascontiguousarray(array).reshape(height, width * channels)
    data = zlib.compress(rows.tobytes(), compress_level)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's header."""
    if data[:8] != SIGNATURE or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return struct.unpack(">II", data[16:24])
