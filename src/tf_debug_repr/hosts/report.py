"""``tf_debug_repr.report()``: the paused state as a report to paste (a bug report, a chat).

The TF values of a frame (its locals, then its module's globals that no local hides), each
as the Variables pane shows it (``views.summary``, with its gradient and ``Δ`` marks), with
its shape, dtype, device, NaN/Inf counts and the first bad element's index, its gradient
(``views/gradients.py``), what changed since the last stop (``forensics/change_views.py``), and
each Keras model's layers with their parameter counts. As Markdown (the default) or JSON.

Every fact comes from the views, under their guards: no tape records a read, no op joins a
traced graph, a property of the program's is read bounded in time. The report is bounded:
at most ``MAX_VALUES`` values in detail, at most ``limit`` characters, and the values left
out are named and counted. Debuggee text (names, summaries holding a layer's or variable's
name, strings) is escaped: it is never Markdown or HTML markup.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from types import FrameType, FunctionType, ModuleType
from typing import Any

from ..core import bounded, expressions
from ..core import formatting as fmt
from ..core.guards import remote_device
from ..core.stats import first_bad_index
from ..core.tf_types import Kind, kind_of
from ..core.view_model import error_note
from ..forensics import change_views
from ..views import dispatch
from ..views import gradients as gradient_views
from ..views import models as model_views
from ..views import tensors as tensor_views
from ..views import variables as variable_views

MAX_VALUES = 100  # values reported in detail; the rest are named and counted
MAX_LAYERS = 60  # layers listed per model
LIMIT = 60_000  # characters of Markdown (or JSON) at most, by default
SECONDS = 10.0  # past this, the values not yet read are left out (and said)
_SCAN = 20_000  # names of a frame looked at, whatever it holds
_NAME_CHARS = 200  # a name longer than this (a dict's key) is clipped
_LEFT_OUT_NAMED = 20  # names of left-out values written out
_MODELS = (Kind.KERAS_LAYER, Kind.TF_MODULE)


# --------------------------------------------------------------------------- escaping

# Characters that mean something inside a line of Markdown (CommonMark and GitHub's tables,
# strikethrough, maths) written with a backslash; ``&``, ``<`` and ``>`` as entities (no HTML
# gets through). Brackets stay as they are (shapes read ``[64, 10]``): a link needs ``](``,
# which is broken below, or a definition at the start of a line, and no debuggee text starts
# one (line breaks become spaces).
_MARKDOWN = set("\\`*_|~$")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def markdown_text(text: Any) -> str:
    """Debuggee text as Markdown that shows exactly that text: one line, markup escaped."""
    plain = expressions.plain_str(text)
    if plain is None:
        plain = str.__str__(str(type(text).__name__))
    out = []
    for char in plain:
        if char in _ENTITIES:
            out.append(_ENTITIES[char])
        elif char in _MARKDOWN:
            out.append("\\" + char)
        elif char in "\r\n\t" or ord(char) < 32 or char in "\u2028\u2029\x7f":
            out.append(" ")
        else:
            out.append(char)
    # GitHub links bare URLs: ``http://`` and ``www.`` broken so they stay text
    text = "".join(out).replace("](", "]\\(")
    return text.replace("://", ":\\/\\/").replace("www.", "www\\.")


# --------------------------------------------------------------------------- the facts


@dataclass
class Layer:
    name: str
    type: str
    params: int | None


@dataclass
class Gradient:
    """The latest gradient of a variable (a model's weight, under its path)."""

    variable: str
    norm: float | None
    summary: str


@dataclass
class Entry:
    """One TF value of the frame, as the report says it."""

    name: str
    kind: str
    summary: str
    shape: str = ""
    dtype: str = ""
    device: str = ""
    nan: int | None = None
    posinf: int | None = None
    neginf: int | None = None
    first_bad: list[int] | None = None
    bad_text: str = ""  # the views' own warning (``‼ NaN×3 +Inf×1``, ``~`` when sampled)
    gradients: list[Gradient] = field(default_factory=list)
    change: str = ""
    params: int | None = None
    layers: list[Layer] = field(default_factory=list)
    layers_left_out: int = 0


@dataclass
class Report:
    where: str
    values: list[Entry]
    found: int  # TF values found in the frame (and containers holding them)
    left_out: list[str]  # names of the values not reported in detail
    why_left_out: str = ""
    cut: int = 0  # rows cut by the size limit


def _text(fn: Any, *args: Any) -> str:
    try:
        return str.__str__(str(fn(*args)))
    except Exception as exc:
        return error_note(exc).text


def _attempt(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception:
        return None


def _device(value: Any) -> str:
    device = getattr(value, "device", None)
    if device is None and getattr(value, "_value", None) is not None:  # a Keras 3 variable
        device = getattr(value._value, "device", None)
    return fmt.device_text(device) if isinstance(device, str) else ""


def _bad_values(entry: Entry, value: Any) -> None:
    """NaN/±Inf counts and the first bad element's index, from the figures the summary
    line already computed (cached per tensor) and the views' own first-index search."""
    tensor = dispatch.values_of(value)
    if tensor is None or not tensor_views.has_values(tensor):
        return
    stats = tensor_views.summary_stats(tensor)
    if stats.category not in ("float", "complex"):
        return
    entry.nan, entry.posinf, entry.neginf = stats.nan, stats.posinf, stats.neginf
    entry.bad_text = fmt.bad_values_text(stats)
    if stats.bad:
        source = tensor_views.host_array(tensor) if tensor_views.host_sliced(tensor) else tensor
        index = first_bad_index(source)
        entry.first_bad = None if index is None else list(index)


def _layers_of(model: Any) -> list:
    return list(getattr(model, "layers", None) or [])


def _model(entry: Entry, value: Any) -> None:
    entry.params = _attempt(model_views.param_count, value)
    if kind_of(value) is not Kind.KERAS_LAYER:
        return
    try:
        layers = bounded.call(_layers_of, value, what="reading .layers")
    except Exception:
        layers = []
    for layer in layers[:MAX_LAYERS]:
        entry.layers.append(
            Layer(
                name=_text(getattr, layer, "name"),
                type=type(layer).__name__,
                params=_attempt(model_views.param_count, layer),
            )
        )
    entry.layers_left_out = max(0, len(layers) - MAX_LAYERS)


def _gradient(entry: Entry, name: str, variable: Any) -> None:
    info = _attempt(gradient_views.gradient_info, variable)
    if info is None or len(entry.gradients) >= MAX_LAYERS:
        return
    norm = getattr(info, "norm", None)
    entry.gradients.append(
        Gradient(
            variable=name,
            norm=float(norm) if isinstance(norm, (int, float)) else None,
            summary=_text(info.summary),
        )
    )


def _weights(model: Any) -> list:
    return list(getattr(model, "trainable_weights", None) or [])


def _model_gradients(entry: Entry, name: str, model: Any) -> None:
    """Each trainable weight's gradient, named by the weight's path."""
    try:
        weights = bounded.call(_weights, model, what="reading .trainable_weights")
    except Exception:
        return
    for i, weight in enumerate(weights):
        path = _text(variable_views.label, weight)
        _gradient(entry, f"{name}.trainable_weights[{i}] ({path})", weight)


def _entry(name: str, value: Any, kind: Kind | None) -> Entry:
    if kind is None:  # a container of TF values: its brief line (``[float32[3], …]``)
        text = _text(dispatch.container_summary, value)
        return Entry(name, type(value).__name__, text)
    entry = Entry(name, kind.value, _text(dispatch.summary, value))
    if kind in _MODELS:
        _model(entry, value)
        if kind is Kind.KERAS_LAYER:
            _model_gradients(entry, name, value)
    else:
        entry.shape = _text(lambda: fmt.shape_text(value.shape)) if hasattr(value, "shape") else ""
        entry.dtype = _text(variable_views.dtype_name, value) if hasattr(value, "dtype") else ""
        entry.device = _text(_device, value)
        try:
            device = remote_device(value)  # a worker's value: bounded, as the views read it
            if device is None:
                _bad_values(entry, value)
            else:
                bounded.on_device(device, _bad_values, entry, value)
        except Exception:  # the summary line says what failed; the counts stay unknown
            pass
    _gradient(entry, name, value)
    # What changed since the last stop, and a snapshot for the next one (as the Watch pane
    # takes one of what it shows): a model's weights, a variable.
    if kind is Kind.KERAS_LAYER:
        change = _attempt(change_views.weight_changes, value, True)
    else:
        change = _attempt(change_views.change_since_last_stop, value)
        if kind in (Kind.VARIABLE, Kind.KERAS_VARIABLE):
            _attempt(dispatch.note_looked_at, value)
    if change is not None:
        entry.change = _text(change.summary)
    return entry


_SKIPPED = (ModuleType, type, FunctionType, str, bytes, int, float, complex, bool)


def _candidates(names: list[tuple[Any, Any]]) -> list[tuple[str, Any, Kind | None]]:
    """The TF values among ``names`` (and lists, tuples and dicts holding them)."""
    found = []
    for key, value in names[:_SCAN]:
        name = expressions.plain_str(key)
        if name is None or name.startswith("__") or isinstance(value, _SKIPPED):
            continue
        name = fmt.clip(name, _NAME_CHARS)
        kind = kind_of(value)
        if kind is None:
            if type(value) not in (list, tuple, dict):
                continue
            try:
                if dispatch.container_summary(value) is None:
                    continue
            except Exception:
                continue
        found.append((name, value, kind))
    return found


def _names(frame: FrameType) -> list[tuple[Any, Any]]:
    """Locals, then the module's globals that no local hides. A module's private names and
    IPython's history (a notebook's ``_``, ``_3``, ``Out``) are no state to report."""
    local_names = frame.f_locals
    module = frame.f_globals
    shell = "get_ipython" in module

    def public(name: Any) -> bool:
        if not isinstance(name, str):
            return True
        return not name.startswith("_") and not (shell and name in ("In", "Out"))

    if local_names is module or frame.f_code.co_name == "<module>":
        return [(n, v) for n, v in local_names.items() if public(n)]
    names = list(local_names.items())
    names += [(n, v) for n, v in module.items() if n not in local_names and public(n)]
    return names


def _where(frame: FrameType) -> str:
    code = frame.f_code
    return f"{code.co_name}() line {frame.f_lineno} of {code.co_filename}"


def collect(names: list[tuple[Any, Any]], where: str, seconds: float = SECONDS) -> Report:
    candidates = _candidates(names)
    deadline = time.perf_counter() + seconds
    values: list[Entry] = []
    left_out: list[str] = []
    why = ""
    for name, value, kind in candidates:
        if len(values) >= MAX_VALUES:
            why = why or f"only the first {MAX_VALUES} values are reported in detail"
            left_out.append(name)
            continue
        if time.perf_counter() > deadline:
            why = why or f"the report's {seconds:g} s were spent"
            left_out.append(name)
            continue
        values.append(_entry(name, value, kind))
    return Report(where, values, len(candidates), left_out, why)


# --------------------------------------------------------------------------- Markdown


def _cell(text: str) -> str:
    return markdown_text(text) if text else "–"


def _bad_text(entry: Entry) -> str:
    if entry.nan is None:
        return "–"
    if not entry.bad_text:
        return "none"
    if entry.first_bad is None:
        return entry.bad_text
    return f"{entry.bad_text} first at [{', '.join(str(i) for i in entry.first_bad)}]"


def _norm(value: float | None) -> str:
    if value is None:
        return "–"
    return fmt.number(value) if math.isfinite(value) else f"{fmt.WARNING} {value}"


class _Writer:
    """Lines up to a limit of characters; what did not fit is counted."""

    def __init__(self, limit: int) -> None:
        self.lines: list[str] = []
        self.size = 0
        self.limit = limit
        self.cut = 0

    def add(self, line: str) -> bool:
        if self.cut or self.size + len(line) + 1 > self.limit:
            self.cut += 1
            return False
        self.lines.append(line)
        self.size += len(line) + 1
        return True


def markdown(report: Report, limit: int = LIMIT) -> str:
    # The closing lines (what was left out) are kept room for: the limit is for the rest.
    w = _Writer(max(1_000, limit - 2_000))
    w.add(f"## TensorFlow state at {markdown_text(report.where)}")
    w.add("")
    shown = len(report.values)
    w.add(f"{fmt.count(report.found)} TF values in the frame (locals, then globals).")
    w.add("")
    w.add("| name | value | shape | dtype | device | NaN/Inf |")
    w.add("|---|---|---|---|---|---|")
    for e in report.values:
        w.add(
            f"| {_cell(e.name)} | {_cell(e.summary)} | {_cell(e.shape)} | {_cell(e.dtype)} "
            f"| {_cell(e.device)} | {_bad_text(e)} |"
        )
    gradients = [g for e in report.values for g in e.gradients]
    if gradients:
        w.add("")
        w.add("### Gradients")
        w.add("")
        w.add("| variable | ‖g‖ | gradient |")
        w.add("|---|---|---|")
        for g in gradients:
            w.add(f"| {_cell(g.variable)} | {_norm(g.norm)} | {_cell(g.summary)} |")
    changed = [e for e in report.values if e.change]
    if changed:
        w.add("")
        w.add("### Δ since the last stop")
        w.add("")
        w.add("| name | change |")
        w.add("|---|---|")
        for e in changed:
            w.add(f"| {_cell(e.name)} | {_cell(e.change)} |")
    for e in report.values:
        if not e.layers:
            continue
        params = "" if e.params is None else f": {fmt.count(e.params)} params"
        w.add("")
        w.add(f"### Model {markdown_text(e.name)}{params}")
        w.add("")
        w.add("| layer | type | params |")
        w.add("|---|---|---|")
        for layer in e.layers:
            count = "?" if layer.params is None else fmt.count(layer.params)
            w.add(f"| {_cell(layer.name)} | {_cell(layer.type)} | {count} |")
        if e.layers_left_out:
            w.add(f"| … {fmt.count(e.layers_left_out)} more layers | | |")
    lines = w.lines
    tail = _left_out_lines(report, shown, w.cut)
    return "\n".join(lines + tail) + "\n"


def _left_out_lines(report: Report, shown: int, cut: int) -> list[str]:
    lines: list[str] = []
    if report.left_out:
        named = ", ".join(markdown_text(n) for n in report.left_out[:_LEFT_OUT_NAMED])
        more = len(report.left_out) - _LEFT_OUT_NAMED
        if more > 0:
            named += f", … {fmt.count(more)} more"
        lines += [
            "",
            f"**Left out:** {fmt.count(len(report.left_out))} of {fmt.count(report.found)} "
            f"TF values ({markdown_text(report.why_left_out)}): {named}.",
        ]
    if cut:
        lines += [
            "",
            f"**Cut:** {fmt.count(cut)} more lines past the report's size limit "
            f"({fmt.count(shown)} values were read; "
            "`tf_debug_repr.report(limit=...)` for more).",
        ]
    return lines


# --------------------------------------------------------------------------- JSON


def as_json(report: Report, limit: int = LIMIT) -> str:
    """The report as JSON within ``limit`` characters: the last values go first (their
    names join ``left_out``), then names past the first ones (``left_out_count`` counts
    them all)."""
    data: dict[str, Any] = asdict(report)
    data["left_out_count"] = len(report.left_out)
    data["left_out"] = data["left_out"][:_JSON_NAMED]
    text = json.dumps(data, ensure_ascii=False)
    values = data["values"]
    while len(text) > limit and values:
        dropped = values.pop()
        data["left_out"].insert(0, dropped["name"])
        data["left_out_count"] += 1
        data["cut"] += 1
        text = json.dumps(data, ensure_ascii=False)
    while len(text) > limit and data["left_out"]:
        del data["left_out"][len(data["left_out"]) // 2 :]
        text = json.dumps(data, ensure_ascii=False)
    return text


_JSON_NAMED = 200  # names of left-out values in the JSON; ``left_out_count`` has them all


# --------------------------------------------------------------------------- entry


def caller_frame(depth: int = 1) -> FrameType:
    """The frame ``report()`` was called from: the frame selected in the Call Stack when
    pydevd evaluates it (Watch, Debug Console: its ``evaluate_expression(py_db, frame, …)``
    is on the stack), else the caller itself (a line of the program, a notebook cell, an
    ``eval`` in a namespace: IPython's ``user_expressions``)."""
    frame = sys._getframe(depth + 1)
    probe: FrameType | None = frame
    while probe is not None:
        code = probe.f_code
        if code.co_name == "evaluate_expression" and "pydevd" in code.co_filename:
            selected = probe.f_locals.get("frame")
            if isinstance(selected, FrameType):
                return selected
        probe = probe.f_back
    return frame


def report(
    source: Any,
    format: str = "markdown",  # noqa: A002 - the public keyword
    limit: int = LIMIT,
    seconds: float = SECONDS,
) -> str:
    """The report of ``source`` (a frame, a dict of names, or one value) as Markdown or JSON.
    Never raises on the program's values: a value that fails is its error's line."""
    if format not in ("markdown", "json"):
        raise ValueError(f"format must be 'markdown' or 'json', not {format!r}")
    if isinstance(source, FrameType):
        names = _names(source)
        where = _where(source)
    elif type(source) is dict:
        names = list(source.items())
        where = "the names given"
    else:
        names = [("value", source)]
        where = "the value given"
    found = collect(names, where, seconds)
    return markdown(found, limit) if format == "markdown" else as_json(found, limit)
