"""The recorded gradient of a variable (or watched tensor), as the debugger shows it.

A variable with a record gets a ``∇ gradient`` child (first among its children) and a
short mark on its summary line. The child's expression goes through the public
``tf_debug_repr.gradient_info(x)``, so "Add to Watch" and "Copy as Expression" work in
any frame; the gradient's own elements are re-rooted under ``.gradient``.
"""

from __future__ import annotations

import math
from typing import Any

from . import formatting as fmt
from . import gradient_capture as capture
from . import views
from .tf_types import Kind
from .view_model import Child, Expression, Node, Note, call

EAGER_HINT = (
    "set TF_DEBUG_REPR_EAGER=1 in the launch configuration (or call "
    "tf.config.run_functions_eagerly(True); Keras: compile(run_eagerly=True)) to get values"
)
INFO = "__import__('tf_debug_repr').gradient_info({})"
SPARK_STEPS = 20  # norms drawn in a summary's sparkline


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _reroot(child: Child, prefix: str) -> Child:
    """The same child, its expression moved under ``parent + prefix``."""
    expression: Expression = child.expression
    if isinstance(expression, str):
        expression = prefix + expression
    elif callable(expression):
        inner = expression
        expression = lambda parent, inner=inner: inner(parent + prefix)  # noqa: E731
    return Child(child.name, child.value, expression, child.compute)


class NormHistory(Node):
    """The norms of a source's latest gradients, oldest first."""

    def __init__(self, norms: list[tuple[int, float | None]]) -> None:
        self.norms = norms

    def at(self, step: int) -> float | None:
        return dict(self.norms).get(step)

    def summary(self) -> str:
        if not self.norms:
            return "no gradient values yet"
        recent = self.norms[-SPARK_STEPS:]
        values = [n for _, n in recent]
        bad = sum(1 for v in values if not _finite(v))
        text = (
            f"{fmt.sparkline(values)} last {len(recent)} steps "
            f"{fmt.number(values[0])} → {fmt.number(values[-1])}"
        )
        finite = [v for v in values if _finite(v)]
        if finite:
            text += f" (min {fmt.number(min(finite))}, max {fmt.number(max(finite))})"
        if bad:
            text = f"{fmt.WARNING} {bad} NaN/Inf " + text
        return text

    def children(self) -> list[Child]:
        return [
            Child(f"step {step}", norm, call(f"{{}}.at({step})"))
            for step, norm in reversed(self.norms)
        ]


class GradientInfo(Node):
    """One source's latest gradient: value, step, norm, history, or why there is none."""

    def __init__(self, record: capture.GradientRecord) -> None:
        self.record = record
        self.gradient = record.gradient
        self.step = record.step
        self.norm = record.norm
        self.reason = record.reason
        self.applied = record.applied
        self.norms = NormHistory(record.norms())

    def summary(self) -> str:
        r = self.record
        if r.symbolic_in and (r.gradient is None or r.symbolic_step >= r.step):
            return f"∇ not available: computed inside tf.function {r.symbolic_in!r} (symbolic); {EAGER_HINT}"
        if r.gradient is None:
            if not r.step:
                return "∇ no gradient recorded yet"
            return f"∇ None at step {r.step}: {r.reason or 'the tape returned None'}"
        norm = self.norm
        warn = f"{fmt.WARNING} " if not _finite(norm) else ""
        spark = fmt.sparkline([n for _, n in self.norms.norms[-SPARK_STEPS:]])
        value = views.summary(r.gradient)
        return f"{warn}∇ step {r.step} ‖g‖={fmt.number(norm)} {spark} {value}"

    def children(self) -> list[Child]:
        r = self.record
        rows: list[Child] = []
        if r.symbolic_in:
            rows.append(
                Child(
                    "not available",
                    Note(f"computed inside tf.function {r.symbolic_in!r}: symbolic, no value"),
                )
            )
            rows.append(Child("how to get one", Note(EAGER_HINT)))
        if r.gradient is None:
            if r.step:
                rows.append(Child("step", r.step, ".step"))
                rows.append(
                    Child("why None", Note(r.reason or "the tape returned None"), ".reason")
                )
            return rows
        rows.append(Child("step", r.step, ".step"))
        rows.append(Child("‖g‖", self.norm, ".norm"))
        rows.append(Child("‖g‖ history", self.norms, ".norms"))
        rows.append(
            Child("from", Note(r.origin + (f", applied by {r.applied_by}" if r.applied_by else "")))
        )
        if r.applied is not None:
            rows.append(Child("applied (changed after the tape)", r.applied, ".applied"))
        rows.extend(_reroot(child, ".gradient") for child in views.children(r.gradient))
        rows.append(Child("value", r.gradient, ".gradient"))
        return rows


# --------------------------------------------------------------------------- public


def gradient_info(obj: Any) -> GradientInfo | None:
    record = capture.record_of(obj)
    return None if record is None else GradientInfo(record)


def gradient_of(obj: Any) -> Any:
    record = capture.record_of(obj)
    return None if record is None else record.gradient


# --------------------------------------------------------------------------- hooks


def gradient_mark(obj: Any, kind: Kind | None) -> str:
    """``∇‖g‖=0.031@step 5`` on the summary line of a variable with a gradient."""
    record = capture.record_of(obj)
    if record is None:
        return ""
    if record.symbolic_in and (record.gradient is None or record.symbolic_step >= record.step):
        return "∇ in tf.function"
    if record.gradient is None:
        return f"∇None@step {record.step}" if record.step else ""
    norm = record.norm
    warn = fmt.WARNING if not _finite(norm) else ""
    return f"∇{warn}‖g‖={fmt.number(norm)}@step {record.step}"


def gradient_children(obj: Any, kind: Kind | None) -> list[Child]:
    record = capture.record_of(obj)
    if record is None:
        return []
    return [Child("∇ gradient", GradientInfo(record), call(INFO))]


def register() -> None:
    if gradient_mark not in views.summary_marks:
        views.summary_marks.append(gradient_mark)
    if gradient_children not in views.extra_children:
        views.extra_children.append(gradient_children)
