"""Dicts the plugin hands to pydevd as a row's value, made safe to expand.

pydevd expands a dict by itself and writes each child's expression as
``parent[<repr of the key>]``: a key of a ``str`` subclass (or any class of the program's)
puts its own ``__repr__`` into that expression, which runs when the row is added to Watch.
Where the plugin shows such a dict (an attribute, a config, a loss's keyword arguments),
it is shown by this view instead: keys written from exact copies (``expressions.item``),
rows without an expression where a key is no ``str`` or ``int``.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from . import expressions
from . import formatting as fmt
from .view_model import Child, Node

# pydevd lists the first 300 items of a dict; a key past them is never written.
LISTED = 300
_PLAIN_KEYS = (str, int, float, bool, bytes, type(None))


def needs_view(value: Any) -> bool:
    """Is ``value`` a dict that pydevd would expand with a key's own code in an expression:
    a key of a subclass of ``str``, ``int``, … (its ``__repr__`` can pass for a literal), or
    a tuple holding one? Keys of other classes (Keras's dicts keyed by layers) stay
    pydevd's: their reprs are no expression pydevd could evaluate anyway."""
    if not isinstance(value, dict):
        return False
    try:
        return any(_disguised(key) for key in islice(value, LISTED + 1))
    except Exception:  # a dict subclass whose iteration fails: pydevd's own view
        return False


def _disguised(key: Any) -> bool:
    if type(key) is tuple:
        return any(_disguised(part) for part in key)
    return isinstance(key, _PLAIN_KEYS) and type(key) not in _PLAIN_KEYS


def _key_text(key: Any, index: int) -> str:
    plain = expressions.literal(key)
    if plain is not None:
        return plain
    if type(key) in _PLAIN_KEYS:  # the interpreter's own repr: no program code
        return repr(key)
    return f"<{type(key).__name__} key {index}>"


def _key_expression(key: Any) -> str | None:
    found = expressions.item(key)  # exact str / int copies
    if found is None and type(key) in (bool, bytes, type(None)):
        found = f"[{key!r}]"
    return found


class KeyedDict(Node):
    """A dict whose keys include the program's own classes, keys quoted from exact copies."""

    def __init__(self, mapping: dict) -> None:
        self.mapping = mapping

    def summary(self) -> str:
        keys = [_key_text(key, i) for i, key in enumerate(islice(self.mapping, 4))]
        more = ", …" if len(self.mapping) > len(keys) else ""
        return fmt.clip(
            f"{type(self.mapping).__name__} of {fmt.count(len(self.mapping))} items: "
            f"keys {', '.join(keys)}{more}"
        )

    def children(self) -> list[Child]:
        return [
            Child(_key_text(key, i), value, _key_expression(key))
            for i, (key, value) in enumerate(islice(self.mapping.items(), LISTED))
        ]


def presented(value: Any) -> Any:
    """``value`` as the plugin hands it to a host: a dict with such keys as a ``KeyedDict``."""
    return KeyedDict(value) if needs_view(value) else value
