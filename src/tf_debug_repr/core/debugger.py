"""What the lower layers may ask of the debugger, without knowing which one it is.

Forensics needs two things from a debugger: which suspension the program is in (to number
stops), and to count this package's files as library code (so a stop raised in our callback
shows the user's line). Only ``hosts/pydevd`` knows pydevd: it installs a ``Debugger`` here
when it loads; with none installed (a notebook without a debugger, a plain run) the answers
are "none" and "nothing to do".
"""

from __future__ import annotations

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


def count_as_library(directory: str) -> None:
    if _installed is not None:
        _installed.count_as_library(directory)
