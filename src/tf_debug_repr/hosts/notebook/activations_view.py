"""``%tf_activations model``: each layer's output in the last step that ran it (the
``→ output`` rows of the debugger, docs/compiled-code.md) as a cell's output: per layer
the step, the output's dtype and shape, its figures, the counts of dead ReLUs, saturated
sigmoid/tanh and exploding values, and a small picture (the display's heatmap, histogram
or image); plain text for front ends without HTML. Every piece of the debuggee's text
(layer names, the step's name, notes) is escaped: data, never markup.

What is shown is what the compiled steps kept (``gradients/activations.py``): with the
extension loaded, a step traced from then on keeps its layers' outputs, within
``TF_DEBUG_REPR_ACTIVATIONS_MB``. Reading them runs no layer and no step.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when shown: loading the extension imports no TensorFlow
    from ...gradients import activations as capture

LAYERS = 256  # layers looked at under one model
PICTURES = 32  # layers drawn (the first ones reached); the others get their figures
PICTURE_BUDGET = 64 * 64 * 5  # cells of a small heatmap, as the display's payload counts
PICTURE_SIDE = 96  # pixels of a heatmap's longer side, where its cells allow

_CSS = (
    "border-collapse:collapse;font-family:var(--jp-code-font-family,monospace);"
    "font-size:var(--jp-code-font-size,12px);color:var(--jp-content-font-color1,inherit)"
)
_CELL = (
    "padding:2px 8px;border-bottom:1px solid var(--jp-border-color2,#8884);"
    "text-align:left;vertical-align:top"
)
_HEAD = _CELL + ";background:var(--jp-layout-color2,transparent)"
_NOTE = "opacity:0.75;font-size:90%"
_NOWRAP = "white-space:nowrap"
COLUMNS = ("layer", "step", "output", "min", "max", "mean", "std", "counts", "picture")


def _number(value: Any) -> str:
    if value is None:
        return ""
    try:
        return f"{float(value):.4g}"
    except (TypeError, ValueError):
        return str(value)


class LayerRow:
    """One output of one layer, read: its title, where it came from, its figures."""

    def __init__(self, layer: Any, output: capture.Output, picture: bool) -> None:
        self.layer = f"{_name(layer)} ({type(layer).__name__})"
        self.path = output.path
        self.where = (
            output.where
            + (f", {output.detail}" if output.detail else "")
            + (
                f", replica {output.replica} ({output.device})"
                if output.replica is not None
                else ""
            )
            + (f", last of {output.calls} calls" if output.calls > 1 else "")
        )
        self.shape = "?" if output.shape is None else str(output.shape)
        self.counts = ""
        self.payload: dict[str, Any] = {}
        self.picture: str | None = None
        self.note = ""
        try:
            self._read(layer, output, picture)
        except Exception as exc:  # this row's placeholder; the other layers still show
            self.note = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]

    def _read(self, layer: Any, output: capture.Output, picture: bool) -> None:
        from ...views import activations as activation_views
        from . import display

        value = activation_views.output_value(
            output,
            activation_views.activation_name(layer),
            activation_views.output_title(layer, output),
        )
        if output.value is None:  # did not fit the budget: why
            self.note = str(value)
            return
        described = activation_views.described(value)
        self.counts = described[1] if described else ""
        self.payload = display.build_payload(value)
        self.shape = f"{self.payload.get('dtype') or ''}{list(self.payload.get('shape') or [])}"
        if self.payload.get("error"):
            self.note = str(self.payload["error"])
        elif picture:
            from ...viewer import payload as viewer_payload

            small = viewer_payload.build(value, budget=PICTURE_BUDGET, bins=32)
            self.picture = display.picture_html(small, PICTURE_SIDE)

    def figures(self) -> dict[str, str]:
        stats = self.payload.get("stats") or {}
        return {k: _number(stats.get(k)) for k in ("min", "max", "mean", "std")}

    def bad(self) -> str:
        from . import display

        return display.bad_values(self.payload)


def _none_text() -> str:
    from ...gradients import activations as capture

    if not capture.enabled():
        return "no output kept: activation capture is off"
    return (
        "no output kept: no step that ran these layers was traced since the extension was "
        "loaded (or a debugger attached); a step traced before keeps nothing: for fit, "
        "run model.make_train_function(force=True) (or compile again) before the next fit"
    )


def _name(layer: Any) -> str:
    try:
        return str(layer.name)
    except Exception:
        return type(layer).__name__


class ActivationsView:
    """What ``%tf_activations`` returns: shown as HTML (``_repr_html_``) or text."""

    def __init__(self, model: Any) -> None:
        from ...core.tf_types import Kind, kind_of
        from ...views import activations as activation_views

        self.name = f"{_name(model)} ({type(model).__name__})"
        self.rows: list[LayerRow] = []
        self.missing: list[str] = []
        if kind_of(model) is not Kind.KERAS_LAYER:
            self.why = "not a Keras model or layer: its outputs are not kept"
            return
        found, missing = activation_views.reached(model, LAYERS)
        for layer, outputs in found:
            for output in outputs[: activation_views.LISTED]:
                for part in output.replicas or [output]:  # several replicas: a row each
                    self.rows.append(LayerRow(layer, part, len(self.rows) < PICTURES))
        from ...gradients import activations as capture

        self.missing = [
            _name(layer) + (f" ({why})" if (why := capture.skipped_reason(layer)) else "")
            for layer in missing
        ]
        self.why = "" if found else _none_text()

    def title(self) -> str:
        layers = len({r.layer for r in self.rows})
        total = layers + len(self.missing)
        return (
            f"activations of {self.name}: {layers} of {total} layers kept by the last step "
            "that ran them"
        )

    def _missing_text(self) -> str:
        if not self.missing:
            return ""
        names = ", ".join(self.missing[:20]) + (" …" if len(self.missing) > 20 else "")
        return f"no output kept (not reached by a step traced with capture on): {names}"

    def _repr_html_(self) -> str:
        parts = [f'<div class="tf-debug-repr" style="{_CSS}">']
        parts.append(f"<div><b>{html.escape(self.title())}</b></div>")
        if self.why:
            parts.append(f'<div style="{_NOTE}">{html.escape(self.why)}</div>')
        if self.rows:
            head = "".join(f'<th style="{_HEAD}">{html.escape(c)}</th>' for c in COLUMNS)
            parts.append(f'<table style="{_CSS}"><thead><tr>{head}</tr></thead><tbody>')
            for row in self.rows:
                figures = row.figures()
                counts = " ".join(t for t in (row.counts, row.bad()) if t)
                picture = row.picture or ""
                cells = [
                    html.escape(row.layer + (f" → output{row.path}" if row.path else "")),
                    html.escape(row.where),
                    f'<span style="{_NOWRAP}">{html.escape(row.shape)}</span>'
                    + (f'<div style="{_NOTE}">{html.escape(row.note)}</div>' if row.note else ""),
                    *(html.escape(figures[k]) for k in ("min", "max", "mean", "std")),
                    html.escape(counts),
                    picture,
                ]
                parts.append(
                    "<tr>" + "".join(f'<td style="{_CELL}">{c}</td>' for c in cells) + "</tr>"
                )
            parts.append("</tbody></table>")
        missing = self._missing_text()
        if missing:
            parts.append(f'<div style="{_NOTE}">{html.escape(missing)}</div>')
        parts.append("</div>")
        return "".join(parts)

    def __repr__(self) -> str:
        lines = [self.title()]
        if self.why:
            lines.append(self.why)
        for row in self.rows:
            figures = row.figures()
            text = (
                f"{row.layer}{f' → output{row.path}' if row.path else ''}: {row.shape} "
                f"({row.where})"
            )
            if figures["min"]:
                text += " " + " ".join(f"{k}={v}" for k, v in figures.items())
            for extra in (row.counts, row.bad(), row.note):
                if extra:
                    text += f", {extra}"
            lines.append("  " + text)
        missing = self._missing_text()
        if missing:
            lines.append(missing)
        return "\n".join(lines)


def magic(ip: Any) -> Any:
    def tf_activations(line: str = "") -> Any:
        expression = (line or "").strip()
        if not expression:
            raise ValueError(
                "usage: %tf_activations MODEL (a Keras model or layer, or an expression giving one)"
            )
        # the user's own expression, evaluated as the cell would
        value = eval(expression, ip.user_ns)  # noqa: S307
        return ActivationsView(value)

    return tf_activations


def install(ip: Any) -> None:
    ip.register_magic_function(magic(ip), "line", "tf_activations")


def uninstall(ip: Any) -> None:
    try:
        ip.magics_manager.magics["line"].pop("tf_activations", None)
    except Exception:
        pass
