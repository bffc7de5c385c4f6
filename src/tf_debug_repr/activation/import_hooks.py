"""Run a callback right after a module is imported, without importing it ourselves.

The plugin is loaded when debugpy starts, long before the user's program imports
TensorFlow. Importing TF there would add seconds to every debug session and
initialise TF before the user's own ``tf.config`` calls, so instead we wait for
the program to import it and act then (or at once, if it already has: attach mode).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

Callback = Callable[[ModuleType], None]
# Called before and after a module's code runs: ``leave(enter())`` (``run_around``)
Around = tuple[Callable[[], Any], Callable[[Any], None]]

_lock = threading.RLock()
_pending: dict[str, list[Callback]] = {}
_around: dict[str, Around] = {}


def _run(callbacks: list[Callback], module: ModuleType) -> None:
    for callback in callbacks:
        try:
            callback(module)
        except Exception as exc:  # a hook must never break the user's import
            report(f"tf-debug-repr: hook for {module.__name__} failed: {exc!r}")


def report(message: str) -> None:
    """One line on stderr about a hook that failed; never raises."""
    try:
        sys.stderr.write(message + "\n")
    except Exception:
        pass


_report = report  # the name activation still calls (being changed elsewhere)


class _LoaderWrapper:  # duck-typed: importlib.abc costs ~20 ms at debugger start
    """Delegates to the real loader and fires the callbacks once the module has run."""

    def __init__(self, loader: Any, name: str) -> None:
        self._loader = loader
        self._name = name

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        with _lock:
            around = _around.pop(self._name, None)
        token = _enter(around)
        try:
            self._loader.exec_module(module)
        finally:
            _leave(around, token)
        with _lock:
            callbacks = _pending.pop(self._name, [])
        _run(callbacks, module)

    def __getattr__(self, attr: str):
        # get_data, get_filename, is_package... are asked of the loader by other tools.
        return getattr(self._loader, attr)


class _PostImportFinder:
    def __init__(self) -> None:
        self._busy = threading.local()

    def find_spec(self, fullname, path=None, target=None):
        wanted = fullname in _pending or fullname in _around
        if not wanted or getattr(self._busy, "active", False):
            return None
        self._busy.active = True
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._busy.active = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        spec.loader = cast("Loader", _LoaderWrapper(spec.loader, fullname))
        return spec


_finder = _PostImportFinder()


def _enter(around: Around | None) -> Any:
    if around is None:
        return None
    try:
        return around[0]()
    except Exception as exc:  # never break the user's import
        report(f"tf-debug-repr: before an import: {exc!r}")
        return None


def _leave(around: Around | None, token: Any) -> None:
    if around is None:
        return
    try:
        around[1](token)
    except Exception as exc:
        report(f"tf-debug-repr: after an import: {exc!r}")


def run_around(name: str, enter: Callable[[], Any], leave: Callable[[Any], None]) -> None:
    """Run ``name``'s module code, at its first import, between ``enter()`` and
    ``leave(what enter returned)`` (``leave`` also when the import raises). Nothing for a
    module already imported."""
    with _lock:
        if name in sys.modules:
            return
        _around[name] = (enter, leave)
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)


def when_imported(name: str, callback: Callback) -> None:
    """Call ``callback(module)`` once ``name`` has been imported (now, if it already is)."""
    with _lock:
        module = sys.modules.get(name)
        if module is None:
            _pending.setdefault(name, []).append(callback)
            if _finder not in sys.meta_path:
                sys.meta_path.insert(0, _finder)
            return
    _run([callback], module)
