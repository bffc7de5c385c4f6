"""The objects a TF trackable (a loaded SavedModel object, a checkpoint) holds by name:
its checkpoint dependencies, read from the list TF keeps, without running any of its code
(``_trackable_children`` may trace functions to list them for saving)."""

from __future__ import annotations

from typing import Any

from ..core.tf_types import Kind, kind_of
from .attributes import expression

_VARIABLE_KINDS = (Kind.VARIABLE, Kind.KERAS_VARIABLE, Kind.MIRRORED, Kind.SYNC_ON_READ)
_WHAT = {
    Kind.FUNCTION: "restored function",
    Kind.CONCRETE_FUNCTION: "concrete function",
    Kind.SAVED_OBJECT: "loaded object",
    Kind.SIGNATURES: "signatures",
}


def dependencies(obj: Any) -> list[tuple[str, Any]]:
    """(name, object) of each dependency, in the order TF tracked them."""
    found = []
    for reference in list(getattr(obj, "_self_unconditional_checkpoint_dependencies", None) or []):
        name, value = getattr(reference, "name", None), getattr(reference, "ref", None)
        if isinstance(name, str) and value is not None:
            found.append((name, value))
    return found


def what(value: Any) -> str:
    """``restored function``, ``Variable``, ``Dense``: a word for the row's name."""
    kind = kind_of(value)
    if kind in _VARIABLE_KINDS:
        return "variable"
    return _WHAT.get(kind, type(value).__name__) if kind is not None else type(value).__name__


def row_name(name: str, value: Any) -> str:
    """``w``: a public dependency's row is named as the attribute that reaches it (as the
    program and stock debugpy name it; its kind is in the row's type and summary);
    ``restored function __call__`` for a ``_x`` one (pydevd files a row named ``_x`` away
    in its protected group, without its expression)."""
    if name.startswith("_"):
        return f"{what(value)} {name}"
    return name


def bookkeeping(name: str) -> bool:
    """TF's own ``_x`` dependencies (``_self_saveable_object_factories``); a restored
    ``__call__`` is the user's."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def reachable(name: str) -> bool:
    """Can ``.name`` reach the dependency (pydevd's expression for it)?"""
    return isinstance(expression(name), str)


def variables(obj: Any, depth: int = 8) -> list:
    """The variables reachable through the dependencies, each once, depth first."""
    found: list = []
    seen: set[int] = set()

    def visit(node: Any, left: int) -> None:
        if id(node) in seen or left < 0:
            return
        seen.add(id(node))
        if kind_of(node) in _VARIABLE_KINDS:
            found.append(node)
            return
        for _, child in dependencies(node):
            visit(child, left - 1)

    visit(obj, depth)
    return found
