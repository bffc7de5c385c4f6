"""``%tf_table`` as the notebook shows it: an HTML table in the theme's colours (JupyterLab's
CSS variables), sortable by clicking a column head (a few lines of script in trusted
notebooks; ``%tf_table --sort bytes`` sorts in the kernel), and a plain-text table for
front ends without HTML. ``%tf_table live`` keeps one table current: a ``post_run_cell``
hook updates its display after each of the user's cells (no thread, no polling); ``%tf_table
off`` stops.

"The user's cells" are the executions a front end keeps in the history (``store_history``).
The Variable Inspector's query after each cell, its grid and delete requests, and other
extensions' probes are executions too, and fire ``post_run_cell``, but they are sent with
``store_history=False`` (or ``silent``): the table neither refreshes nor forgets its previous
look for them, so Δ counts what changed between two of the user's cells and a query costs
one attribute read.
"""

from __future__ import annotations

import html
import math
import shlex
import time
from typing import Any

from . import namespace_table

COLUMNS = (  # (head, Row attribute sorted by)
    ("name", "name"),
    ("kind", "kind"),
    ("dtype", "dtype"),
    ("shape", "shape"),
    ("device", "device"),
    ("bytes", "nbytes"),
    ("range", "low"),
    ("NaN/Inf", "bad"),
    ("‖∇‖", "gradient"),
    ("Δ since previous cell", "delta"),
)
_SORTS = {head.split()[0].lower(): attr for head, attr in COLUMNS} | {
    "gradient": "gradient",
    "delta": "delta",
    "nan": "bad",
}
_NUMERIC = {"nbytes", "low", "gradient"}

_CSS = (
    "border-collapse:collapse;font-family:var(--jp-code-font-family,monospace);"
    "font-size:var(--jp-code-font-size,12px);color:var(--jp-content-font-color1,inherit)"
)
_CELL = "padding:2px 8px;border-bottom:1px solid var(--jp-border-color2,#8884);text-align:left"
_HEAD = (
    _CELL + ";cursor:pointer;background:var(--jp-layout-color2,transparent);user-select:none;"
    "white-space:nowrap"
)
_WARN = "color:var(--jp-error-color1,#c00);font-weight:bold"
_NOTE = "opacity:0.75;font-size:90%"
# Sorts the rows by a column's data-v (numbers as numbers); a second click reverses.
_SORT_SCRIPT = (
    "var t=this.closest('table'),b=t.tBodies[0],i=this.cellIndex,"
    "d=this.dataset.d=this.dataset.d==='1'?'-1':'1',r=Array.from(b.rows);"
    "r.sort(function(x,y){var p=x.cells[i].dataset.v,q=y.cells[i].dataset.v,"
    "m=parseFloat(p),n=parseFloat(q);if(!isNaN(m)&&!isNaN(n))return (m-n)*d;"
    "return p<q?-d:p>q?d:0});r.forEach(function(e){b.appendChild(e)})"
)


def _number(value: float | None) -> str:
    from ...core import formatting as fmt

    return "" if value is None else fmt.number(value)


def cells(row: namespace_table.Row) -> list[tuple[str, str]]:
    """(shown text, sort key) per column."""
    from ...core import formatting as fmt

    size = "?" if row.nbytes is None else fmt.bytes_text(row.nbytes)
    span = "" if row.low is None else f"[{_number(row.low)}, {_number(row.high)}]"
    gradient = ""
    if row.gradient is not None:
        gradient = _number(row.gradient) + (f" @{row.gradient_text}" if row.gradient_text else "")
    keys = (
        row.name,
        row.kind,
        row.dtype,
        row.shape,
        row.device,
        "" if row.nbytes is None else str(row.nbytes),
        "" if row.low is None else repr(row.low),
        row.bad,
        "" if row.gradient is None else repr(row.gradient),
        row.delta,
    )
    shown = (row.name, row.kind, row.dtype, row.shape, row.device, size, span, row.bad)
    return list(zip((*shown, gradient, row.delta), keys, strict=True))


def render_html(rows: list[namespace_table.Row], left_out: int, note: str) -> str:
    script = html.escape(_SORT_SCRIPT, quote=True)
    head = "".join(
        f'<th style="{_HEAD}" onclick="{script}" title="sort">{html.escape(h)}</th>'
        for h, _ in COLUMNS
    )
    body = []
    for row in rows:
        tds = []
        for i, (text, key) in enumerate(cells(row)):
            style = _CELL + (";" + _WARN if i == 7 and text else "")
            tds.append(
                f'<td style="{style}" data-v="{html.escape(key, quote=True)}">'
                f"{html.escape(text)}</td>"
            )
        body.append("<tr>" + "".join(tds) + "</tr>")
    notes = []
    if not rows:
        notes.append("no TensorFlow values in the namespace yet")
    if left_out:
        notes.append(f"{left_out} more not listed")
    if note:
        notes.append(note)
    foot = "".join(f'<div style="{_NOTE}">{html.escape(n)}</div>' for n in notes)
    return (
        # a narrow output area scrolls the table sideways: no head is cut or wrapped
        f'<div class="tf-debug-repr-table"><div style="overflow-x:auto;max-width:100%">'
        f'<table style="{_CSS}"><thead><tr>{head}</tr>'
        f"</thead><tbody>{''.join(body)}</tbody></table></div>{foot}</div>"
    )


def render_text(rows: list[namespace_table.Row], left_out: int, note: str) -> str:
    grid = [[h for h, _ in COLUMNS]] + [[text for text, _ in cells(r)] for r in rows]
    widths = [max(len(line[i]) for line in grid) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in grid
    ]
    if not rows:
        lines.append("no TensorFlow values in the namespace yet")
    if left_out:
        lines.append(f"{left_out} more not listed")
    if note:
        lines.append(note)
    return "\n".join(lines)


def sort_rows(rows: list[namespace_table.Row], column: str | None) -> list[namespace_table.Row]:
    """Rows sorted by a column (numbers largest first), names order otherwise."""
    attr = _SORTS.get((column or "").lower())
    if attr is None:
        return rows

    def key(row: namespace_table.Row) -> Any:
        value = getattr(row, attr)
        if attr in _NUMERIC:
            return -math.inf if value is None else value
        return str(value)

    return sorted(rows, key=key, reverse=attr in _NUMERIC)


class View:
    """One rendering of the table: IPython shows it through its ``_repr_*_`` methods."""

    def __init__(self, rows: list[namespace_table.Row], left_out: int, note: str) -> None:
        self.rows, self.left_out, self.note = rows, left_out, note

    def _repr_html_(self) -> str:
        return render_html(self.rows, self.left_out, self.note)

    def __repr__(self) -> str:
        return render_text(self.rows, self.left_out, self.note)


# ------------------------------------------------------------------------------ magic


_TRAINABLE = {"variable", "keras variable"}


def gradient_note(rows: list[namespace_table.Row]) -> str:
    """One line saying how to fill an empty ‖∇‖ column; empty when a row has a gradient
    or no row could have one."""
    import sys

    if any(r.gradient is not None for r in rows):
        return ""
    if not any(r.kind in _TRAINABLE or r.shape.endswith("params") for r in rows):
        return ""  # tensors only: no gradient belongs to them
    capture = sys.modules.get("tf_debug_repr.gradients.capture")
    if capture is not None and capture.enabled():
        return (
            "‖∇‖ shows gradients computed since %load_ext tf_debug_repr: "
            "run the training step again to fill it"
        )
    if capture is not None and capture.mode() == "off":
        return (
            "‖∇‖ is empty: gradient capture is off (TF_DEBUG_REPR_GRADIENTS=0 or "
            "set_gradient_capture(False)); tf_debug_repr.set_gradient_capture(True) turns it on"
        )
    return "‖∇‖ is empty: run %load_ext tf_debug_repr, then the training step"


def users_cell(result: Any) -> bool:
    """Whether ``post_run_cell``'s result is a cell the user ran: one the front end keeps in
    the history. (No ``info``, an IPython older than 7: every cell counts.)"""
    info = getattr(result, "info", None)
    if info is None:
        return True
    return bool(getattr(info, "store_history", True)) and not getattr(info, "silent", False)


class Magic:
    """The ``%tf_table`` line magic and its live display."""

    def __init__(self, ip: Any) -> None:
        self.ip = ip
        self.table = namespace_table.Table()
        self.sort: str | None = None
        self.handle: Any = None
        self.last_seconds = 0.0
        self.skip = False  # the cell that started a live table has just looked

    def view(self) -> View:
        from IPython.core.magics.namespace import NamespaceMagics

        started = time.perf_counter()
        magics = NamespaceMagics(shell=self.ip)
        rows, left_out = self.table.look(self.ip.user_ns, list(magics.who_ls()))
        self.last_seconds = time.perf_counter() - started
        return View(sort_rows(rows, self.sort), left_out, gradient_note(rows))

    def __call__(self, line: str = "") -> Any:
        words = shlex.split(line or "")
        if "--sort" in words:
            at = words.index("--sort")
            self.sort = words[at + 1] if at + 1 < len(words) else None
            del words[at : at + 2]
        if words[:1] == ["off"]:
            self.stop()
            return None
        if words[:1] == ["live"]:
            from IPython.display import display

            self.stop()
            self.handle = display(self.view(), display_id=True)
            self.skip = True
            self.ip.events.register("post_run_cell", self.refresh)
            return None
        if words:
            raise ValueError("usage: %tf_table [live | off] [--sort COLUMN]")
        return self.view()

    def refresh(self, result: Any = None) -> None:
        """post_run_cell: the live table's display, current again after a user's cell."""
        if not users_cell(result):
            return  # an Inspector query, a probe: Δ stays between the user's cells
        if self.handle is None or self.skip:
            self.skip = False
            return
        try:
            self.handle.update(self.view())
        except Exception:
            pass  # the user's cell ran; a failed refresh leaves the last table

    def stop(self) -> None:
        if self.handle is not None:
            try:
                self.ip.events.unregister("post_run_cell", self.refresh)
            except ValueError:
                pass
        self.handle = None


_magic: Magic | None = None


def install(ip: Any) -> None:
    global _magic
    if _magic is None:
        _magic = Magic(ip)
    ip.register_magic_function(_magic, "line", "tf_table")


def uninstall(ip: Any) -> None:
    global _magic
    if _magic is not None:
        _magic.stop()
    _magic = None
    try:
        ip.magics_manager.magics["line"].pop("tf_table", None)
    except Exception:
        pass
