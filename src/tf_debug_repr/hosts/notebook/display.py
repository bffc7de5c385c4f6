"""``%load_ext tf_debug_repr``: IPython display formatters for TensorFlow values.

A tensor or variable as a cell's result (or in JupyterLab's debugger, "render variable")
shows the plugin's one-line summary, its NaN/±Inf counts as a warning, and a small picture
drawn from the viewer payload (docs/tensor-viewer.md): a heatmap of a 2-D slice, a histogram
of a 1-D value, or the image(s) it holds. ``text/plain`` is the summary and the values as the
Debug Console prints them.

Registered by class name (``for_type_by_name``), so loading the extension imports neither
TensorFlow nor numpy; unloading puts back whatever printers were there before.
"""

from __future__ import annotations

import base64
import html
import math
import re
import sys
import time
import weakref
from typing import Any

from ...core import budget
from ...core.tf_types import Kind, class_kinds

# The kinds whose values can be drawn: what the payload builder reads as one array
# (a distributed value: its first replica; indexed slices and sparse tensors: the values
# they hold; a ragged tensor: its flat values; an eager TensorArray: its elements stacked).
# The catalog's rows (``notebook=True``) say which; this copy exists because the printers
# are registered at %load_ext, before numpy may be imported (tests/unit/test_catalog.py).
VALUE_KINDS = (
    Kind.EAGER,
    Kind.VARIABLE,
    Kind.KERAS_VARIABLE,
    Kind.MIRRORED,
    Kind.SYNC_ON_READ,
    Kind.PER_REPLICA,
    Kind.DISTRIBUTED,
    Kind.INDEXED_SLICES,
    Kind.SPARSE,
    Kind.RAGGED,
    Kind.TENSOR_ARRAY,
)
# Payload bounds: cells and image bytes copied to the host (reduced on the value's device
# before that), and histogram bins. The payload gives half to the slice when it also
# draws images: 128x128 cells of 5 bytes (as many as the heatmap draws), and ~20k RGBA
# pixels of image grid.
PAYLOAD_BUDGET = 2 * 128 * 128 * 5
HISTOGRAM_BINS = 64
MIME_TYPES = ("text/plain", "text/html", "image/png")


# IPython's pretty printer stops at the first class of the MRO that defines ``__repr__``:
# these subclasses of the classes above do, so they are named too (TF 2.16-2.21).
_OWN_REPR = (
    ("tensorflow.python.ops.resource_variable_ops", "BaseResourceVariable"),
    ("tensorflow.python.ops.ref_variable", "RefVariable"),
    ("tensorflow.python.distribute.ps_values", "AggregatingVariable"),
    ("tensorflow.python.distribute.ps_values", "CachingVariable"),
    ("tensorflow.python.distribute.tpu_replicated_variable", "TPUReplicatedVariable"),
    ("tensorflow.python.keras.mixed_precision.autocast_variable", "AutoCastVariable"),
)


def formatted_types() -> list[tuple[str, str]]:
    """(module, class name) of the classes whose values get the rich display."""
    found = []
    for qualified, kind in class_kinds():
        if kind in VALUE_KINDS:
            module, _, name = qualified.rpartition(".")
            found.append((module, name))
    return found + list(_OWN_REPR)


# ------------------------------------------------------------------------ registering

_MISSING = object()
# mime type -> (previous deferred printers by name, previous printers of matching classes)
_saved: dict[str, tuple[dict, dict]] | None = None


def _matches(cls: type, names: set[tuple[str, str]]) -> bool:
    return (getattr(cls, "__module__", None), getattr(cls, "__name__", None)) in names


def register(ip: Any) -> None:
    """Install the three formatters on ``ip`` (an InteractiveShell); a second call is a no-op."""
    global _saved
    if _saved is not None:
        return
    names = set(formatted_types())
    printers = {"text/plain": plain_printer, "text/html": html_of, "image/png": png_of}
    saved: dict[str, tuple[dict, dict]] = {}
    for mime in MIME_TYPES:
        formatter = ip.display_formatter.formatters[mime]
        deferred = {key: formatter.deferred_printers.get(key, _MISSING) for key in names}
        # a class already resolved from a name would shadow ours: set it aside too
        typed = {cls: p for cls, p in formatter.type_printers.items() if _matches(cls, names)}
        for cls in typed:
            del formatter.type_printers[cls]
        for module, name in names:
            formatter.for_type_by_name(module, name, printers[mime])
        saved[mime] = (deferred, typed)
    _saved = saved


def unregister(ip: Any) -> None:
    """Remove the formatters and put back what ``register`` found."""
    global _saved
    if _saved is None:
        return
    names = set(formatted_types())
    for mime, (deferred, typed) in _saved.items():
        formatter = ip.display_formatter.formatters[mime]
        for key, previous in deferred.items():
            formatter.deferred_printers.pop(key, None)
            if previous is not _MISSING:
                formatter.deferred_printers[key] = previous
        for cls in [c for c in formatter.type_printers if _matches(c, names)]:
            del formatter.type_printers[cls]  # ours, resolved from a name on first use
        formatter.type_printers.update(typed)
    _saved = None
    _last.clear()


# ------------------------------------------------------------------------- formatters

# The HTML formatter runs just before the PNG one for the same object (IPython's order):
# it leaves its picture here so the value is not reduced twice. A weak reference: a
# front end that never asks for image/png must not keep a big tensor alive.
_last: dict[str, Any] = {}
_REUSE_SECONDS = 2.0


def _keep(obj: Any, png: bytes | None) -> None:
    _last.clear()
    try:
        _last.update(obj=weakref.ref(obj), at=time.monotonic(), png=png)
    except TypeError:  # not weakly referable: the PNG formatter draws again
        pass


def _ready() -> bool:
    # Keras variables exist without TensorFlow (Keras on JAX): the views run TF ops.
    return "tensorflow" in sys.modules


def plain_text(obj: Any) -> str:
    """The summary line, then the values numpy-style (all of a small tensor, the corners of
    a big one): what the Debug Console prints."""
    from ... import views

    return views.console_text(obj)


def plain_printer(obj: Any, p: Any, cycle: bool) -> None:
    """IPython's pretty printer signature; never raises (the stock repr on failure).
    Inside a list or dict (the printer's stack holds the container) the summary alone."""
    try:
        if not _ready():
            text = repr(obj)
        elif len(getattr(p, "stack", ())) > 1:
            from ... import views

            with budget.exact():  # a cell's output: one value, printed once
                text = views.summary(obj)
        else:
            with budget.exact():
                text = plain_text(obj)
    except Exception:
        text = object.__repr__(obj) if cycle else _safe_repr(obj)
    p.text(text)


def _safe_repr(obj: Any) -> str:
    try:
        return repr(obj)
    except Exception:
        return object.__repr__(obj)


def build_payload(obj: Any) -> dict[str, Any]:
    from ...viewer import payload as viewer_payload

    return viewer_payload.build(obj, budget=PAYLOAD_BUDGET, bins=HISTOGRAM_BINS)


def picture_png(payload: dict[str, Any]) -> bytes | None:
    """The payload's picture as a PNG file, or None when it has none."""
    from . import pictures as payload_pictures
    from .png import encode_png

    pixels = payload_pictures.draw(payload)
    return None if pixels is None else encode_png(pixels)


def html_of(obj: Any) -> str | None:
    """text/html: summary, NaN/±Inf warning, what is drawn, the picture. None on failure
    (the notebook then shows text/plain)."""
    if not _ready():
        return None
    try:
        payload = build_payload(obj)
        png = picture_png(payload) if not payload.get("error") else None
        _keep(obj, png)
        return render_html(payload, png)
    except Exception:
        return None


def png_of(obj: Any) -> str | None:
    """image/png (base64, as IPython expects a str): the same picture alone."""
    if not _ready():
        return None
    try:
        kept = _last.get("obj")
        if kept is not None and kept() is obj and time.monotonic() - _last["at"] < _REUSE_SECONDS:
            png = _last["png"]
        else:
            payload = build_payload(obj)
            png = picture_png(payload) if not payload.get("error") else None
        _last.clear()
        return None if png is None else base64.b64encode(png).decode("ascii")
    except Exception:
        _last.clear()
        return None


# ------------------------------------------------------------------------------- HTML

_BOX = (
    "font-family:var(--jp-code-font-family,monospace);font-size:var(--jp-code-font-size,12px);"
    "line-height:1.5"
)
_WARNING = "display:inline-block;padding:0 6px;border-radius:3px;background:#c00;color:#fff;font-weight:bold"
_NOTE = "opacity:0.75"
_EXCEPTION = re.compile(r"[\w.]*(Error|Exception|Warning)\b")


def bad_values(payload: dict[str, Any]) -> str:
    """``NaN×3 +Inf×1``: the counts of non-finite values, empty when there are none."""
    stats = payload.get("stats") or {}
    approx = "~" if stats.get("sampled") else ""
    parts = []
    for key, label in (("nan", "NaN"), ("posinf", "+Inf"), ("neginf", "-Inf")):
        n = int(stats.get(key) or 0)
        if n:
            parts.append(f"{label}×{approx}{n:,}")
    return " ".join(parts)


def slice_caption(payload: dict[str, Any]) -> str:
    """What the heatmap shows: ``x[0, :, :] of float32[3, 4, 5] (rows: axis 1, columns:
    axis 2), each cell the mean of 2×2``."""
    from . import pictures as payload_pictures

    shape = payload.get("shape") or []
    cells = payload.get("slice") or {}
    axes = cells.get("axes") or [len(shape) - 2, len(shape) - 1]
    index = cells.get("index") or [None] * len(shape)
    where = ", ".join(":" if i is None else str(i) for i in index)
    dims = ", ".join(str(d) for d in shape)
    text = f"x[{where}] of {payload.get('dtype', '')}[{dims}]"
    if len(shape) > 2:
        text += f" (rows: axis {axes[0]}, columns: axis {axes[1]})"
    step = list(cells.get("step") or [1, 1])
    height, width = int(cells.get("height") or 0), int(cells.get("width") or 0)
    if height and width:
        step[0] *= math.ceil(height / payload_pictures.HEATMAP_CELLS)
        step[1] *= math.ceil(width / payload_pictures.HEATMAP_CELLS)
    if step != [1, 1]:
        text += f", each cell the mean of {step[0]}×{step[1]}"
    return text


def caption(payload: dict[str, Any]) -> str:
    """One line under the summary saying what the picture is."""
    from . import pictures as payload_pictures

    kind = payload_pictures.picture_kind(payload)
    part = f", {payload['part']} of the complex values" if payload.get("part") else ""
    if kind == "heatmap":
        return "heatmap of " + slice_caption(payload) + part
    if kind == "histogram":
        hist = payload.get("histogram") or {}
        bins = len(hist.get("counts") or [])
        sampled = " (sampled)" if hist.get("sampled") else ""
        return f"histogram of the finite values, {bins} bins{sampled}{part}"
    if kind == "image":
        image = payload["image"]
        count = int(image.get("count") or 1)
        shape = payload.get("shape") or []
        batch = int(shape[0]) if str(image.get("layout", "")).startswith("N") and shape else 1
        what = f"{count} images" if count > 1 else "image"
        if batch > count:
            what = f"the first {count} of {batch} images"
        return f"{what} ({image.get('layout')}, {image.get('scale')})"
    return ""


def render_html(payload: dict[str, Any], png: bytes | None) -> str:
    parts = [f'<div class="tf-debug-repr" style="{_BOX}">']
    summary = payload.get("summary") or ""
    parts.append(f"<div>{html.escape(summary)}</div>")
    bad = bad_values(payload)
    if bad:
        parts.append(f'<div><span style="{_WARNING}">‼ {html.escape(bad)}</span></div>')
    if payload.get("error"):
        error = str(payload["error"])
        # Why a value has no picture (a string tensor, an empty one) is a note; only an
        # exception the builder met ("TypeError: …") is shown as an error.
        style = "color:#c00" if _EXCEPTION.match(error) else _NOTE
        parts.append(f'<div style="{style}">{html.escape(error)}</div>')
    if png is not None:
        text = caption(payload)
        if text:
            parts.append(f'<div style="{_NOTE}">{html.escape(text)}</div>')
        data = base64.b64encode(png).decode("ascii")
        parts.append(
            f'<img src="data:image/png;base64,{data}" alt="{html.escape(text)}"'
            ' style="image-rendering:pixelated;max-width:100%"/>'
        )
        if bad:
            from .colour_maps import MASK_LEGEND

            legend = " ".join(
                f'<span style="display:inline-block;width:10px;height:10px;'
                f'background:rgb{colour};border:1px solid #888"></span> {label}'
                for label, colour in MASK_LEGEND
            )
            parts.append(f'<div style="{_NOTE}">{legend}</div>')
    parts.append("</div>")
    return "".join(parts)
