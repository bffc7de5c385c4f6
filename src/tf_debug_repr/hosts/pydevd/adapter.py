"""The thin layer between pydevd and the views: maps pydevd's calls onto ``views`` and
turns every error into a short visible placeholder.

pydevd disables a string provider for a whole session after its first exception, and
shows one ``<error>`` child in place of an expansion that raised, so nothing here may
raise. Imported only when the plugin module registers (``activation.startup.register``;
never by library code: a pydev* module in
``sys.modules`` before debugpy starts breaks debugpy's own plugins).
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import sys
from types import FrameType
from typing import Any

from ...core import collector, debugger, expressions, time_budget
from ...core.bounded import TimedOut
from ...core.containers import container_kind
from ...core.tf_types import kind_of
from ...core.view_model import (
    SHORT_TEXT_DTYPES,
    Child,
    CutBytes,
    Expression,
    Node,
    Note,
    Scalar,
    error_note,
)
from . import client as debugger_client

# VS Code renders at most 1,024 characters; the console gets a few lines more.
_MAX_CONSOLE_CHARS = 20_000


_loaded_views: Any = None


def _views():
    # Imported on first use, not at debugger start: it pulls in numpy (~0.2 s), which a
    # program that never imports TensorFlow should not pay for. Kept once imported: the
    # relative import's machinery cost ~3 µs per call, and a 10^6 variable's expansion
    # makes ~110 calls (each row's line and each ``can_provide``).
    global _loaded_views
    if _loaded_views is None:
        from ... import views

        _loaded_views = views
    return _loaded_views


def _handles(type_object: type) -> bool:
    debugger_client.mark_seen()  # a client is looking: gradient capture may start (activation)
    if "tensorflow" not in sys.modules and "keras" not in sys.modules:
        return False  # no TF value (nor any node of ours) can exist yet; skip loading the views
    return _views().handles(type_object)


# Lists, tuples and dicts, and TF's and Keras's tracking containers (``core.containers``),
# get a string only when they hold TF values (None otherwise, and pydevd then shows them as
# usual); their children stay pydevd's.


def _container_summary(obj: Any) -> str | None:
    if "tensorflow" not in sys.modules and "keras" not in sys.modules:
        return None
    try:
        with _one_look():  # a list of layers: each one's global norm
            return _views().container_summary(obj)
    except Exception as exc:
        _debug(f"summary of a {type(obj).__name__} failed: {exc!r}")
        return None


def _debug(message: str) -> None:
    if os.environ.get("TF_DEBUG_REPR_DEBUG"):
        sys.stderr.write(f"tf-debug-repr: {message}\n")


# ------------------------------------------------------------------ pydevd's leaves
# pydevd decides "leaf or expandable" and the type column from a value's class: Python
# numbers and strings are leaves, and the type column is the class's __name__. So the
# views' plain Notes and Scalars are handed over as str / float subclasses.


class _NoteLeaf(str):
    """A Note for pydevd: a ``str`` (so a leaf) that our string provider shows bare."""

    __slots__ = ()


_NoteLeaf.__name__ = _NoteLeaf.__qualname__ = "Note"  # the type column says "Note"


# JupyterLab's debugger tree prints a row's value only when its type is int, float, bool
# or str (the type name otherwise: "shape: Note", "stats: StatsNode"), and strips one
# character from each end of a str's value (pydevd marks str values rawString). In a
# Jupyter kernel our rows are therefore typed "str" (their value quoted) or "float".
class _TextLeaf(_NoteLeaf):
    __slots__ = ()


_TextLeaf.__name__ = _TextLeaf.__qualname__ = "str"


class _BytesLeaf(_NoteLeaf):
    """A long string element's head and length (``CutBytes``): typed ``bytes``, as a short
    element's value is."""

    __slots__ = ()


_BytesLeaf.__name__ = _BytesLeaf.__qualname__ = "bytes"
_LEAVES = (_NoteLeaf, _TextLeaf, _BytesLeaf)
_text_typed: dict[type, type] = {}  # a Node class -> its subclass named "str"


def jupyter_tree() -> bool:
    """Is the client JupyterLab's debugger? Decided by the DAP client's name, not by the
    ipykernel around pydevd: VS Code's notebook debugger is ipykernel + debugpy too, and
    its Variables pane prints any type. Cheap (a string compare)."""
    return debugger_client.client_id() == "jupyterlab"


def _text_typed_node(node: Node) -> Any:
    """A copy of one of our nodes whose class is named "str": still expandable (our
    resolver handles it as the node), its summary printed by the JupyterLab tree."""
    cls = type(node)
    alias = _text_typed.get(cls)
    if alias is None:
        alias = _text_typed[cls] = type("str", (cls,), {"_tf_debug_repr_text_typed": True})
    twin = copy.copy(node)
    twin.__class__ = alias
    return twin


def is_text_typed(obj: Any) -> bool:
    return type(obj) is _TextLeaf or getattr(type(obj), "_tf_debug_repr_text_typed", False)


_named_floats: dict[tuple[str, str], type] = {}


def _named_float(scalar: Scalar, name: str) -> float:
    """A ``float`` (a leaf) whose class name, the type column, is ``name`` (the dtype's,
    or "float" for JupyterLab) and whose repr is the dtype's own text."""
    cls = _named_floats.get((scalar.dtype, name))
    if cls is None:

        def text(self: float) -> str:
            return Scalar(float(self), scalar.dtype).text

        cls = _named_floats[(scalar.dtype, name)] = type(
            name, (float,), {"__slots__": (), "__repr__": text, "__str__": text}
        )
    return cls(scalar.value)


# What JupyterLab's tree does with a leaf's value, by its DAP type (its ``convertType``,
# packages/debugger/src/panels/variables): ``int`` through ``parseInt``, ``float`` through
# ``parseFloat`` (``parseFloat('-inf')`` and ``('nan')`` are NaN; 4.3 and later special-case
# 'inf' and '-inf' only), ``bool`` and ``str`` as text, and any other type's *name* in
# place of the value (``None`` reads "NoneType", a complex "complex", bytes "bytes").
# JavaScript numbers hold integers exactly up to 2**53 only.
_JS_EXACT_INT = 2**53
_SHOWN_AS_TYPE_NAME = (type(None), complex, bytes, bytearray, type(Ellipsis))


def _printed_by_jupyterlab(value: Any) -> bool:
    """Does JupyterLab's tree print this leaf's value as Python writes it?"""
    kind = type(value)
    if kind is bool or kind is str:
        return True
    if kind is int:
        return -_JS_EXACT_INT <= value <= _JS_EXACT_INT
    if kind is float:
        return math.isfinite(value)
    return False


def _jupyter_leaf(value: Any) -> Any:
    """For JupyterLab's tree: a leaf it would misprint (an infinite or NaN float, an int past
    2**53, None, a complex, bytes) as its Python text, typed "str"; anything else as is. Its
    row's expression still gives the value itself."""
    try:
        if isinstance(value, Scalar):  # an element: its dtype's text
            return None if _printed_by_jupyterlab(value.value) else _TextLeaf(value.text)
        kind = type(value)
        if kind in _SHOWN_AS_TYPE_NAME or (
            kind in (int, float) and not _printed_by_jupyterlab(value)
        ):
            return _TextLeaf(repr(value))
    except Exception:  # kept as pydevd would show it
        return None
    return None


def for_pydevd(value: Any) -> Any:
    """A view's value as pydevd should get it."""
    jupyter = jupyter_tree()
    if jupyter:
        leaf = _jupyter_leaf(value)
        if leaf is not None:
            return leaf
    if isinstance(value, Note):
        if jupyter:
            return _TextLeaf(value.text)
        return (_BytesLeaf if isinstance(value, CutBytes) else _NoteLeaf)(value.text)
    if isinstance(value, Scalar):
        if value.dtype in SHORT_TEXT_DTYPES and isinstance(value.value, float):
            return _named_float(value, "float" if jupyter else value.dtype)
        return value.value
    if jupyter and isinstance(value, Node):
        try:
            return _text_typed_node(value)
        except Exception:  # a node that cannot be copied keeps its own class name
            return value
    return value


def _literal(text: str) -> Expression:
    quoted = expressions.literal(text)  # an exact str's repr: no subclass __repr__ runs
    return None if quoted is None else (lambda _parent: quoted)


def _children(obj: Any) -> list[Child]:
    try:
        return _views().children(obj)
    except Exception as exc:
        _debug(f"children of {type(obj).__name__} failed: {exc!r}")
        return [Child("error", error_note(exc))]


def _content(child: Child) -> tuple[str, Any, Expression]:
    """One child as pydevd's (name, value, expression)."""
    try:
        value = child.resolve()
    except Exception as exc:  # only this child is lost
        _debug(f"child {child.name} failed: {exc!r}")
        value = error_note(exc)
    expression = child.expression
    if expression is None and isinstance(value, Note):
        # A line of text: its expression is the text itself, so Copy as Expression
        # and Add to Watch still give exactly what is shown.
        expression = _literal(value.text)
    # The last net: whatever a view wrote, nothing that does more than read reaches pydevd.
    expression = expressions.checked(expression)
    try:
        # a dict with keys of the program's classes: pydevd would write their reprs into
        # its children's expressions
        return child.name, for_pydevd(_views().presented(value)), expression
    except Exception as exc:
        _debug(f"child {child.name} failed: {exc!r}")
        return child.name, _NoteLeaf(str(error_note(exc))), expression


def _one_look() -> Any:
    """For one request: each compiled step's counter read once, however many gradient
    records its rows ask for (the program is suspended: no step runs meanwhile). Nothing
    to do, and nothing imported, where gradient capture was never loaded. And from a stop's
    first request on, no full garbage collection walks the program's objects during it
    (``core.collector``)."""
    _hold_collector()
    capture = sys.modules.get(_CAPTURE_MODULE)
    return contextlib.nullcontext() if capture is None else capture.one_look(_request())


def _hold_collector() -> None:
    if collector.paused():  # held for this stop already: every later call of its requests
        return
    try:
        collector.hold_during(debugger.suspension())
    except Exception as exc:  # a pydevd without the frames tracker: the collector as it is
        _debug(f"garbage collector not held: {exc!r}")


_CAPTURE_MODULE = __name__.rsplit(".hosts.", 1)[0] + ".gradients.capture"
# pydevd's functions that answer one DAP request on the suspended thread, each with the
# request as its ``request`` argument: Locals and expansions (each row's line is a call
# of its own), and an evaluation (a Watch, a hover, the console), whose expression runs
# before any line of its result is asked for.
_REQUEST_FUNCTIONS = frozenset({"internal_get_variable_json", "internal_evaluate_expression_json"})
_REQUEST_DEPTH = 24  # frames looked up from here: pydevd calls a provider ~6 frames down


def _request() -> Any:
    """The pydevd request this thread is answering (the ``request`` argument of one of
    ``_REQUEST_FUNCTIONS`` below on the stack), so that the calls pydevd makes for the
    rows of one Locals or expansion read the compiled steps' counters once for all, not
    once per row; None elsewhere (PyCharm's protocol, a notebook, a direct call): each
    call then reads them itself, as before."""
    try:
        frame: FrameType | None = sys._getframe(2)
        for _ in range(_REQUEST_DEPTH):
            if frame is None:
                return None
            if frame.f_code.co_name in _REQUEST_FUNCTIONS:
                request = frame.f_locals.get("request")
                # a DAP request object, never a value of the program
                return request if type(request).__module__.endswith("pydevd_schema") else None
            frame = frame.f_back
    except Exception:
        pass
    return None


def _contents(obj: Any) -> list[tuple[str, Any, Expression]]:
    with _one_look():
        return [_content(child) for child in _children(obj)]


def _summary(obj: Any, context: str | None) -> str:
    with _one_look():
        if context in ("hover", "repl", "clipboard"):
            # One value the user points at: exact figures, whatever the panes' time budget.
            with time_budget.exact():
                return _summary_in(obj, context)
        return _summary_in(obj, context)


def _summary_in(obj: Any, context: str | None) -> str:
    try:
        views = _views()
        if context in ("watch", "hover"):
            views.note_looked_at(obj)
        if context == "repl":
            text = views.console_text(obj)
            return text if len(text) <= _MAX_CONSOLE_CHARS else text[: _MAX_CONSOLE_CHARS - 1] + "…"
        if context == "clipboard":
            return views.clipboard_text(obj)
        return views.summary(obj)
    except Exception as exc:
        _debug(f"summary of {type(obj).__name__} failed: {exc!r}")
        head = type(obj).__name__
        # A tensor's shape and dtype, never a property of the program's own class (stock
        # debugpy would not call it), nor a remote tensor's that timed out (it waits on
        # its worker).
        # (guards imports numpy: only here, so that a program without TF loads neither)
        from ...core.guards import PLACED_KINDS

        if kind_of(obj) in PLACED_KINDS and not isinstance(exc, TimedOut):
            try:
                shape = getattr(obj, "shape", None)
                dtype = getattr(getattr(obj, "dtype", None), "name", None)
                shown = list(shape) if shape is not None else ""
                head = f"{head} {dtype or ''}{shown}".strip()
            except Exception:
                pass
        return f"{head} {error_note(exc)}"


class TensorResolveProvider:
    """pydevd ``TypeResolveProvider``: the children of TF values and of our own nodes."""

    def can_provide(self, type_object: type, type_name: str) -> bool:
        try:
            # A view's Note object is a leaf (it reaches pydevd as a str only through
            # for_pydevd, but a program may hold one itself).
            return _handles(type_object) and not issubclass(type_object, Note)
        except Exception as exc:  # pydevd's own view for this type
            _debug(f"type check of {type_name} failed: {exc!r}")
            return False

    # VS Code (DAP): children in order, each with its expression.
    def get_contents_debug_adapter_protocol(
        self, obj: Any, fmt: Any = None
    ) -> list[tuple[str, Any, Expression]]:
        return _contents(obj)

    # PyCharm / PyDev's XML protocol: the same children, by name. PyCharm wraps a
    # variable in ``VariableWithOffset(data, offset)`` when it pages a long level.
    def get_dictionary(self, obj: Any) -> dict[str, Any]:
        obj, offset = _unwrap_offset(obj)
        return {name: value for name, value, _ in _contents(obj)[offset:]}

    def resolve(self, obj: Any, attribute: str) -> Any:
        """One child by name (PyCharm asks for each level of a path ``x\t[3]\t[1]``):
        only that child's value is computed."""
        for child in _children(obj):
            if child.name == attribute:
                return _content(child)[1]
        return None


def _unwrap_offset(obj: Any) -> tuple[Any, int]:
    if type(obj).__name__ == "VariableWithOffset" and hasattr(obj, "data"):
        return obj.data, int(getattr(obj, "offset", 0) or 0)
    return obj, 0


class TensorStrProvider:
    """pydevd ``StrPresentationProvider``: the one-line value, per context."""

    def can_provide(self, type_object: type, type_name: str) -> bool:
        try:
            return (
                container_kind(type_object) is not None
                or type_object in _LEAVES
                or _handles(type_object)
            )
        except Exception as exc:  # pydevd's own text for this type
            _debug(f"type check of {type_name} failed: {exc!r}")
            return False

    def get_str(self, val: Any, do_trim: bool = True) -> str | None:
        # PyCharm's pydevd passes do_trim (it trims long values itself); debugpy and the
        # standalone pydevd pass the value alone. Our text is bounded either way.
        return self.get_str_in_context(val, None)

    def get_str_in_context(self, val: Any, context: str | None) -> str | None:
        if container_kind(type(val)) is not None:
            # The clipboard gets the containers' full repr, as stock does.
            return None if context == "clipboard" else _container_summary(val)
        # bare, without the quotes of a str's repr
        text = str.__str__(val) if type(val) in _LEAVES else _summary(val, context)
        if context is None and is_text_typed(val):
            return f"'{text}'"  # JupyterLab's tree strips one character from each end
        return text


def providers() -> dict[str, type]:
    """Register our classes with pydevd's extension API and return them by name, for the
    plugin module to expose (pydevd looks for them among that module's attributes)."""
    from _pydevd_bundle.pydevd_extension_api import StrPresentationProvider, TypeResolveProvider

    TypeResolveProvider.register(TensorResolveProvider)
    StrPresentationProvider.register(TensorStrProvider)
    return {"TensorResolveProvider": TensorResolveProvider, "TensorStrProvider": TensorStrProvider}
