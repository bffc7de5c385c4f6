"""``%tf_history value``: a variable's history (docs/history.md) as a cell's output: an HTML
table (stop, step, epoch, batch, figures) and a small SVG line plot per figure, in the
theme's colours; plain text for front ends without HTML. Every piece of the debuggee's text
(the variable's name, notes) is escaped: data, never markup.

With no debugger holding the program at a stop, each ``%tf_history`` run records the value
at that cell (its stop is the cell's execution count); at a stop, it records that stop.
"""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when a history is shown: loading the extension imports no numpy
    from ...forensics import history_views

FIGURES = ("min", "max", "mean", "std", "norm", "nan", "inf")  # history_views.FIGURES
COLUMNS = ("stop", "step", "epoch", "batch", *FIGURES, "grad_norm")
PLOTTED = ("min", "max", "mean", "std", "norm", "grad_norm")
_ROWS = 200  # the last rows shown; the export has them all
_W, _H, _PAD = 180, 48, 3

_CSS = (
    "border-collapse:collapse;font-family:var(--jp-code-font-family,monospace);"
    "font-size:var(--jp-code-font-size,12px);color:var(--jp-content-font-color1,inherit)"
)
_CELL = "padding:2px 8px;border-bottom:1px solid var(--jp-border-color2,#8884);text-align:right"
_HEAD = _CELL + ";background:var(--jp-layout-color2,transparent)"
_NOTE = "opacity:0.75;font-size:90%"
_LINE = "var(--jp-brand-color1,#1976d2)"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return f"{value:.6g}"
    return str(value)


def _points(xs: list[float], ys: list[float | None]) -> list[list[tuple[float, float]]]:
    """The plot's polylines (a missing or non-finite value breaks the line)."""
    finite = [y for y in ys if y is not None and math.isfinite(y)]
    if not finite or not xs:
        return []
    lo, hi = min(finite), max(finite)
    x0, x1 = min(xs), max(xs)
    xspan, yspan = (x1 - x0) or 1.0, (hi - lo) or 1.0
    lines: list[list[tuple[float, float]]] = [[]]
    for x, y in zip(xs, ys):
        if y is None or not math.isfinite(y):
            if lines[-1]:
                lines.append([])
            continue
        px = _PAD + (x - x0) / xspan * (_W - 2 * _PAD)
        py = _H - _PAD - ((y - lo) / yspan * (_H - 2 * _PAD) if hi > lo else (_H - 2 * _PAD) / 2)
        lines[-1].append((round(px, 1), round(py, 1)))
    return [line for line in lines if line]


def plot(figure: str, xs: list[float], ys: list[float | None]) -> str:
    """A small SVG line plot of one figure over the axis, with its range as text."""
    lines = _points(xs, ys)
    finite = [y for y in ys if y is not None and math.isfinite(y)]
    shapes = []
    for line in lines:
        if len(line) == 1:
            (x, y) = line[0]
            shapes.append(f'<circle cx="{x}" cy="{y}" r="2" fill="{_LINE}"/>')
        else:
            points = " ".join(f"{x},{y}" for x, y in line)
            shapes.append(
                f'<polyline points="{points}" fill="none" stroke="{_LINE}" stroke-width="1.5"/>'
            )
    span = f"{_cell(min(finite))} … {_cell(max(finite))}" if finite else "no values"
    return (
        f'<div style="display:inline-block;margin:0 12px 6px 0">'
        f'<div>{html.escape(figure)} <span style="{_NOTE}">{html.escape(span)}</span></div>'
        f'<svg width="{_W}" height="{_H}" viewBox="0 0 {_W} {_H}" role="img" '
        f'aria-label="{html.escape(figure)}" style="border:1px solid var(--jp-border-color2,#8884)">'
        + "".join(shapes)
        + "</svg></div>"
    )


class HistoryView:
    """What ``%tf_history`` returns: shown as HTML (``_repr_html_``) or text."""

    def __init__(self, found: history_views.History) -> None:
        self.history = found

    def _rows(self) -> list[dict[str, Any]]:
        return self.history.rows()[-_ROWS:]

    def _repr_html_(self) -> str:
        found = self.history
        title = f"history of {found.name}: {found.summary()}"
        parts = [f"<div><b>{html.escape(title)}</b></div>"]
        if found.entries:
            axis, xs = found.axis()
            note = f"over {axis}s"
            parts.append(f'<div style="{_NOTE}">{html.escape(note)}</div><div>')
            for figure in PLOTTED:
                ys = found.series(figure)
                if figure == "grad_norm" and all(v is None for v in ys):
                    continue
                parts.append(plot(figure, [float(x) for x in xs], ys))
            parts.append("</div>")
            head = "".join(f'<th style="{_HEAD}">{html.escape(c)}</th>' for c in COLUMNS)
            body = "".join(
                "<tr>"
                + "".join(f'<td style="{_CELL}">{html.escape(_cell(r[c]))}</td>' for c in COLUMNS)
                + "</tr>"
                for r in self._rows()
            )
            parts.append(
                f'<table style="{_CSS}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
            )
            left_out = len(found.entries) - len(self._rows())
            if left_out:
                parts.append(
                    f'<div style="{_NOTE}">{left_out} earlier rows left out: '
                    "history(value).to_csv(path) has them all</div>"
                )
        return "".join(parts)

    def __repr__(self) -> str:
        found = self.history
        lines = [f"history of {found.name}: {found.summary()}"]
        if found.entries:
            lines.append("  ".join(COLUMNS))
            lines.extend("  ".join(_cell(r[c]) or "-" for c in COLUMNS) for r in self._rows())
        return "\n".join(lines)


def history_view(value: Any, cell: int | None, namespace: dict | None = None) -> HistoryView:
    """The view of ``value``'s history, recording it now: at this stop when a debugger
    holds the program, else at this cell (the optimizer looked for in ``namespace``)."""
    from ...core import debugger
    from ...forensics import history, history_views

    if debugger.suspension() is None and cell is not None:
        history.record_now(value, cell, namespace)
    return HistoryView(history_views.history_of(value))


def magic(ip: Any) -> Any:
    def tf_history(line: str = "") -> Any:
        expression = (line or "").strip()
        if not expression:
            raise ValueError("usage: %tf_history VALUE (a variable, or an expression giving one)")
        # the user's own expression, evaluated as the cell would
        value = eval(expression, ip.user_ns)  # noqa: S307
        return history_view(value, getattr(ip, "execution_count", None), ip.user_ns)

    return tf_history


def install(ip: Any) -> None:
    ip.register_magic_function(magic(ip), "line", "tf_history")


def uninstall(ip: Any) -> None:
    try:
        ip.magics_manager.magics["line"].pop("tf_history", None)
    except Exception:
        pass
