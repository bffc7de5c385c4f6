"""What the lower layers may ask of the debugger, without knowing which one it is.

Forensics needs two things from a debugger: which suspension the program is in (to number
stops), and to count this package's files as library code (so a stop raised in our callback
shows the user's line). Only ``hosts/pydevd`` knows pydevd: it installs a ``Debugger`` here
when it loads; with none installed (a notebook without a debugger, a plain run) the answers
are "none" and "nothing to do".
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Protocol


class Debugger(Protocol):
    def suspension(self) -> Any:
        """An object that stays the same while the current thread stays suspended at one
        stop (compared by identity), or None when it is not suspended."""
        ...

    def count_as_library(self, directory: str) -> None:
        """Treat files under ``directory`` as library code (not the user's)."""
        ...


_installed: Debugger | None = None


def install(debugger: Debugger) -> None:
    global _installed
    _installed = debugger


def suspension() -> Any:
    return None if _installed is None else _installed.suspension()


_lock = threading.Lock()
_seen_ref: weakref.ref | None = None  # the last suspension seen (by identity)
_seen_id = 0  # ... by id, for a suspension object that takes no weak reference
_stops = 0


def stops_seen() -> int:
    """How many stops (distinct suspensions) this process has been asked about, the current
    one included; 0 before any or with no debugger. A caller keeps the number it saw last:
    a different one means the program stopped again, however soon (a ``continue`` to the
    next iteration of a loop). The suspension is compared by identity through a weak
    reference, so a later object at the same address is not taken for it."""
    global _seen_ref, _seen_id, _stops
    try:
        stop = suspension()
    except Exception:
        return _stops
    if stop is None:
        return _stops
    with _lock:
        # By its id where none is held yet or the suspension takes no weak reference
        by_id = _stops > 0 and _seen_id == id(stop)
        same = _seen_ref() is stop if _seen_ref is not None else by_id
        if not same:
            try:
                _seen_ref = weakref.ref(stop)
            except TypeError:
                _seen_ref = None
            _seen_id = id(stop)
            _stops += 1
        return _stops


def count_as_library(directory: str) -> None:
    if _installed is not None:
        _installed.count_as_library(directory)
