"""What a value looks like: the one place that maps a value to its summary and children.

``summary``, ``children``, ``console_text`` and ``clipboard_text`` are what every
front end uses (the pydevd adapter, the demo printer, tests). Errors propagate from
here; the adapter turns them into placeholders.

Dispatch is one table: ``tf_types`` says which kind a type is (by class names, without
importing TF), and ``_TABLE`` holds the one view of each kind. The table is built once,
when the program imports TensorFlow (``activation``) or at first use.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from typing import Any

from . import formatting as fmt
from . import tensor_views, variable_views
from .guards import building_graph, harmless
from .tf_types import Kind, kind_of, kind_of_type
from .view_model import Child, Node, Note, error_note

# Extension points for features that add to a value's view (gradients, for one): each
# takes the object and returns extra children / a short mark for the summary line.
extra_children: list[Callable[[Any, Kind | None], list[Child]]] = []
summary_marks: list[Callable[[Any, Kind | None], str]] = []
# Told when the user looks at a value (Watch pane, hover): features that track values.
looked_at: list[Callable[[Any], None]] = []


def note_looked_at(obj: Any) -> None:
    for hook in looked_at:
        try:
            hook(obj)
        except Exception:  # a feature failing must not hide the value
            pass


def handles(type_object: type) -> bool:
    """Does the plugin present values of this type? Cheap, never imports TF; pydevd
    caches the answer per type.

    Only once TensorFlow is imported: Keras values can exist without it (Keras on JAX),
    and their views run TF ops."""
    try:
        if issubclass(type_object, Node) or issubclass(type_object, Note):
            return True
    except TypeError:
        return False
    return kind_of_type(type_object) is not None and "tensorflow" in sys.modules


def _marks(obj: Any, kind: Kind | None) -> list[str]:
    marks = []
    for mark in summary_marks:
        try:
            text = mark(obj, kind)
        except Exception:
            text = ""
        if text:
            marks.append(text)
    return marks


def _with_marks(line: str, obj: Any, kind: Kind) -> str:
    # The marks are kept whole; the line's least telling tail makes room for them.
    return fmt.with_marks(line, _marks(obj, kind))


def _extra_children(obj: Any, kind: Kind | None) -> list[Child]:
    found: list[Child] = []
    for provider in extra_children:
        try:
            found.extend(provider(obj, kind))
        except Exception as exc:  # one feature failing must not hide the value
            found.append(Child(getattr(provider, "__name__", "extra"), error_note(exc)))
    return found


# --------------------------------------------------------------------------- dispatch


def _unwrapped(obj: Any) -> Any:
    """The value inside TF's "should use" wrapper (what ``TensorArray.write`` returns),
    read without marking it used: the program's own "never used" warning still fires."""
    return object.__getattribute__(obj, "_tf_should_use_wrapped_value")


def _eager_summary(tensor: Any) -> str:
    return _with_marks(tensor_views.summary(tensor), tensor, Kind.EAGER)


def _variable_view(kind: Kind) -> View:
    """tf.Variable and Keras variables: one view, told which family it shows."""
    return View(
        lambda v: _with_marks(variable_views.variable_summary(v, kind), v, kind),
        lambda v: _extra_children(v, kind) + variable_views.variable_children(v, kind),
    )


def _eager_children(tensor: Any) -> list[Child]:
    return _extra_children(tensor, Kind.EAGER) + tensor_views.tensor_children(tensor)


@dataclass(frozen=True)
class View:
    """How one kind of value looks: its summary line and its children."""

    summary: Callable[[Any], str]
    children: Callable[[Any], list[Child]]


_TABLE: dict[Kind, View] = {}


def build_table() -> dict[Kind, View]:
    """The one view of every kind. Imports the view modules, so it runs once TF is
    imported (they may import TF's own modules freely then)."""
    if _TABLE:
        return _TABLE
    from . import (
        composite_views,
        distribute_views,
        metric_views,
        model_views,
        optimizer_views,
        shape_views,
        symbolic_views,
        tape_views,
        tensor_array_views,
    )

    table = {
        Kind.EAGER: View(_eager_summary, _eager_children),
        Kind.VARIABLE: _variable_view(Kind.VARIABLE),
        Kind.KERAS_VARIABLE: _variable_view(Kind.KERAS_VARIABLE),
        Kind.SYMBOLIC: View(symbolic_views.symbolic_summary, symbolic_views.symbolic_children),
        Kind.KERAS_TENSOR: View(
            symbolic_views.keras_tensor_summary, symbolic_views.keras_tensor_children
        ),
        Kind.SPARSE: View(composite_views.sparse_summary, composite_views.sparse_children),
        Kind.RAGGED: View(composite_views.ragged_summary, composite_views.ragged_children),
        Kind.INDEXED_SLICES: View(
            composite_views.indexed_slices_summary, composite_views.indexed_slices_children
        ),
        Kind.DATASET: View(composite_views.dataset_summary, composite_views.dataset_children),
        Kind.ITERATOR: View(composite_views.iterator_summary, composite_views.iterator_children),
        Kind.SHAPE: View(shape_views.shape_summary, shape_views.shape_children),
        Kind.TYPE_SPEC: View(shape_views.spec_summary, shape_views.spec_children),
        Kind.TENSOR_ARRAY: View(
            tensor_array_views.tensor_array_summary, tensor_array_views.tensor_array_children
        ),
        Kind.MIRRORED: View(distribute_views.mirrored_summary, distribute_views.mirrored_children),
        Kind.SYNC_ON_READ: View(
            distribute_views.sync_on_read_summary, distribute_views.sync_on_read_children
        ),
        Kind.PER_REPLICA: View(
            distribute_views.per_replica_summary, distribute_views.per_replica_children
        ),
        Kind.DISTRIBUTED: View(
            distribute_views.per_replica_summary, distribute_views.per_replica_children
        ),
        # Attributes pass through the wrapper, so the inner value's expressions still hold.
        Kind.SHOULD_USE: View(lambda w: summary(_unwrapped(w)), lambda w: children(_unwrapped(w))),
        Kind.TAPE: View(tape_views.tape_summary, tape_views.tape_children),
        Kind.KERAS_LAYER: View(
            model_views.layer_summary,
            lambda m: model_views.layer_children(m, _extra_children(m, Kind.KERAS_LAYER)),
        ),
        Kind.TF_MODULE: View(model_views.module_summary, model_views.module_children),
        Kind.OPTIMIZER: View(optimizer_views.optimizer_summary, optimizer_views.optimizer_children),
        Kind.LR_SCHEDULE: View(optimizer_views.schedule_summary, optimizer_views.schedule_children),
        Kind.METRIC: View(metric_views.metric_summary, metric_views.metric_children),
        Kind.LOSS: View(metric_views.loss_summary, metric_views.loss_children),
    }
    if distribute_views.replica_mark not in summary_marks:
        summary_marks.append(distribute_views.replica_mark)
    _TABLE.update(table)
    return _TABLE


def _view_of(obj: Any) -> View | None:
    """The view of a TF value, None for anything else."""
    kind = kind_of(obj)
    if kind is None:
        return None
    return (_TABLE or build_table()).get(kind)


def summary(obj: Any) -> str:
    """The one-line value shown in the Variables and Watch panes and in hovers."""
    if isinstance(obj, Note):
        return str(obj)
    if isinstance(obj, Node):
        return fmt.clip(obj.summary())
    view = _view_of(obj)
    return fmt.clip(view.summary(obj) if view is not None else repr(obj))


def children(obj: Any) -> list[Child]:
    """The children shown when the value is expanded, in display order."""
    if isinstance(obj, Node):
        return obj.children()
    view = _view_of(obj)
    if view is None:
        return []
    rows = view.children(obj)
    if kind_of(obj) is Kind.EAGER and building_graph():
        # A real tensor seen while a graph is built (an eager input of a Keras layer in its
        # build pass, a tensor a tf.function captures): its children's expressions must run
        # outside that graph, or they would add ops to it and give symbolic tensors.
        rows = [variable_views.outside_graph(row) for row in rows]
    return rows


# ------------------------------------------------------------------ lists of tensors

_CONTAINER_ITEMS = 100  # items looked at; a list of tensors shows its first ones
_BRACKETS = {list: "[]", tuple: "()", dict: "{}"}


def brief(obj: Any) -> str:
    """A few words for a value inside a list: ``float32[4, 8]``, ``Variable 'w' float32[3]``."""
    kind = kind_of(obj)
    if kind in (Kind.EAGER, Kind.INDEXED_SLICES, Kind.SPARSE, Kind.RAGGED):
        return f"{obj.dtype.name}{fmt.shape_text(obj.shape)}"
    if kind is Kind.SYMBOLIC:  # no value: must not read like the real tensors beside it
        return f"symbolic {obj.dtype.name}{fmt.shape_text(obj.shape)}"
    if kind is Kind.KERAS_TENSOR:
        dtype = getattr(obj.dtype, "name", obj.dtype)
        return f"symbolic {dtype}{fmt.shape_text(obj.shape)}"
    if kind in (Kind.VARIABLE, Kind.KERAS_VARIABLE):
        name, dtype = variable_views.label(obj), variable_views.dtype_name(obj)
        return f"Variable {name!r} {dtype}{fmt.shape_text(obj.shape)}"
    if kind is not None:
        return summary(obj)
    text = repr(obj)
    return text if len(text) <= 60 else text[:59] + "…"


def container_summary(obj: Any) -> str | None:
    """``[float32[4, 8], float32[8], …]`` for a list, tuple or dict holding TF values;
    None for any other container, so that pydevd shows it as it always does. (Stock
    shows each tensor's whole repr there, numpy values and all.)"""
    if isinstance(obj, dict):
        items = list(islice(obj.items(), _CONTAINER_ITEMS))
        values = [v for _, v in items]
    else:
        items = list(islice(obj, _CONTAINER_ITEMS))
        values = items
    if not any(kind_of(v) is not None for v in values):
        return None
    if isinstance(obj, dict):
        parts = [f"{k!r}: {brief(v)}" for k, v in items]
    else:
        parts = [brief(v) for v in items]
    if len(obj) > len(items):
        parts.append(f"… {fmt.count(len(obj) - len(items))} more")
    opening, closing = _BRACKETS[type(obj)]
    if isinstance(obj, tuple) and len(obj) == 1:
        closing = ",)"
    return fmt.clip(opening + ", ".join(parts) + closing, fmt.MAX_SUMMARY_CHARS)


def _values_of(obj: Any) -> Any:
    """The eager tensor whose values the console and clipboard print, if any."""
    kind = kind_of(obj)
    if kind is Kind.EAGER:
        return obj
    if kind in (Kind.VARIABLE, Kind.KERAS_VARIABLE):
        return variable_views.read_value(obj)
    if kind in (Kind.MIRRORED, Kind.SYNC_ON_READ):
        # a mirrored variable reads its first replica, a sync-on-read one the aggregate
        if hasattr(obj, "read_value"):
            with harmless():
                return obj.read_value()
        return _values_of(obj.values[0])
    if kind is Kind.SHOULD_USE:
        return _values_of(_unwrapped(obj))
    return None


def console_text(obj: Any) -> str:
    """Debug Console: the summary line, then the values numpy-style: all of a small
    tensor, numpy's summarised form (corners and ``...``) of a big one."""
    line = summary(obj)
    if isinstance(obj, Node):  # a report of several lines (``memory()``) prints them
        return obj.console_text() if hasattr(obj, "console_text") else line
    tensor = _values_of(obj)
    if tensor is None:
        return line
    with harmless():
        return f"{line}\n{tensor_views.console_values(tensor)}"


def clipboard_text(obj: Any) -> str:
    """Copy Value: the actual values as text, bounded for huge tensors."""
    tensor = _values_of(obj)
    if tensor is None:
        return summary(obj)
    with harmless():
        return tensor_views.values_text(tensor, tensor_views.CLIPBOARD_ELEMENTS)
