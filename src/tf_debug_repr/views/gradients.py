"""The recorded gradient of a variable (or watched tensor), as the debugger shows it.

A variable with a record gets a ``∇ gradient`` child (first among its children) and a
short mark on its summary line. The child's expression goes through the public
``tf_debug_repr.gradient_info(x)``, so "Add to Watch" and "Copy as Expression" work in
any frame; the gradient's own elements are re-rooted under ``.gradient``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # typing.TypeGuard is Python 3.10+; annotations here are never evaluated
    from typing import TypeGuard

from ..core import additions, notebook_cells
from ..core import formatting as fmt
from ..core.additions import Slot
from ..core.tf_types import Kind
from ..core.view_model import Child, Expression, Node, Note, call
from ..gradients import capture, compiled
from . import dispatch

# Compiled steps keep their gradients (gradients/compiled.py) from their first run: what
# stays symbolic is a trace not run yet, a tape under several replicas with no Keras
# optimizer, or a step traced before the debugger attached.


def eager_hint() -> str:
    return (
        "compiled steps keep the gradients tape.gradient returns and a Keras optimizer "
        "applies from their next run on; if none arrive (several replicas without a Keras "
        "optimizer, a function traced before the debugger attached): put a breakpoint in "
        "that function (it then runs eagerly), or put "
        + notebook_cells.setting("TF_DEBUG_REPR_EAGER=1")
        + " (Keras: compile(run_eagerly=True))"
    )


INFO = "__import__('tf_debug_repr').gradient_info({})"
SPARK_STEPS = 20  # norms drawn in a summary's sparkline


def _finite(value: float | None) -> TypeGuard[float]:
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
    """The norms of a source's latest gradients, oldest first: one target's, or one
    optimizer's steps over its targets (``SourceRecord.norms_of``)."""

    def __init__(self, norms: list[tuple[int, str, float | None]]) -> None:
        self.norms = norms

    def at(self, number: int) -> float | None:
        """The norm of the ``number``-th gradient recorded (1 = the first)."""
        return {n: norm for n, _, norm in self.norms}.get(number)

    def summary(self) -> str:
        if not self.norms:
            return "no gradient values yet"
        recent = self.norms[-SPARK_STEPS:]
        values = [n for _, _, n in recent]
        bad = sum(1 for v in values if not _finite(v))
        text = (
            f"{fmt.sparkline(values)} last {fmt.counted(len(recent), 'gradient')} "
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
            Child(f"#{number} {label}".rstrip(), norm, call(f"{{}}.at({number})"))
            for number, label, norm in reversed(self.norms)
        ]


def target_text(record: capture.GradientRecord) -> str:
    """``d_loss at train.py:42`` (``, replica 1`` under tf.distribute)."""
    text = f"{record.target} at {record.site}" if record.site else record.target
    return text + (f", replica {record.replica}" if record.replica is not None else "")


def _applied_text(record: capture.GradientRecord) -> str:
    name = record.optimizer or ""
    iteration = record.iteration
    if iteration is None:
        return name
    return (
        f"{name} at iteration {iteration} (its `iterations` was {iteration} when it "
        f"applied this gradient, {iteration + 1} after)"
    )


class GradientInfo(Node):
    """One source's latest gradient (from one target): value, label, norm, history,
    or why there is none."""

    def __init__(
        self, source: capture.SourceRecord, record: capture.GradientRecord | None = None
    ) -> None:
        self.source = source
        self.record = record if record is not None else source.latest
        r = self.record
        self.gradient = None if r is None else r.gradient
        self.norm = None if r is None else r.norm
        self.reason = None if r is None else r.reason
        self.applied = None if r is None else r.applied
        self.label = "" if r is None else r.label
        self.tape_call = None if r is None else r.tape_call
        self.site_call = None if r is None else r.site_call
        self.iteration = None if r is None else r.iteration
        # the latest gradient's with the same optimizer's other targets' (one series of
        # its steps); a target's own row in ``all targets`` keeps its own
        norms: list[tuple[int, str, float | None]] = []
        if r is not None:
            norms = source.norms_of(r) if record is None else r.norms()
        self.norms = NormHistory(norms)

    def _head(self) -> str:
        r = self.record
        assert r is not None  # asked only of a record
        several = len(self.source.targets) > 1
        return f"∇ of {r.short_target}, {r.label}" if several else f"∇ {r.label}"

    def summary(self) -> str:
        r = self.record
        if self.source.symbolic_now and (r is None or r is self.source.latest):
            return (
                f"∇ not available: computed inside tf.function {self.source.symbolic_in!r} "
                f"(symbolic); {eager_hint()}"
            )
        if r is None:
            return "∇ no gradient recorded yet"
        if not r.has_value:
            return f"{self._head()} None: {r.reason or 'the tape returned None'}"
        norm = self.norm
        warn = f"{fmt.WARNING} " if not _finite(norm) else ""
        spark = fmt.sparkline([n for _, _, n in self.norms.norms[-SPARK_STEPS:]])
        head = f"{warn}{self._head()} ‖g‖={_norm_text(r)} {spark}"
        if r.gradient is None:
            return f"{head} values not kept (memory budget) {_figures_text(r)}".rstrip()
        return f"{head} {dispatch.summary(r.gradient)}"

    def children(self) -> list[Child]:
        r = self.record
        source = self.source
        rows: list[Child] = []
        if source.symbolic_now and (r is None or r is source.latest):
            rows.append(
                Child(
                    "not available",
                    Note(f"computed inside tf.function {source.symbolic_in!r}: symbolic, no value"),
                )
            )
            rows.append(Child("how to get one", Note(eager_hint())))
        if r is None:
            return rows + _problem_rows(None)
        rows.append(Child("target", Note(f"{target_text(r)} ({r.origin})")))
        if r.site_call:
            rows.append(Child("call at this line", r.site_call, ".site_call"))
        if r.tape_call:
            rows.append(Child("tape call", r.tape_call, ".tape_call"))
        if r.applied_by:
            rows.append(Child("applied by", Note(_applied_text(r))))
            if r.iteration is not None:
                rows.append(Child("iteration", r.iteration, ".iteration"))
        if not r.has_value:
            rows.append(Child("why None", Note(r.reason or "the tape returned None"), ".reason"))
            return rows + self._target_rows() + _problem_rows(r)
        rows.append(Child("‖g‖", self.norm, ".norm"))
        if r.norm_sampled:
            rows.append(Child("‖g‖ estimated", Note(r.norm_sampled)))
        rows.append(Child("‖g‖ history", self.norms, ".norms"))
        if r.applied is not None:
            rows.append(Child("applied (changed after the tape)", r.applied, ".applied"))
        rows.extend(self._target_rows())
        rows.extend(_problem_rows(r))
        if r.gradient is None:
            rows.append(Child("values", Note(r.not_kept or "values not kept")))
            if r.figures is not None:
                rows.append(Child("figures", Note(_figures_text(r))))
            return rows
        # The gradient's own rows, named apart from this node's (a scalar's element row is
        # ``value`` too, and PyCharm looks rows up by name).
        own = {row.name for row in rows} | {"value"}
        for child in dispatch.children(r.gradient):
            moved = _reroot(child, ".gradient")
            if moved.name in own:
                moved = dataclasses.replace(moved, name=f"{moved.name} of the gradient")
            rows.append(moved)
        rows.append(Child("value", r.gradient, ".gradient"))
        return rows

    def _target_rows(self) -> list[Child]:
        targets = self.source.all_targets()
        if len(targets) < 2:
            return []
        return [Child("all targets", Targets(self.source), ".targets()")]

    def targets(self) -> Targets:
        return Targets(self.source)


class Targets(Node):
    """A source's gradients kept apart by target (call site, and replica)."""

    def __init__(self, source: capture.SourceRecord) -> None:
        self.source = source
        self.records = source.all_targets()

    def __getitem__(self, index: int) -> GradientInfo:
        return GradientInfo(self.source, self.records[index])

    def summary(self) -> str:
        count = len(self.records)
        noun = "target" if count == 1 else "targets"
        return f"{count} {noun}, each with its own latest gradient and history"

    def children(self) -> list[Child]:
        return [
            Child(target_text(r), GradientInfo(self.source, r), f"[{i}]")
            for i, r in enumerate(self.records)
        ]


def _figures_text(record: capture.GradientRecord) -> str:
    figures = record.figures
    if figures is None:
        return ""
    stats = figures.stats()
    # The counts are exact (see gradient_capture.figures_of) even where the range is not,
    # except a compiled step's (from its sample).
    exact = stats if figures.counts_sampled else dataclasses.replace(stats, extremes_sampled=False)
    bad = fmt.bad_values_text(exact)
    text = fmt.join([bad, fmt.stats_text(stats)])
    if figures.counts_sampled:
        text += (
            f" (every figure from a sample of about one element in {figures.stride:,}, "
            "of the last step)"
        )
    elif figures.stride > 1:
        text += f" (range, mean, std from every {figures.stride:,}-th element; norm exact)"
    return text


def _problem_rows(record: capture.GradientRecord | None) -> list[Child]:
    problem = record.problem if record is not None else None
    note = problem or capture.failure_note()
    return [Child("capture problem", Note(note))] if note else []


# --------------------------------------------------------------------------- public


def gradient_info(obj: Any) -> GradientInfo | None:
    source = capture.record_of(obj)
    return None if source is None else GradientInfo(source)


def gradient_of(obj: Any) -> Any:
    """The latest gradient kept for ``obj`` (None when there is none or it was not kept)."""
    source = capture.record_of(obj)
    return None if source is None else source.gradient


# --------------------------------------------------------------------------- hooks


def gradient_mark(obj: Any, kind: Kind | None) -> str:
    """``∇‖g‖=0.031@Adam iteration 5`` on the summary line of a variable with a gradient."""
    source = capture.record_of(obj)
    if source is None:
        return ""
    if source.symbolic_now:
        return "∇ in tf.function"
    record = source.latest
    if record is None:
        return ""
    if not record.has_value:
        return f"∇None@{record.label}"
    norm = record.norm
    warn = fmt.WARNING if not _finite(norm) else ""
    of = f" of {record.short_target}" if len(source.targets) > 1 else ""
    return f"∇{warn}‖g‖={_norm_text(record)}@{record.label}{of}"


def _norm_text(record: capture.GradientRecord) -> str:
    """``1.23``, or ``~1.23`` where the norm is an estimate from a sample."""
    return ("~" if record.norm_sampled else "") + fmt.number(record.norm)


def _pending(variables: list) -> list[tuple[float, bool, str] | None]:
    """``compiled.pending``: the compiled steps whose weights' records are not built yet,
    read from each site's ring (None each where that fails: the records then tell)."""
    try:
        return compiled.pending(variables)
    except Exception:
        return [None] * len(variables)


def latest_norms(variables: list) -> list[tuple[float | None, bool, str] | None]:
    """Per variable, (norm, whether it is an estimate, label) of its latest gradient with
    a value, None where it has none. A compiled step's norm is the one its step wrote
    into the site's ring (``GradientRecord.quick_norm``): no weight's values are read and
    no weight's record is built for it; the weight's own row shows the exact one."""
    with compiled.one_look():  # the counters read once for both
        quick = _pending(variables)
        rest = iter(capture.records_of([v for v, q in zip(variables, quick) if q is None]))
    found: list[tuple[float | None, bool, str] | None] = []
    for q in quick:
        if q is not None:
            found.append(q)
            continue
        source = next(rest)
        record = None if source is None else source.latest
        if record is None or not record.has_value:
            found.append(None)
            continue
        norm, sampled = record.quick_norm
        found.append((norm, sampled, record.label))
    return found


def pending_flags(variables: list) -> list[bool]:
    """Per variable, whether a compiled step's gradient of it waits to be recorded."""
    return [q is not None for q in _pending(variables)]


def has_gradients(variables: list) -> bool:
    """Whether any of ``variables`` has a gradient record, none built for the asking."""
    with compiled.one_look():  # the counters read once for both
        if any(q is not None for q in _pending(variables)):
            return True
        return any(source is not None for source in capture.records_of(variables))


def global_mark(variables: list) -> str:
    """``∇‖g‖=0.42@Adam iteration 5``: the global norm of the variables' latest gradients,
    with what labels them (several labels when they came from different places); ``~``
    where a weight's norm is an estimate (a compiled step's of a weight of more than
    ``SAMPLE`` elements, ``compiled.sample_note``)."""
    squares, labels, bad, approx = 0.0, [], False, ""
    for found in latest_norms(variables):
        if found is None:
            continue
        norm, sampled, label = found
        if sampled:
            approx = "~"
        if norm is None or not math.isfinite(norm):
            bad = True
        else:
            squares += norm * norm
        if label not in labels:
            labels.append(label)
    if not labels:
        return ""
    at = "@" + ", ".join(labels[:2]) + (f" +{len(labels) - 2} more" if len(labels) > 2 else "")
    if bad:
        return f"∇{fmt.WARNING}‖g‖=NaN/Inf{at}"
    return f"∇‖g‖={approx}{fmt.number(math.sqrt(squares))}{at}"


def gradient_children(obj: Any, kind: Kind | None) -> list[Child]:
    source = capture.record_of(obj)
    if source is None:
        return []
    return [Child("∇ gradient", GradientInfo(source), call(INFO))]


def register() -> None:
    additions.add(Slot.MARK, "gradient", additions.MARK_GRADIENT, gradient_mark)
    additions.add(Slot.CHILDREN, "gradient", additions.CHILD_GRADIENT, gradient_children)
