"""Objects ``tf.saved_model.load`` gives back (``_UserObject``) and their signature map.

A loaded object shows its signatures (each with its input and output specs), its restored
functions, variables and child objects (its checkpoint dependencies, by name), all its
variables, then its other attributes as stock debugpy lists them.
"""

from __future__ import annotations

from typing import Any

from ..core import formatting as fmt
from ..core.guards import harmless
from ..core.tf_types import Kind, kind_of
from ..core.view_model import FACADE, Child, call
from . import attributes as attribute_views
from . import functions, trackables
from .attributes import guarded
from .models import Weights

VARIABLES = f"{FACADE}.saved_variables"


def _counts(obj: Any) -> str:
    found: dict[str, int] = {}
    for name, value in trackables.dependencies(obj):
        if kind_of(value) is Kind.SIGNATURES or trackables.bookkeeping(name):
            continue  # signatures are said apart; TF's own bookkeeping is no part
        word = trackables.what(value)
        found[word] = found.get(word, 0) + 1
    return ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for word, n in found.items())


def _signature_names(obj: Any) -> list[str]:
    signatures = getattr(obj, "signatures", None)
    return [] if signatures is None else [str(k) for k in signatures]


def saved_summary(obj: Any) -> str:
    """``loaded SavedModel object: signatures serving_default; 2 restored functions, 1 variable``."""
    with harmless():
        names = _signature_names(obj)
        signatures = f"signatures {', '.join(names)}" if names else "no signatures"
        return fmt.clip(f"loaded SavedModel object: {signatures}; {_counts(obj)}".rstrip("; "))


def saved_children(obj: Any) -> list[Child]:
    with harmless():
        dependencies = trackables.dependencies(obj)
    rows = []
    shown: dict[int, str] = {}
    for name, value in dependencies:
        if not trackables.reachable(name) or trackables.bookkeeping(name):
            continue
        rows.append(Child(trackables.row_name(name, value), value, f".{name}"))
        shown[id(value)] = name
    with harmless():
        variables = trackables.variables(obj)
    rows.append(
        Child("all variables", Weights(variables, noun="variables"), call(VARIABLES + "({})"))
    )
    attributes = attribute_views.read_attributes(obj)
    return rows + attribute_views.attribute_rows(obj, attributes, shown=shown)


def saved_variables(obj: Any) -> list:
    """Every variable a loaded object reaches through its dependencies."""
    with harmless():
        return trackables.variables(obj)


# --------------------------------------------------------------------------- signatures


def signatures_summary(signatures: Any) -> str:
    """``1 signature: serving_default (x: float32[None, 3]) -> {y: float32[None, 3]}``."""
    with harmless():
        items = list(signatures.items())
        parts = []
        for key, function in items[:3]:
            try:
                parts.append(f"{key} {functions.concrete_text(function)}")
            except Exception as exc:  # that one signature says so
                parts.append(f"{key} ({type(exc).__name__})")
    count = f"{len(items)} signature{'' if len(items) == 1 else 's'}"
    return fmt.clip(f"{count}: {'; '.join(parts)}" if parts else count)


def signatures_children(signatures: Any) -> list[Child]:
    with harmless():
        keys = list(signatures)
    rows = [guarded(str(key), lambda key=key: signatures[key], f"[{key!r}]") for key in keys]  # type: ignore[misc]
    attributes = attribute_views.read_attributes(signatures)
    return rows + attribute_views.attribute_rows(signatures, attributes)
