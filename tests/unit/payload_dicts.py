"""Viewer payloads (docs/tensor-viewer.md, version 1) made from numpy arrays in tests, for the
parts that draw them without TensorFlow."""

from __future__ import annotations

import base64

import numpy as np


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def mask_of(cells: np.ndarray) -> np.ndarray:
    mask = np.zeros(cells.shape, np.uint8)
    mask[np.isnan(cells)] = 1
    mask[np.isposinf(cells)] = 2
    mask[np.isneginf(cells)] = 3
    return mask


def slice_dict(cells: np.ndarray, index=None, axes=(0, 1), step=(1, 1)) -> dict:
    cells = np.asarray(cells, np.float32)
    finite = cells[np.isfinite(cells)]
    low = float(finite.min()) if finite.size else 0.0
    high = float(finite.max()) if finite.size else 0.0
    height, width = cells.shape
    return {
        "axes": list(axes),
        "index": list(index) if index is not None else [None, None],
        "rows": height * step[0],
        "cols": width * step[1],
        "region": [[0, height * step[0]], [0, width * step[1]]],
        "height": height,
        "width": width,
        "step": list(step),
        "reduce": "none" if tuple(step) == (1, 1) else "mean",
        "values": _b64(np.nan_to_num(cells, nan=0, posinf=0, neginf=0).astype("<f4").tobytes()),
        "mask": _b64(mask_of(cells).tobytes()),
        "min": low,
        "max": high,
        "signed": low < 0 < high,
    }


def payload(array: np.ndarray, **slice_args) -> dict:
    """The payload of a whole numpy array (the first index on leading axes)."""
    array = np.asarray(array, np.float32)
    finite = array[np.isfinite(array)]
    counts, edges = np.histogram(finite, bins=8) if finite.size else (np.zeros(0), np.zeros(0))
    shown = array.reshape(1, -1) if array.ndim < 2 else array[(0,) * (array.ndim - 2)]
    index = [0] * (array.ndim - 2) + [None, None] if array.ndim >= 2 else [None]
    return {
        "version": 1,
        "error": None,
        "kind": "numpy",
        "summary": f"float32{list(array.shape)} test summary",
        "dtype": "float32",
        "shape": list(array.shape),
        "device": "",
        "part": None,
        "stats": {
            "n": int(array.size),
            "min": float(finite.min()) if finite.size else None,
            "max": float(finite.max()) if finite.size else None,
            "nan": int(np.isnan(array).sum()),
            "posinf": int(np.isposinf(array).sum()),
            "neginf": int(np.isneginf(array).sum()),
            "sampled": False,
        },
        "histogram": {
            "edges": edges.tolist(),
            "counts": counts.astype(int).tolist(),
            "sampled": False,
        }
        if finite.size
        else None,
        "slice": slice_dict(
            shown, index=index, axes=(max(array.ndim - 2, 0), array.ndim - 1), **slice_args
        ),
        "image": None,
    }


def image_payload(grid: np.ndarray, tile, count: int, columns: int) -> dict:
    """An image payload whose RGBA grid is ``grid`` (H, W, 4) uint8."""
    result = payload(np.zeros((2, 2)))
    result["image"] = {
        "layout": "NHWC",
        "count": count,
        "columns": columns,
        "tile": list(tile),
        "channels": 3,
        "scale": "uint8",
        "rgba": _b64(np.ascontiguousarray(grid, np.uint8).tobytes()),
    }
    return result
