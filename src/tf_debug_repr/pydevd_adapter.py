"""The thin layer between pydevd and the views: maps pydevd's calls onto ``views`` and
turns every error into a short visible placeholder.

pydevd disables a string provider for a whole session after its first exception, and
shows one ``<error>`` child in place of an expansion that raised, so nothing here may
raise. Imported only by the plugin module (never by library code: a pydev* module in
``sys.modules`` before debugpy starts breaks debugpy's own plugins).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from . import activation, debugger_client
from .view_model import Expression, Note, error_note

# VS Code renders at most 1,024 characters; the console gets a few lines more.
_MAX_CONSOLE_CHARS = 20_000


def _views():
    # Imported on first use, not at debugger start: it pulls in numpy (~0.2 s), which a
    # program that never imports TensorFlow should not pay for.
    from . import views

    return views


def _handles(type_object: type) -> bool:
    debugger_client.mark_seen()  # a client is looking: gradient capture may start (activation)
    if "tensorflow" not in sys.modules and "keras" not in sys.modules:
        return False  # no TF value (nor any node of ours) can exist yet; skip loading the views
    return _views().handles(type_object)


# Lists, tuples and dicts get a string only when they hold TF values (None otherwise, and
# pydevd then shows them as usual); their children stay pydevd's.
_CONTAINERS = (list, tuple, dict)


def _container_summary(obj: Any) -> str | None:
    if "tensorflow" not in sys.modules and "keras" not in sys.modules:
        return None
    try:
        return _views().container_summary(obj)
    except Exception as exc:
        _debug(f"summary of a {type(obj).__name__} failed: {exc!r}")
        return None


def _debug(message: str) -> None:
    if os.environ.get("TF_DEBUG_REPR_DEBUG"):
        sys.stderr.write(f"tf-debug-repr: {message}\n")


def _literal(text: str) -> Expression:
    return lambda _parent: repr(text)


def _contents(obj: Any) -> list[tuple[str, Any, Expression]]:
    try:
        children = _views().children(obj)
    except Exception as exc:
        _debug(f"children of {type(obj).__name__} failed: {exc!r}")
        return [("error", error_note(exc), None)]
    contents = []
    for child in children:
        try:
            value = child.resolve()
        except Exception as exc:  # only this child is lost
            _debug(f"child {child.name} failed: {exc!r}")
            value = error_note(exc)
        expression = child.expression
        if expression is None and isinstance(value, Note):
            # A line of text: its expression is the text itself, so Copy as Expression
            # and Add to Watch still give exactly what is shown.
            expression = _literal(str(value))
        contents.append((child.name, value, expression))
    return contents


def _summary(obj: Any, context: str | None) -> str:
    try:
        views = _views()
        if context == "repl":
            text = views.console_text(obj)
            return text if len(text) <= _MAX_CONSOLE_CHARS else text[: _MAX_CONSOLE_CHARS - 1] + "…"
        if context == "clipboard":
            return views.clipboard_text(obj)
        return views.summary(obj)
    except Exception as exc:
        _debug(f"summary of {type(obj).__name__} failed: {exc!r}")
        try:
            shape = getattr(obj, "shape", None)
            dtype = getattr(getattr(obj, "dtype", None), "name", None)
            head = f"{type(obj).__name__} {dtype or ''}{list(shape) if shape is not None else ''}".strip()
        except Exception:
            head = type(obj).__name__
        return f"{head} {error_note(exc)}"


class TensorResolveProvider:
    """pydevd ``TypeResolveProvider``: the children of TF values and of our own nodes."""

    def can_provide(self, type_object: type, type_name: str) -> bool:
        try:
            # Notes are leaves: leaving them to pydevd's ``str`` handling keeps them
            # unexpandable.
            return _handles(type_object) and not issubclass(type_object, Note)
        except Exception:
            return False

    def get_contents_debug_adapter_protocol(
        self, obj: Any, fmt: Any = None
    ) -> list[tuple[str, Any, Expression]]:
        return _contents(obj)

    # PyCharm / PyDev's older protocol: the same children, by name.
    def get_dictionary(self, obj: Any) -> dict[str, Any]:
        return {name: value for name, value, _ in _contents(obj)}

    def resolve(self, obj: Any, attribute: str) -> Any:
        for name, value, _ in _contents(obj):
            if name == attribute:
                return value
        return None


class TensorStrProvider:
    """pydevd ``StrPresentationProvider``: the one-line value, per context."""

    def can_provide(self, type_object: type, type_name: str) -> bool:
        try:
            return type_object in _CONTAINERS or _handles(type_object)
        except Exception:
            return False

    def get_str(self, val: Any) -> str | None:
        return self.get_str_in_context(val, None)

    def get_str_in_context(self, val: Any, context: str | None) -> str | None:
        if type(val) in _CONTAINERS:
            # The clipboard gets the containers' full repr, as stock does.
            return None if context == "clipboard" else _container_summary(val)
        return _summary(val, context)


def providers() -> dict[str, type]:
    """Register our classes with pydevd's extension API and return them by name, for the
    plugin module to expose (pydevd looks for them among that module's attributes)."""
    from _pydevd_bundle.pydevd_extension_api import StrPresentationProvider, TypeResolveProvider

    TypeResolveProvider.register(TensorResolveProvider)
    StrPresentationProvider.register(TensorStrProvider)
    activation.activate()
    return {"TensorResolveProvider": TensorResolveProvider, "TensorStrProvider": TensorStrProvider}
