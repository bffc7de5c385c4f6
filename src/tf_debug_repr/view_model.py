"""The vocabulary every view speaks: a child, a leaf of text, an expression.

A view says what a value looks like as plain Python: a one-line summary and a list
of children, each with an expression that evaluates in the user's frame to that
child. Nothing here knows pydevd; the adapter turns these into what it wants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# A suffix appended to the parent's expression (``"[3]"`` -> ``x[3]``), a function of
# the parent's expression, or None where no expression can reproduce the value.
Expression = str | Callable[[str], str] | None

_UNSET: Any = object()


class Note(str):
    """A line of text shown as a leaf, without quotes.

    It subclasses ``str`` so that pydevd treats it as a leaf (no expansion arrow), while
    the plugin's string provider shows it bare.
    """

    __slots__ = ()


class Node:
    """A value the plugin itself puts in the tree (a range of rows, a group of figures).

    Subclasses say how they look; the adapter presents every Node like a TF value.
    """

    def summary(self) -> str:
        raise NotImplementedError

    def children(self) -> list[Child]:
        return []


@dataclass(frozen=True)
class Child:
    """One child row: a name, a value (or a function computing it), and its expression.

    Values are computed lazily, one child at a time, so that one failing child becomes
    a placeholder instead of wiping out its siblings.
    """

    name: str
    value: Any = _UNSET
    expression: Expression = None
    compute: Callable[[], Any] | None = field(default=None, compare=False)

    def resolve(self) -> Any:
        if self.compute is not None:
            return self.compute()
        return self.value


def lazy(name: str, compute: Callable[[], Any], expression: Expression = None) -> Child:
    return Child(name=name, compute=compute, expression=expression)


def call(template: str) -> Callable[[str], str]:
    """An expression built around the parent's: ``call("len({})")`` -> ``len(x)``."""
    return lambda parent: template.format(parent)


NUMPY = "__import__('numpy')"  # works in any frame: needs no import by the user


def error_note(exc: BaseException) -> Note:
    text = f"{type(exc).__name__}: {exc}".strip()
    text = " ".join(text.split())
    if len(text) > 200:
        text = text[:199] + "…"
    return Note(f"<error: {text}>")


def _narrow_float_type(dtype_name: str, to_narrow: Callable[[float], Any]) -> type:
    """A ``float`` whose repr is the shortest text of its narrow dtype (``0.1``, not
    ``0.10000000149011612``) and whose class name, shown in the type column, is the dtype.
    Being a ``float``, pydevd keeps it a leaf."""

    def text(self: float) -> str:
        return str(to_narrow(float(self)))

    return type(dtype_name, (float,), {"__slots__": (), "__repr__": text, "__str__": text})


_narrow_types: dict[str, type] = {}


def scalar_leaf(value: Any) -> Any:
    """A numpy/ml_dtypes scalar as a plain Python leaf (numpy scalars are expandable
    objects in pydevd). float32/float16/bfloat16 keep their short, exact-looking text."""
    import numpy as np

    if not isinstance(value, np.generic):
        return value
    name = value.dtype.name
    if name in ("float32", "float16", "bfloat16"):
        cls = _narrow_types.get(name)
        if cls is None:
            narrow = type(value)
            cls = _narrow_types[name] = _narrow_float_type(name, narrow)
        return cls(float(value))
    if value.dtype.kind == "V":  # float8 and other ml_dtypes
        return float(value)
    return value.item()
