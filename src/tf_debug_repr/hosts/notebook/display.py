"""``%load_ext tf_debug_repr``: IPython display formatters for TensorFlow values.

A tensor or variable as a cell's result (or in JupyterLab's debugger, "render variable")
shows the plugin's one-line summary with its NaN/±Inf counts coloured as a warning, its numbers
when it is small (``small_values``), and a picture where one helps, drawn from the viewer payload
(docs/tensor-viewer.md): a heatmap of a 2-D slice, a histogram of a 1-D value, or the
image(s) it holds. The picture lives in the HTML only (no ``image/png`` copy: a saved
notebook holds it once). ``text/plain`` is the summary and the values as the Debug Console
prints them. Keras models, layers, optimizers and metrics get their summary and a table
(``keras_view``).

Registered by class name (``for_type_by_name``), so loading the extension imports neither
TensorFlow nor numpy; unloading puts back whatever printers were there before.
"""

from __future__ import annotations

import html
import math
import re
import sys
from typing import Any

from ...core import time_budget
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
MIME_TYPES = ("text/plain", "text/html")
# Up to this many elements the numbers say more than a picture (a 2x2 tensor gets its four
# numbers, not a 256-pixel heatmap); images are drawn whatever their size.
PICTURE_MIN_ELEMENTS = 64


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


def _printers() -> dict[str, dict[tuple[str, str], Any]]:
    """mime type -> {(module, class name): printer}."""
    from . import keras_view

    values = set(formatted_types())
    html_printers = {key: html_of for key in values}
    html_printers.update({key: owner_html for key in keras_view.formatted_types()})
    plain = {key: plain_printer for key in values}
    # The plugin's own answers (gradient_info(x), memory(), a gradient table): their
    # summary and rows, not "<GradientInfo object at 0x…>". IPython looks names up along
    # the MRO, so the base class covers every node.
    plain[NODE] = node_printer
    plain[NOTE] = note_printer  # a line of the plugin's (``layer_output`` with nothing kept)
    return {"text/plain": plain, "text/html": html_printers}


def register(ip: Any) -> None:
    """Install the formatters on ``ip`` (an InteractiveShell); a second call is a no-op."""
    global _saved
    if _saved is not None:
        return
    saved: dict[str, tuple[dict, dict]] = {}
    for mime, printers in _printers().items():
        names = set(printers)
        formatter = ip.display_formatter.formatters[mime]
        deferred = {key: formatter.deferred_printers.get(key, _MISSING) for key in names}
        # a class already resolved from a name would shadow ours: set it aside too
        typed = {cls: p for cls, p in formatter.type_printers.items() if _matches(cls, names)}
        for cls in typed:
            del formatter.type_printers[cls]
        for (module, name), printer in printers.items():
            formatter.for_type_by_name(module, name, printer)
        saved[mime] = (deferred, typed)
    _saved = saved


def unregister(ip: Any) -> None:
    """Remove the formatters and put back what ``register`` found."""
    global _saved
    if _saved is None:
        return
    printers = _printers()
    for mime, (deferred, typed) in _saved.items():
        names = set(printers[mime])
        formatter = ip.display_formatter.formatters[mime]
        for key, previous in deferred.items():
            formatter.deferred_printers.pop(key, None)
            if previous is not _MISSING:
                formatter.deferred_printers[key] = previous
        for cls in [c for c in formatter.type_printers if _matches(c, names)]:
            del formatter.type_printers[cls]  # ours, resolved from a name on first use
        formatter.type_printers.update(typed)
    _saved = None


# ------------------------------------------------------------------------- formatters


def _ready() -> bool:
    # Keras variables exist without TensorFlow (Keras on JAX): the views run TF ops.
    return "tensorflow" in sys.modules


def plain_text(obj: Any) -> str:
    """The summary line, then the values numpy-style (all of a small tensor, the corners of
    a big one): what the Debug Console prints."""
    from ... import views
    from .facts import unnamed

    text = unnamed(views.console_text(obj))
    return "\n".join([*layer_output_lines(obj, text.split("\n", 1)[0]), text])


NODE = ("tf_debug_repr.core.view_model", "Node")
NOTE = ("tf_debug_repr.core.view_model", "Note")
NODE_ROWS = 40  # rows printed under a node's summary


def node_text(node: Any) -> str:
    """A plugin node as the Debug Console would give it, then its rows, one a line."""
    from ... import views

    lines = [views.console_text(node).splitlines()[0]]
    rows = views.children(node)
    for child in rows[:NODE_ROWS]:
        if child.compute is not None:  # computed when asked for (a host copy): not here
            lines.append(f"  {child.name}: …")
            continue
        value = child.value
        text = getattr(value, "text", None)
        if not isinstance(text, str):
            text = views.summary(value) or _safe_repr(value)
        first = text.splitlines()[0] if text else ""
        lines.append(f"  {child.name}: {first}")
    if len(rows) > NODE_ROWS:
        lines.append(f"  … {len(rows) - NODE_ROWS} more rows")
    return "\n".join(lines)


def node_printer(obj: Any, p: Any, cycle: bool) -> None:
    try:
        with time_budget.exact():
            text = node_text(obj)
    except Exception:
        text = _safe_repr(obj)
    p.text(text)


def note_printer(obj: Any, p: Any, cycle: bool) -> None:
    p.text(str(obj))


def layer_output_lines(obj: Any, summary: str) -> list[str]:
    """What a layer's output (``layer_output(layer)``, a ``→ output`` row's value) is:
    ``hidden → output (compiled step 'one_step_on_data')``, and the counts of dead
    ReLUs, saturation and exploding values unless ``summary`` has them already; [] for
    any other value."""
    activation_views = sys.modules.get("tf_debug_repr.views.activations")
    if activation_views is None:  # nothing was handed out as a layer's output
        return []
    found = activation_views.described(obj)
    if found is None:
        return []
    title, counts = found
    return [title] + ([counts] if counts and counts not in summary else [])


def plain_printer(obj: Any, p: Any, cycle: bool) -> None:
    """IPython's pretty printer signature; never raises (the stock repr on failure).
    Inside a list or dict (the printer's stack holds the container) the summary alone."""
    try:
        if not _ready():
            text = repr(obj)
        elif len(getattr(p, "stack", ())) > 1:
            from ... import views
            from .facts import unnamed

            with time_budget.exact():  # a cell's output: one value, printed once
                text = unnamed(views.summary(obj))
        else:
            with time_budget.exact():
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


def picture_html(payload: dict[str, Any], side: int | None = None) -> str | None:
    """The payload's picture as HTML (its pixels one PNG, its labels text), or None when
    it has none; ``side``: a heatmap's longer side in pixels, at most (a small one)."""
    from . import picture_html as layout
    from . import pictures as payload_pictures

    picture = payload_pictures.draw(payload, side or payload_pictures.HEATMAP_SIDE)
    return None if picture is None else layout.html_of(picture, caption(payload))


def wants_picture(payload: dict[str, Any], numbers: Any) -> bool:
    """A picture helps for images, and for values too big to read as numbers."""
    if payload.get("image") or numbers is None:
        return True
    return math.prod(payload.get("shape") or [0]) > PICTURE_MIN_ELEMENTS


def html_of(obj: Any) -> str | None:
    """text/html: summary, NaN/±Inf warning, the numbers of a small value, what is drawn
    and the picture. None on failure (the notebook then shows text/plain)."""
    if not _ready():
        return None
    try:
        from . import small_values

        payload = build_payload(obj)
        found = small_values.host_values(obj)
        table = small_values.table_html(found[0]) if found is not None else None
        picture = None
        if not payload.get("error") and wants_picture(payload, table):
            picture = picture_html(payload)
        about = layer_output_lines(obj, str(payload.get("summary") or ""))
        return render_html(payload, picture, table, found[1] if found is not None else "", about)
    except Exception:
        return None


def owner_html(obj: Any) -> str | None:
    """text/html of a Keras model, layer, optimizer or metric; None on failure."""
    if not _ready():
        return None
    try:
        from . import keras_view

        return f'<div class="tf-debug-repr" style="{_BOX}">{keras_view.html_of(obj)}</div>'
    except Exception:
        return None


# ------------------------------------------------------------------------------- HTML

_BOX = (
    "font-family:var(--jp-code-font-family,monospace);font-size:var(--jp-code-font-size,12px);"
    "line-height:1.5"
)
# JupyterLab's theme variables (light and dark), with fallbacks for other front ends.
_WARNING = (
    "display:inline-block;padding:0 6px;border-radius:3px;"
    "background:var(--jp-error-color1,#c00);color:var(--jp-ui-inverse-font-color0,#fff);"
    "font-weight:bold"
)
_NOTE = "color:var(--jp-ui-font-color2,#888)"
_ERROR = "color:var(--jp-error-color1,#c00)"
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


def render_html(
    payload: dict[str, Any],
    picture: str | None,
    numbers: str | None = None,
    note: str = "",
    about: list[str] | None = None,
) -> str:
    """The cell's HTML: what the value is (``about``: a layer's output and its counts),
    summary, warning, error or note, numbers, caption, ``picture`` (``picture_html``'s)
    and the NaN/±Inf colours' legend. Debuggee text is escaped."""
    parts = [f'<div class="tf-debug-repr" style="{_BOX}">']
    from .facts import unnamed

    for i, line in enumerate(about or []):
        parts.append(
            f"<div>{'<b>' if i == 0 else ''}{html.escape(line)}{'</b>' if i == 0 else ''}</div>"
        )

    summary = unnamed(str(payload.get("summary") or ""))
    bad = bad_values(payload)
    marker = f"‼ {bad}"
    if bad and marker in summary:  # the summary's own warning, coloured where it stands
        before, _, after = summary.partition(marker)
        parts.append(
            f'<div>{html.escape(before)}<span style="{_WARNING}">{html.escape(marker)}</span>'
            f"{html.escape(after)}</div>"
        )
    else:
        parts.append(f"<div>{html.escape(summary)}</div>")
        if bad:
            parts.append(f'<div><span style="{_WARNING}">{html.escape(marker)}</span></div>')
    if payload.get("error"):
        error = str(payload["error"])
        # Why a value has no picture (a string tensor, an empty one) is a note; only an
        # exception the builder met ("TypeError: …") is shown as an error.
        style = _ERROR if _EXCEPTION.match(error) else _NOTE
        if not (numbers and not _EXCEPTION.match(error)):  # the numbers say it (strings)
            parts.append(f'<div style="{style}">{html.escape(error)}</div>')
    if numbers:
        if note:
            parts.append(f'<div style="{_NOTE}">{html.escape(note)}</div>')
        parts.append(f'<div style="overflow-x:auto">{numbers}</div>')
    if picture is not None:
        text = caption(payload)
        if text:
            parts.append(f'<div style="{_NOTE}">{html.escape(text)}</div>')
        parts.append(picture)
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
