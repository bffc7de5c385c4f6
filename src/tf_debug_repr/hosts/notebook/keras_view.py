"""Keras models, layers, optimizers and metrics as a cell's output: the plugin's summary
line and a table (a model's layers; a layer's weights; an optimizer's variables), in place
of ``<Sequential name=sequential, built=True>``.

Figures come from shapes and dtypes (``facts``) and the views' one-line summaries; no
weight is copied to the host. Tables are bounded (``MAX_ROWS``) and every text escaped.
"""

from __future__ import annotations

import html
from typing import Any

from ...core.tf_types import Kind, kind_of
from . import facts

MAX_ROWS = 200
KINDS = (Kind.KERAS_LAYER, Kind.OPTIMIZER, Kind.METRIC)
_TABLE = "border-collapse:collapse;margin:2px 0"
_CELL = "padding:0 8px;text-align:left;border-bottom:1px solid var(--jp-border-color2,#ddd)"
_NUMBER = _CELL.replace("text-align:left", "text-align:right")
_HEAD = _CELL + ";color:var(--jp-ui-font-color2,#888);font-weight:normal"
_NOTE = "color:var(--jp-ui-font-color2,#888)"


def formatted_types() -> list[tuple[str, str]]:
    """(module, class name) of the Keras classes whose values get this display."""
    from ...core.tf_types import class_kinds

    found = []
    for qualified, kind in class_kinds():
        if kind in KINDS:
            module, _, name = qualified.rpartition(".")
            found.append((module, name))
    return found


def _bytes_text(size: int | None) -> str:
    from ...core import formatting as fmt

    return "?" if size is None else fmt.bytes_text(size)


def _summary(obj: Any) -> str:
    from ... import views

    return str(views.summary(obj) or "")


def _row(cells: list[tuple[str, bool]]) -> str:
    return (
        "<tr>"
        + "".join(
            f'<td style="{_NUMBER if number else _CELL}">{html.escape(text)}</td>'
            for text, number in cells
        )
        + "</tr>"
    )


def _table(heads: list[str], rows: list[list[tuple[str, bool]]], total: int) -> str:
    out = [f'<table style="{_TABLE}"><tr>']
    out += [f'<th style="{_HEAD}">{html.escape(h)}</th>' for h in heads]
    out.append("</tr>")
    out += [_row(r) for r in rows[:MAX_ROWS]]
    out.append("</table>")
    if total > MAX_ROWS:
        out.append(f'<div style="{_NOTE}">the first {MAX_ROWS} of {total:,}</div>')
    return "".join(out)


def _weights(owner: Any) -> str:
    from ...views import variables as variable_views

    variables = facts.variables_of(owner)
    rows = []
    for var in variables[:MAX_ROWS]:
        shape = facts.dims(var)
        rows.append(
            [
                (variable_views.label(var) or type(var).__name__, False),
                (facts.dtype_name(var), False),
                ("?" if shape is None else str(shape), False),
                (_bytes_text(facts.value_bytes(var)), True),
                (_summary(var), False),
            ]
        )
    return _table(["weight", "dtype", "shape", "bytes", "summary"], rows, len(variables))


def _layers(model: Any) -> str:
    layers = list(getattr(model, "layers", None) or [])
    rows = []
    for layer in layers[:MAX_ROWS]:
        rows.append(
            [
                (str(getattr(layer, "name", "")), False),
                (type(layer).__name__, False),
                (f"{facts.parameters(layer):,}", True),
                (_bytes_text(facts.value_bytes(layer, Kind.KERAS_LAYER)), True),
                (_summary(layer), False),
            ]
        )
    return _table(["layer", "class", "parameters", "bytes", "summary"], rows, len(layers))


def html_of(obj: Any) -> str:
    """The summary line, then the table that fits the object."""
    kind = kind_of(obj)
    parts = [f"<div>{html.escape(_summary(obj))}</div>"]
    if kind is Kind.KERAS_LAYER and getattr(obj, "layers", None):
        parts.append(_layers(obj))
    elif kind in (Kind.KERAS_LAYER, Kind.OPTIMIZER, Kind.METRIC) and facts.variables_of(obj):
        parts.append(_weights(obj))
    return "".join(parts)
