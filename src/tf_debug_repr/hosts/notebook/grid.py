"""Tables in the JSON that the JupyterLab Variable Inspector's grid reads: pandas'
``to_json(orient="table")`` layout (a schema with fields and a primary key, then one object
per row), written here so a TF value's grid needs neither pandas nor a full copy.

The Inspector reads the kernel's ``text/plain`` repr of the string and strips its quotes
before ``JSON.parse``: a backslash would be doubled by that repr, so no text written here
holds one (non-finite numbers are the words ``NaN``, ``+Inf``, ``-Inf``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

_SAFE = str.maketrans({"\\": "/", "'": "’", '"': "”"})


def text(value: Any) -> str:
    """A cell's text with nothing the repr round trip would mangle (no backslash, quote
    or unprintable character: repr escapes those)."""
    return "".join(c if c.isprintable() else " " for c in str(value).translate(_SAFE))


def _number(value: float, digits: int) -> Any:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return float(f"{value:.{digits}g}")  # float32 noise (0.10000000149) shown as 0.1


def _cells(array: np.ndarray) -> tuple[str, list[list[Any]]]:
    """(field type, rows of JSON-ready cells) of a 2-D numpy array."""
    kind = array.dtype.kind
    if kind == "b":
        return "boolean", array.tolist()
    if kind in "iu":
        return "integer", array.tolist()
    if kind == "f":
        digits = 17 if array.dtype.itemsize >= 8 else (8 if array.dtype.itemsize == 4 else 4)
        return "number", [[_number(v, digits) for v in row] for row in array.tolist()]
    if kind == "c":
        return "string", [[text(complex(v)) for v in row] for row in array.tolist()]
    if kind == "S" or kind == "O":
        return "string", [
            [text(v.decode("utf-8", "replace") if isinstance(v, bytes) else v)[:200] for v in row]
            for row in array.tolist()
        ]
    return "string", [[text(v) for v in row] for row in array.tolist()]


def table(index_name: str, columns: Sequence[str], rows: list[list[Any]], types: Sequence[str]):
    """The JSON text of a table: ``index_name`` heads the row numbers."""
    fields = [{"name": text(index_name), "type": "integer"}]
    fields += [{"name": text(c), "type": t} for c, t in zip(columns, types)]
    names = [f["name"] for f in fields]
    data = [
        dict(zip(names, [i, *(text(c) if isinstance(c, str) else c for c in row)]))
        for i, row in enumerate(rows)
    ]
    schema = {"fields": fields, "primaryKey": [names[0]], "pandas_version": "1.4.0"}
    return json.dumps({"schema": schema, "data": data}, ensure_ascii=False, allow_nan=False)


def array_table(index_name: str, array: np.ndarray) -> str:
    """A 2-D array as a table: columns named ``0``, ``1``, ... as pandas names them."""
    kind, rows = _cells(array)
    columns = [str(i) for i in range(array.shape[1])]
    return table(index_name, columns, rows, [kind] * len(columns))
