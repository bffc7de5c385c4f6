"""Viewer payloads (docs/tensor-viewer.md, version 1) made from numpy arrays in tests, for the
parts that draw them without TensorFlow.

The page's tests build the same payloads in JavaScript (vscode-ext/test/browser/fixtures.js):
both assemble every part from the contract's field lists (src/tf_debug_repr/viewer/
contract.json, through ``fit``) and encode cells with its mask codes, and
tests/unit/test_viewer_contract.py checks that the two builders make the same payload of
the same numbers."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np

from tf_debug_repr.viewer import contract

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
BINS = 8


def fit(typename: str, values: dict[str, Any], every: bool = False) -> dict[str, Any]:
    """``values`` as the contract's ``typename``, in its field order: every required field
    must be given, no field outside the contract may be; an optional one not given is None
    when ``every`` (the payload builder sends each of its top-level fields), else absent."""
    fields = contract.fields(typename)
    names = [f.rstrip("?") for f in fields]
    unknown = set(values) - set(names)
    missing = [f for f in fields if not f.endswith("?") and f not in values]
    if unknown or missing:
        raise KeyError(f"{typename}: not in the contract {unknown}, missing {missing}")
    return {n: values.get(n) for n in names if n in values or every}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def mask_of(cells: np.ndarray) -> np.ndarray:
    mask = np.full(cells.shape, contract.mask_code("finite"), np.uint8)
    mask[np.isnan(cells)] = contract.mask_code("nan")
    mask[np.isposinf(cells)] = contract.mask_code("posinf")
    mask[np.isneginf(cells)] = contract.mask_code("neginf")
    return mask


def encode_cells(cells: np.ndarray) -> dict[str, str]:
    """base64 of the cells as little-endian float32 (non-finite ones 0) and of their mask."""
    cells = np.asarray(cells, np.float32)
    values = np.where(np.isfinite(cells), cells, 0).astype("<f4")
    return {"values": _b64(values.tobytes()), "mask": _b64(mask_of(cells).tobytes())}


def slice_dict(cells: np.ndarray, index=None, axes=(0, 1), step=(1, 1)) -> dict:
    cells = np.asarray(cells, np.float32)
    finite = cells[np.isfinite(cells)]
    low = float(finite.min()) if finite.size else 0.0
    high = float(finite.max()) if finite.size else 0.0
    height, width = cells.shape
    return fit(
        "Slice",
        {
            "axes": list(axes),
            "index": list(index) if index is not None else [None, None],
            "rows": height * step[0],
            "cols": width * step[1],
            "region": [[0, height * step[0]], [0, width * step[1]]],
            "height": height,
            "width": width,
            "step": list(step),
            "reduce": "none" if tuple(step) == (1, 1) else "mean",
            **encode_cells(cells),
            "min": low,
            "max": high,
            "signed": low < 0 < high,
        },
    )


def _histogram(finite: np.ndarray) -> dict | None:
    """``BINS`` equal bins from the least finite value to the greatest, the last closed."""
    if not finite.size:
        return None
    low, high = float(finite.min()), float(finite.max())
    edges = [low + (high - low) * i / BINS for i in range(BINS + 1)]
    where = np.floor((finite.astype(np.float64) - low) / ((high - low) or 1.0) * BINS)
    counts = np.bincount(np.minimum(where.astype(np.int64), BINS - 1), minlength=BINS)
    return fit("Histogram", {"edges": edges, "counts": counts.tolist(), "sampled": False})


def payload(array: np.ndarray, **slice_args) -> dict:
    """The payload of a whole numpy array (the first index on leading axes)."""
    array = np.asarray(array, np.float32)
    finite = array[np.isfinite(array)].astype(np.float64)
    shown = array.reshape(1, -1) if array.ndim < 2 else array[(0,) * (array.ndim - 2)]
    index = [0] * (array.ndim - 2) + [None, None] if array.ndim >= 2 else [None]
    n = int(array.size)
    stats = {
        "n": n,
        "min": float(finite.min()) if finite.size else None,
        "max": float(finite.max()) if finite.size else None,
        "mean": float(finite.mean()) if finite.size else 0.0,
        "std": float(finite.std()) if finite.size else 0.0,
        "nan": int(np.isnan(array).sum()),
        "posinf": int(np.isposinf(array).sum()),
        "neginf": int(np.isneginf(array).sum()),
        "zeros": int((array == 0).sum()),
        "sampled": False,
    }
    return fit(
        "Payload",
        {
            "version": contract.contract()["version"],
            "error": None,
            "kind": "tensor",
            "summary": f"float32[{', '.join(str(d) for d in array.shape)}] n={n}",
            "dtype": "float32",
            "shape": list(array.shape),
            "device": DEVICE,
            "part": None,
            "stats": fit("Stats", stats),
            "histogram": _histogram(finite),
            "slice": slice_dict(
                shown, index=index, axes=(max(array.ndim - 2, 0), array.ndim - 1), **slice_args
            ),
            "image": None,
            "filters": None,
            "history": None,
            "bad_request": False,
        },
        every=True,
    )


def image_payload(grid: np.ndarray, tile, count: int, columns: int) -> dict:
    """An image payload whose RGBA grid is ``grid`` (H, W, 4) uint8."""
    result = payload(np.zeros((2, 2)))
    result["image"] = fit(
        "Image",
        {
            "layout": "NHWC",
            "count": count,
            "columns": columns,
            "tile": list(tile),
            "channels": 3,
            "scale": "uint8",
            "rgba": _b64(np.ascontiguousarray(grid, np.uint8).tobytes()),
        },
    )
    return result
