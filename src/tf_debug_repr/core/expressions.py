"""Pieces of expressions built from debuggee text: checked names and quoted literals only.

Rows' expressions are evaluated in the user's frame when added to Watch, copied or viewed,
so a name or key taken from the program (an attribute set with ``setattr``, a dict key, a
weight's path) must never become code. Names go in as ``.name`` only when they are plain
identifiers (not keywords); otherwise through ``getattr(parent, 'name')``. Literals are the
repr of an exact ``str`` or ``int`` copy, so a ``str`` subclass's own ``__repr__``,
``__format__`` or ``isidentifier`` never runs. ``checked`` is the last net the adapter puts
every expression through.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
from collections.abc import Callable
from typing import Any

# What a suffix or expression function is written on when checked: any plain name will do.
PLACEHOLDER = "__tf_debug_repr_parent__"


def plain_str(value: Any) -> str | None:
    """An exact ``str`` copy of a ``str`` (a subclass's methods never run), else None."""
    return str.__str__(value) if isinstance(value, str) else None


def identifier(name: Any) -> str | None:
    """``name`` as an exact ``str`` where ``.name`` reaches it: an identifier, no keyword."""
    text = plain_str(name)
    if text is None or not str.isidentifier(text) or keyword.iskeyword(text):
        return None
    return text


def literal(value: Any) -> str | None:
    """Python source for an exact copy of a ``str`` or ``int`` (not bool); None otherwise.
    ``@`` is written ``\\x40``, so pydevd's ``@LINE@`` never cuts the literal."""
    text = plain_str(value)
    if text is not None:
        # pydevd turns ``@LINE@`` anywhere in an evaluated expression into a line break.
        return repr(text).replace("@", "\\x40")
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__repr__(value)
    return None


def attribute(name: Any) -> str | Callable[[str], str] | None:
    """The suffix ``.name``, or ``getattr(parent, 'name')`` where ``name`` is no identifier,
    or None where it is no string at all."""
    plain = identifier(name)
    if plain is not None:
        return f".{plain}"
    quoted = literal(plain_str(name))
    if quoted is None:
        return None
    return lambda parent: f"getattr({parent}, {quoted})"


def attribute_of(root: str, name: Any) -> str | None:
    """``root.name`` or ``getattr(root, 'name')``; None where ``name`` is no string."""
    suffix = attribute(name)
    if suffix is None:
        return None
    return suffix(root) if callable(suffix) else root + suffix


def item(key: Any) -> str | None:
    """The suffix ``['key']`` or ``[3]`` for a str or int key; None for any other key."""
    quoted = literal(key)
    return None if quoted is None else f"[{quoted}]"


# ------------------------------------------------------------------ the last net

# Builtins that do something when called or named, beyond reading a value.
_FORBIDDEN_NAMES = frozenset(
    {
        "__builtins__",
        "breakpoint",
        "compile",
        "delattr",
        "eval",
        "exec",
        "exit",
        "globals",
        "help",
        "input",
        "locals",
        "open",
        "print",
        "quit",
        "setattr",
        "vars",
    }
)
# Attributes that lead from any object to modules, code or the interpreter's internals.
_FORBIDDEN_ATTRIBUTES = frozenset(
    {
        "__builtins__",
        "__closure__",
        "__code__",
        "__globals__",
        "__import__",
        "__loader__",
        "__subclasses__",
        "f_builtins",
        "f_globals",
        "f_locals",
        "gi_frame",
        "tb_frame",
    }
)
# The only modules an expression of the plugin imports (each already imported by then:
# math with Python, TF and numpy by the program that holds the value).
_IMPORTABLE = frozenset({"math", "numpy", "tensorflow", "tf_debug_repr", "tf_debug_repr._expr"})


def _import_ok(node: ast.Call) -> bool:
    if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
        return False
    if node.args[0].value not in _IMPORTABLE:
        return False
    return all(k.arg == "fromlist" and isinstance(k.value, ast.List) for k in node.keywords)


def _getattr_ok(node: ast.Call) -> bool:
    """``getattr(x, 'name')`` with a constant name that is no way out (``__globals__``)."""
    if len(node.args) < 2 or not isinstance(node.args[1], ast.Constant):
        return False
    return node.args[1].value not in _FORBIDDEN_ATTRIBUTES


def _calls(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


# Texts checked before, and their verdicts: a stop's rows write the same few hundred texts
# (``PLACEHOLDER[0:10000]``, ``PLACEHOLDER.dtype``, …) at every stop, and a parse and walk
# of each took ~40 µs (a 10^6 variable's 110 rows: ~4 ms a request). Only exact ``str``s of
# at most ``_REMEMBERED_LENGTH`` characters are kept: a verdict depends on nothing else.
_REMEMBERED = 4096
_REMEMBERED_LENGTH = 256


def expression_ok(text: str) -> bool:
    """True where ``text`` is one expression (no statement: pydevd would ``exec`` what does
    not parse as one) that imports only the plugin or numpy and names no builtin that acts."""
    if type(text) is str and len(text) <= _REMEMBERED_LENGTH:
        return _remembered_verdict(text)
    return _verdict(text)


@functools.lru_cache(maxsize=_REMEMBERED)
def _remembered_verdict(text: str) -> bool:
    return _verdict(text)


# A name and integer indices or slices (``PLACEHOLDER[0:10000]``, ``x[3, -1]``): most element
# and range rows' texts, first seen at a stop's first look, where each parse and walk cost
# ~30 µs a row. Their verdict is the walk's: the name's alone. (ASCII names and integers as
# Python writes them: ``x[007]`` or ``x²[0]`` do not parse, and go the whole way.)
_INDEXED = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*)"
    r"(?:\[-?(?:0|[1-9][0-9]*)(?::-?(?:0|[1-9][0-9]*))?"
    r"(?:, -?(?:0|[1-9][0-9]*)(?::-?(?:0|[1-9][0-9]*))?)*\])+"
)


def _verdict(text: str) -> bool:
    indexed = _INDEXED.fullmatch(text)
    if indexed is not None and not keyword.iskeyword(indexed.group(1)):
        return indexed.group(1) not in _FORBIDDEN_NAMES
    return _parsed_verdict(text)


def _parsed_verdict(text: str) -> bool:
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _FORBIDDEN_NAMES:
            return False
        if isinstance(node, ast.Attribute) and node.attr in _FORBIDDEN_ATTRIBUTES:
            return False
        if _calls(node, "__import__") and not _import_ok(node):  # type: ignore[arg-type]
            return False
        if _calls(node, "getattr") and not _getattr_ok(node):  # type: ignore[arg-type]
            return False
        if isinstance(node, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
            return False
    return True


def checked(expression: Any) -> Any:
    """``expression`` (a suffix, a function of the parent's expression, or None) where what
    it writes passes ``expression_ok`` on a placeholder parent; None otherwise."""
    if expression is None:
        return None
    try:
        if isinstance(expression, str):
            text = PLACEHOLDER + plain_str(expression)  # type: ignore[operator]
            expression = plain_str(expression)
        elif callable(expression):
            text = expression(PLACEHOLDER)
            if not isinstance(text, str):
                return None
        else:
            return None
    except Exception:  # an expression function that fails on a plain name: no expression
        return None
    return expression if expression_ok(text) else None
