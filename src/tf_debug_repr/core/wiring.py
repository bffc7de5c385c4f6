"""The one way up: the package's top level tells the dispatch module how to install the
catalog, so that a question asked before anything installed it (a NaN stop, a test
calling a view module) still finds every kind, while the dispatch module never imports
the catalog (which imports every view module, and they import the dispatch module)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_installer: Callable[[], Any] | None = None


def set_catalog_installer(installer: Callable[[], Any]) -> None:
    global _installer
    _installer = installer


def install_catalog() -> Any:
    """The catalog's table of rows, installed at the first call (None before the package's
    top level has run, which importing any of its modules does first)."""
    return _installer() if _installer is not None else None
