"""The PNG encoder, checked by a real decoder (TensorFlow's libpng-based ``decode_png``)."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from tf_debug_repr.hosts.notebook.png import SIGNATURE, encode_png, png_size

tf = pytest.importorskip("tensorflow")


def decode(data: bytes) -> np.ndarray:
    return tf.io.decode_png(data, channels=0).numpy()


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_every_channel_count_decodes_to_the_same_pixels(channels):
    rng = np.random.default_rng(channels)
    pixels = rng.integers(0, 256, size=(7, 13, channels), dtype=np.uint8)
    data = encode_png(pixels)
    assert data.startswith(SIGNATURE)
    assert png_size(data) == (13, 7)
    np.testing.assert_array_equal(decode(data), pixels)


def test_a_2d_array_is_greyscale():
    pixels = np.arange(256, dtype=np.uint8).reshape(16, 16)
    np.testing.assert_array_equal(decode(encode_png(pixels))[:, :, 0], pixels)


def test_chunks_have_valid_crcs_and_the_idat_inflates_to_filtered_rows():
    pixels = np.full((3, 5, 3), 200, np.uint8)
    data = encode_png(pixels)
    offset, kinds = len(SIGNATURE), []
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length : offset + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IDAT":
            raw = zlib.decompress(body)
            assert len(raw) == 3 * (1 + 5 * 3) and raw[0] == 0
        kinds.append(kind)
        offset += 12 + length
    assert kinds == [b"IHDR", b"IDAT", b"IEND"]


def test_a_non_contiguous_view_encodes_what_it_shows():
    base = np.random.default_rng(0).integers(0, 256, size=(10, 10, 4), dtype=np.uint8)
    view = base[::2, 1::3, :3]
    np.testing.assert_array_equal(decode(encode_png(view)), view)


@pytest.mark.parametrize(
    "pixels",
    [np.zeros((2, 2), np.float32), np.zeros((2, 2, 5), np.uint8), np.zeros((0, 3), np.uint8)],
)
def test_wrong_input_is_refused(pixels):
    with pytest.raises((TypeError, ValueError)):
        encode_png(pixels)
