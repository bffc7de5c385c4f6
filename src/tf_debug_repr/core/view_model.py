"""The vocabulary every view speaks: a child, a line of text (Note), an element of a
tensor (Scalar), an expression.

A view says what a value looks like as plain Python: a one-line summary and a list
of children, each with an expression that evaluates in the user's frame to that
child. Nothing here knows pydevd; the adapter turns these into what it wants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

# A suffix appended to the parent's expression (``"[3]"`` -> ``x[3]``), a function of
# the parent's expression, or None where no expression can reproduce the value.
Expression = str | Callable[[str], str] | None

_UNSET: Any = object()


@dataclass(frozen=True)
class Note:
    """A line of text shown as it is: no quotes, nothing to expand."""

    text: str

    def __post_init__(self) -> None:
        # An exact str always: a str subclass from the program keeps none of its methods.
        text = self.text if isinstance(self.text, str) else str(self.text)
        object.__setattr__(self, "text", str.__str__(text))

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class CutBytes(Note):
    """A string element too long to show whole: its head and its length, ``b'abc…'… (977
    KiB)``. A line of text typed ``bytes``, as a short element is: its expression gives
    the element (whose own line is cut shorter)."""


@dataclass(frozen=True)
class Scalar:
    """One element of a tensor: a plain Python value and the name of the dtype it was
    read from. ``text`` is how the dtype itself prints it (``0.1`` for a float32, not
    the ``0.10000000149011612`` of its float64 value)."""

    value: Any
    dtype: str

    @property
    def text(self) -> str:
        if self.dtype in SHORT_TEXT_DTYPES and isinstance(self.value, float):
            return str(_narrow(self.dtype)(self.value))
        return repr(self.value)

    def __str__(self) -> str:
        return self.text

    # Where a number is wanted (float(), int(), formatting), a Scalar converts like its value.
    def __float__(self) -> float:
        return float(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __complex__(self) -> complex:
        return complex(self.value)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        return np.asarray(self.value, dtype=dtype)


# Floats whose Python (float64) repr would show digits their dtype does not hold.
SHORT_TEXT_DTYPES = ("float32", "float16", "bfloat16")


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


def unique_names(rows: list[Child]) -> list[Child]:
    """``rows`` with every name once (PyCharm looks rows up by name, and a dict keyed by
    name would drop all but one): a later row of a name already taken gets ``(2)``, …"""
    taken = {row.name for row in rows}
    if len(taken) == len(rows):
        return rows
    used: set[str] = set()
    found = []
    for row in rows:
        name, number = row.name, 2
        while name in used or (name != row.name and name in taken):
            name = f"{row.name} ({number})"
            number += 1
        used.add(name)
        found.append(row if name == row.name else replace(row, name=name))
    return found


def lazy(name: str, compute: Callable[[], Any], expression: Expression = None) -> Child:
    return Child(name=name, compute=compute, expression=expression)


def call(template: str) -> Callable[[str], str]:
    """An expression built around the parent's: ``call("len({})")`` -> ``len(x)``."""
    return lambda parent: template.format(parent)


NUMPY = "__import__('numpy')"  # works in any frame: needs no import by the user
# The plugin's own functions in expressions: only through this module (never renamed).
FACADE = "__import__('tf_debug_repr._expr', fromlist=['_'])"


def error_note(exc: BaseException) -> Note:
    from .bounded import TimedOut

    if isinstance(exc, TimedOut):  # not an error of the value: the program's code hung
        return Note(f"<timed out: {' '.join(str(exc).split())[:300]}>")
    text = f"{type(exc).__name__}: {exc}".strip()
    text = " ".join(text.split())
    if len(text) > 200:
        text = text[:199] + "…"
    return Note(f"<error: {text}>")


def _narrow(dtype: str) -> Callable[[float], Any]:
    import numpy as np

    if dtype == "bfloat16":
        import ml_dtypes

        return ml_dtypes.bfloat16
    return np.dtype(dtype).type


def scalar_leaf(value: Any) -> Any:
    """A numpy/ml_dtypes scalar as a ``Scalar`` (its plain Python value and dtype name);
    anything else unchanged."""
    import numpy as np

    if not isinstance(value, np.generic):
        return value
    try:
        plain = value.item()
    except Exception:  # an ml_dtypes type without item(): it is a float of some width
        plain = float(value)
    if isinstance(plain, np.generic):
        plain = float(plain)
    return Scalar(plain, value.dtype.name)
