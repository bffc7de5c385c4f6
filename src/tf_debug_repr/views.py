"""What a value looks like: the one place that maps a value to its summary and children.

``summary``, ``children``, ``console_text`` and ``clipboard_text`` are what every
front end uses (the pydevd adapter, the demo printer, tests). Errors propagate from
here; the adapter turns them into placeholders.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import islice
from typing import Any

from . import composite_views, symbolic_views, tensor_views, variable_views
from . import formatting as fmt
from .guards import harmless
from .tf_types import Kind, kind_of, kind_of_type
from .view_model import Child, Node, Note, error_note

# Extension points for features that add to a value's view (gradients, for one): each
# takes the object and returns extra children / a short mark for the summary line.
extra_children: list[Callable[[Any, Kind | None], list[Child]]] = []
summary_marks: list[Callable[[Any, Kind | None], str]] = []
# Further kinds of values (Keras models, tapes…) registered by other modules:
# (predicate on the type, summary, children).
extra_views: list[
    tuple[Callable[[type], bool], Callable[[Any], str], Callable[[Any], list[Child]]]
] = []


def handles(type_object: type) -> bool:
    """Does the plugin present values of this type? Cheap; pydevd caches the answer."""
    try:
        if issubclass(type_object, Node) or issubclass(type_object, Note):
            return True
    except TypeError:
        return False
    return kind_of_type(type_object) is not None or _extra_view(type_object) is not None


def _extra_view(type_object: type):
    for entry in extra_views:
        try:
            if entry[0](type_object):
                return entry
        except Exception:
            continue
    return None


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


def _eager_summary(tensor: Any) -> str:
    return _with_marks(tensor_views.summary(tensor), tensor, Kind.EAGER)


# One row per kind of TF value: (summary, children). Variables get their kind passed on,
# since tf.Variable and Keras variables name themselves differently.
_BY_KIND: dict[Kind, tuple[Callable[[Any], str], Callable[[Any], list[Child]]]] = {
    Kind.EAGER: (
        _eager_summary,
        lambda t: _extra_children(t, Kind.EAGER) + tensor_views.tensor_children(t),
    ),
    Kind.VARIABLE: (
        lambda v: _with_marks(variable_views.variable_summary(v, Kind.VARIABLE), v, Kind.VARIABLE),
        lambda v: (
            _extra_children(v, Kind.VARIABLE) + variable_views.variable_children(v, Kind.VARIABLE)
        ),
    ),
    Kind.KERAS_VARIABLE: (
        lambda v: _with_marks(
            variable_views.variable_summary(v, Kind.KERAS_VARIABLE), v, Kind.KERAS_VARIABLE
        ),
        lambda v: (
            _extra_children(v, Kind.KERAS_VARIABLE)
            + variable_views.variable_children(v, Kind.KERAS_VARIABLE)
        ),
    ),
    Kind.SYMBOLIC: (symbolic_views.symbolic_summary, symbolic_views.symbolic_children),
    Kind.KERAS_TENSOR: (symbolic_views.keras_tensor_summary, symbolic_views.keras_tensor_children),
    Kind.SPARSE: (composite_views.sparse_summary, composite_views.sparse_children),
    Kind.RAGGED: (composite_views.ragged_summary, composite_views.ragged_children),
    Kind.INDEXED_SLICES: (
        composite_views.indexed_slices_summary,
        composite_views.indexed_slices_children,
    ),
    Kind.DATASET: (composite_views.dataset_summary, composite_views.dataset_children),
    Kind.ITERATOR: (composite_views.iterator_summary, composite_views.iterator_children),
}


def _view_of(obj: Any):
    """(summary, children) functions for a TF value or a registered extra view, else None."""
    kind = kind_of(obj)
    if kind is not None:
        return _BY_KIND.get(kind)
    entry = _extra_view(type(obj))
    return (entry[1], entry[2]) if entry is not None else None


def summary(obj: Any) -> str:
    """The one-line value shown in the Variables and Watch panes and in hovers."""
    if isinstance(obj, Note):
        return str(obj)
    if isinstance(obj, Node):
        return fmt.clip(obj.summary())
    view = _view_of(obj)
    return fmt.clip(view[0](obj) if view is not None else repr(obj))


def children(obj: Any) -> list[Child]:
    """The children shown when the value is expanded, in display order."""
    if isinstance(obj, Node):
        return obj.children()
    view = _view_of(obj)
    return view[1](obj) if view is not None else []


# ------------------------------------------------------------------ lists of tensors

_CONTAINER_ITEMS = 100  # items looked at; a list of tensors shows its first ones
_BRACKETS = {list: "[]", tuple: "()", dict: "{}"}


def brief(obj: Any) -> str:
    """A few words for a value inside a list: ``float32[4, 8]``, ``Variable 'w' float32[3]``."""
    kind = kind_of(obj)
    if kind in (Kind.EAGER, Kind.SYMBOLIC, Kind.INDEXED_SLICES, Kind.SPARSE, Kind.RAGGED):
        return f"{obj.dtype.name}{fmt.shape_text(obj.shape)}"
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
    return None


def console_text(obj: Any) -> str:
    """Debug Console: the summary line, then the values numpy-style: all of a small
    tensor, numpy's summarised form (corners and ``...``) of a big one."""
    line = summary(obj)
    tensor = _values_of(obj)
    if tensor is None or isinstance(obj, Node):
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
