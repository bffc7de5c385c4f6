"""The numbers of a small value as an HTML table, for a notebook cell's output: a picture
says little about a [3, 5] weight, its fifteen numbers say it all.

The values come from the viewer's source (a variable read harmlessly, the values a sparse
or ragged tensor holds), copied to the host only when there are at most ``MAX_ELEMENTS``.
Every cell's text is escaped: a string tensor's bytes are data, never markup.
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np

MAX_ELEMENTS = 300  # "a few hundred": a table still read at a glance
ROW_WIDTH = 10  # a 1-D value wraps after this many numbers
MAX_TEXT = 40  # characters of one string element shown

_TABLE = (
    "border-collapse:collapse;margin:2px 0;font-family:var(--jp-code-font-family,monospace);"
    "font-size:var(--jp-code-font-size,12px)"
)
_CELL = "padding:0 6px;text-align:right;border:1px solid var(--jp-border-color2,#ddd)"
_HEAD = (
    "padding:0 6px;text-align:right;color:var(--jp-ui-font-color2,#888);font-weight:normal;"
    "border:1px solid var(--jp-border-color2,#ddd)"
)
_BAD = "color:var(--jp-error-color1,#c00);font-weight:bold"


def host_values(obj: Any, limit: int = MAX_ELEMENTS) -> tuple[np.ndarray, str] | None:
    """(the values as numpy, which part of the value they are) when the value has at most
    ``limit`` elements; None otherwise, or when it has no values here (symbolic)."""
    from ...core.guards import harmless
    from ...viewer import payload as viewer_payload

    try:
        source = viewer_payload.source_of(obj)
    except Exception:
        return None
    values = source.values
    try:
        count = math.prod(int(d) for d in values.shape)
    except Exception:
        return None
    if count > limit or count == 0 or len(values.shape) == 0:
        return None
    if isinstance(values, np.ndarray):
        return values, source.note
    with harmless(str(values.device) or None):
        return np.asarray(values.numpy()), source.note


def _text(value: Any, dtype: np.dtype) -> tuple[str, bool]:
    """(a cell's text, whether it is NaN or an infinity)."""
    kind = dtype.kind
    if kind == "f":
        number = float(value)
        if math.isnan(number):
            return "NaN", True
        if math.isinf(number):
            return ("+Inf" if number > 0 else "-Inf"), True
        text = f"{number:.6g}" if dtype.itemsize >= 4 else f"{number:.4g}"
        return ("0" if text == "-0" else text), False
    if kind == "c":
        return f"{complex(value):.4g}", False
    if kind in "SO":
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        text = text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"
        return repr(text), False
    return str(value.item() if hasattr(value, "item") else value), False


def float_texts(array: np.ndarray) -> np.ndarray | None:
    """Each element's text by the summary's rule (its inline values: numpy's, precision 4,
    one format for the whole array), so the table under a summary reads ``8.6173`` where
    the summary does; None when numpy's text cannot be split back into elements."""
    from ...core import formatting as fmt

    flat = array.ravel()
    text = np.array2string(
        flat,
        separator=", ",
        precision=4,
        threshold=flat.size + 1,
        max_line_width=10**9,
        formatter=fmt.array_formatter(flat),
    )
    parts = [p.strip() for p in " ".join(text.split())[1:-1].split(", ")]
    if len(parts) != flat.size:
        return None
    cleaned = []
    for part in parts:
        part = part[:-1] if part.endswith(".") else part  # "1." reads 1
        cleaned.append("0" if part == "-0" else part)
    return np.array(cleaned, dtype=object).reshape(array.shape)


def _cell(value: Any, dtype: np.dtype, shown: str | None = None) -> str:
    text, bad = _text(value, dtype)
    if shown is not None and not bad:
        text = shown
    style = f"{_CELL};{_BAD}" if bad else _CELL
    return f'<td style="{style}">{html.escape(text)}</td>'


def table_html(array: np.ndarray) -> str:
    """Rows of a table: a 2-D value as it is; more axes: one row per index of the leading
    axes (``0, 1`` heads the row of ``x[0, 1, :]``); a 1-D value wrapped every
    ``ROW_WIDTH`` numbers (a row headed ``10`` starts at ``x[10]``)."""
    texts = float_texts(array) if array.dtype.kind == "f" and array.size else None
    if array.ndim == 1:
        columns = min(ROW_WIDTH, array.shape[0])
        pad = (-array.shape[0]) % columns
        heads = [f"+{i}" if array.shape[0] > columns else str(i) for i in range(columns)]
        starts = range(0, array.shape[0], columns)
        rows = [
            (str(start), array[start : start + columns], _part(texts, start, start + columns))
            for start in starts
        ]
    else:
        lead = array.shape[:-1]
        flat = array.reshape(-1, array.shape[-1])
        heads = [str(i) for i in range(array.shape[-1])]
        flat_texts = None if texts is None else texts.reshape(-1, array.shape[-1])
        rows = [
            (", ".join(map(str, np.unravel_index(i, lead))), flat[i], _row(flat_texts, i))
            for i in range(len(flat))
        ]
        pad = 0
    out = [f'<table style="{_TABLE}"><tr><th style="{_HEAD}"></th>']
    out += [f'<th style="{_HEAD}">{h}</th>' for h in heads]
    out.append("</tr>")
    for head, values, shown in rows:
        out.append(f'<tr><th style="{_HEAD}">{html.escape(head)}</th>')
        out += [
            _cell(v, array.dtype, None if shown is None else shown[i]) for i, v in enumerate(values)
        ]
        if len(values) < len(heads):
            out.append(f'<td colspan="{len(heads) - len(values)}"></td>' if pad else "")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _part(texts: np.ndarray | None, start: int, stop: int) -> Any:
    return None if texts is None else texts[start:stop]


def _row(texts: np.ndarray | None, i: int) -> Any:
    return None if texts is None else texts[i]
