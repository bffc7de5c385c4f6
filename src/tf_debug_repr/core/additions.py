"""The one registry of additions: what features add to the views of every kind.

A feature (gradients, ``Δ since last stop``, memory, replica agreement) adds a short mark
to a value's summary line, rows to its children, or wants to hear that the user looked at
a value (Watch pane, hover). Each addition is registered under a name at an explicit
place; registering a name again replaces it, so installing twice changes nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Slot(Enum):
    MARK = "summary mark"  # (obj, kind) -> str, "" for none
    CHILDREN = "children"  # (obj, kind) -> list[Child]
    LOOKED_AT = "looked at"  # (obj) -> None


# Where each built-in addition goes, in one place: marks left to right (the gradient's
# mark ends the line: ``… Δ‖·‖=0.17 since stop 3 ∇‖g‖=0.031@Adam iteration 41``),
# children top to bottom.
MARK_REPLICA = 10
MARK_CHANGE = 20
MARK_HISTORY = 25
MARK_GRADIENT = 30
CHILD_GRADIENT = 10
CHILD_CHANGE = 20
CHILD_HISTORY = 25
CHILD_MEMORY = 30
LOOKED_CHANGE = 10
LOOKED_HISTORY = 20


@dataclass(frozen=True)
class Addition:
    slot: Slot
    order: int
    name: str
    function: Callable[..., Any]


_lock = threading.Lock()
_registered: dict[tuple[Slot, str], Addition] = {}
# Readers (pydevd's threads) take a whole tuple; a registration replaces it.
_ordered: dict[Slot, tuple[Addition, ...]] = {slot: () for slot in Slot}


def add(slot: Slot, name: str, order: int, function: Callable[..., Any]) -> None:
    """Register ``function`` in ``slot`` at ``order`` (lower first; ties by name)."""
    with _lock:
        _registered[(slot, name)] = Addition(slot, order, name, function)
        _reorder(slot)


def remove(slot: Slot, name: str) -> None:
    with _lock:
        _registered.pop((slot, name), None)
        _reorder(slot)


def _reorder(slot: Slot) -> None:
    found = [a for (s, _), a in _registered.items() if s is slot]
    _ordered[slot] = tuple(sorted(found, key=lambda a: (a.order, a.name)))


def of(slot: Slot) -> tuple[Addition, ...]:
    """The additions in ``slot``, in their order."""
    return _ordered[slot]
