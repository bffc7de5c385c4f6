"""An object's own Python attributes, as stock debugpy lists them, after the structured
rows of a view that shows an object by its parts (Keras layers and models, ``tf.Module``).

Stock pydevd lists every name of ``dir(obj)`` read with ``getattr``. Here the same names,
less two kinds: methods and classes defined on the class (pydevd puts those in groups of
their own, and calling them is the console's job), and attributes the structured rows
already show. Each attribute is its real value, so the plugin's own view presents it.

Private and special attributes (``_x``, ``__x__``) are one expansion away, in a
``private attributes`` row of their own: pydevd's default shows ``_x`` inline (some
seventy Keras internals on every model), and would put its "special variables" group
above the structured rows. Inside that row pydevd groups the special ones as usual.

Reading a property runs the object's code: every read is guarded (run as an observer, off
every tape and outside any graph being traced). An attribute whose read raises (a Keras
layer's ``input`` before it is called in a functional graph, Keras 3's
``distribute_reduction_method``) is no value: it is kept, as stock debugpy keeps it, but in
one trailing group of its own, ``raise when read (N)``, as the exception's one line (type
and message). The main list and the ``private attributes`` row hold only values that read.
"""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from ..core import bounded, expressions
from ..core.guards import harmless
from ..core.tf_types import Kind, kind_of
from ..core.view_model import FACADE, Child, Expression, Node, Note, call, error_note

_MISSING: Any = object()
_RAISED_CHARS = 200


@dataclass(frozen=True)
class Attribute:
    """One attribute as read: its name and value (a ``Note`` when reading raised)."""

    name: str
    value: Any

    @property
    def public(self) -> bool:
        return not self.name.startswith("_")

    @property
    def special(self) -> bool:
        return self.name.startswith("__") and self.name.endswith("__")


def expression(name: str) -> Expression:
    """``.name`` where plain attribute access reaches it, else ``getattr(x, 'name')`` with
    the name as a literal (never debuggee text pasted into code)."""
    return expressions.attribute(name)


@dataclass(frozen=True)
class Raised(Note):
    """What reading an attribute raised: the exception's one line, ``AttributeError: …``."""


def raised_note(exc: BaseException) -> Raised:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    if len(text) > _RAISED_CHARS:
        text = text[: _RAISED_CHARS - 1] + "…"
    return Raised(text)


def _raised(attribute: Attribute) -> bool:
    return isinstance(attribute.value, Raised)


def _names(obj: Any, instance: dict) -> list[str]:
    try:
        names = dir(obj)
    except Exception:  # a broken __dir__: the instance's own attributes at least
        names = sorted(instance)
    return [name for name in names if type(name) is str]


def _instance_dict(obj: Any) -> dict:
    try:
        found = vars(obj)
    except Exception:  # no __dict__ (slots), or a __dict__ property that raises
        return {}
    return found if isinstance(found, dict) else {}


def _is_code(static: Any) -> bool:
    """A method or class defined on the class: pydevd's function/class groups, not data."""
    if isinstance(static, (staticmethod, classmethod, type)):
        return True
    try:
        return inspect.isroutine(static)
    except Exception:
        return False


def _getattr(obj: Any, name: str) -> Any:
    # Keras 2 warns on reading deprecated properties (``Model.state_updates``): the
    # debugger's look must not print into the program's output.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with harmless():
            return getattr(obj, name)


def _plain_read(obj: Any, name: str, instance: dict) -> bool:
    """Is ``obj.name`` the instance's own value, read without running the program's code
    (no ``__getattribute__`` of its own, no data descriptor on the class)?"""
    cls = type(obj)
    if name not in instance or cls.__getattribute__ is not object.__getattribute__:
        return False
    static = _static(cls, name)
    return static is _MISSING or not hasattr(type(static), "__set__")


def read_attributes(obj: Any, skip: Collection[str] = ()) -> list[Attribute]:
    """The data attributes pydevd would list, in ``dir`` order, each read once; ``skip``
    names are never read (a property that would change the object: a checkpoint's
    ``save_counter`` creates its variable). The reads that run the program's code
    (properties, ``__getattr__``) are made on one worker, one after another
    (``bounded.call_each``): one hand-off for all, and a property that hangs still costs
    its own row alone."""
    cls = type(obj)
    found: dict[str, Attribute] = {}
    read: set[str] = set(skip)
    with harmless():
        # Twice: reading a property may set an attribute (a TF object's first
        # ``_self_setattr_tracking``); the list shown then is the one a later read gives.
        for _ in range(2):
            instance = _instance_dict(obj)
            names = [name for name in _names(obj, instance) if name not in read]
            read.update(names)
            wanted = [(name, _static(cls, name)) for name in names]
            wanted = [(n, st) for n, st in wanted if _wanted(n, st, instance)]
            values = _read_all(obj, [n for n, _ in wanted], instance)
            for (name, static), value in zip(wanted, values):
                attribute = _attribute_of(name, static, value, instance)
                if attribute is not None:
                    found[name] = attribute
        # A property read later may have set an attribute read earlier (Keras's
        # ``jit_compile`` sets ``_jit_compile``): the instance's own values as they are now.
        instance = _instance_dict(obj)
        for name in found:
            if _plain_read(obj, name, instance):
                found[name] = Attribute(name, instance[name])
    return sorted(found.values(), key=lambda a: a.name)  # dir's order


def _wanted(name: str, static: Any, instance: dict) -> bool:
    """Is the attribute read at all? Not a method or class defined on the class (pydevd's
    function and class groups), unless the instance holds one of that name or it is a
    ``tf.function`` (a value of its own)."""
    if kind_of(static) in _FUNCTIONS:
        return True
    return not (_is_code(static) and name not in instance)


def _read_all(obj: Any, names: list[str], instance: dict) -> list[Any]:
    """``_read`` of each name: the instance's own values here, the rest in one bounded
    batch."""
    values: list[Any] = [_MISSING] * len(names)
    bounded_at = []
    for i, name in enumerate(names):
        if _plain_read(obj, name, instance):  # no code of the program runs: read it here
            values[i] = instance[name]
        else:
            bounded_at.append(i)
    calls = [(_getattr, (obj, names[i]), f"reading .{names[i]}") for i in bounded_at]
    for i, (ok, value) in zip(bounded_at, bounded.call_each(calls)):
        if ok:
            values[i] = value
        elif isinstance(value, bounded.TimedOut):  # a property that hangs: its row says so
            values[i] = error_note(value)
        elif isinstance(value, Exception):  # a property that raises: that one row says so
            values[i] = raised_note(value)
        else:  # KeyboardInterrupt, SystemExit: as a read in place would
            raise value
    return values


def _attribute_of(name: str, static: Any, value: Any, instance: dict) -> Attribute | None:
    if kind_of(static) in _FUNCTIONS:  # a tf.function on the class: a value of its own
        return Attribute(name, value)
    method = _is_code(static)
    if _is_code(value) and (method or name not in instance) and kind_of(value) not in _FUNCTIONS:
        # a method: bound on the instance (Keras wraps ``build`` so), or read through a
        # class-level descriptor
        return None
    return Attribute(name, value)


def _static(obj: Any, name: str) -> Any:
    try:
        return inspect.getattr_static(obj, name)
    except Exception:  # dynamic (__getattr__) names: read like the rest
        return _MISSING


def holders(attributes: list[Attribute]) -> dict[int, str]:
    """``id(value) -> name`` of the first public attribute holding each value: a structured
    row showing that value can use ``.name`` as its expression."""
    found: dict[int, str] = {}
    for attribute in attributes:
        name = expressions.identifier(attribute.name)
        if attribute.public and name is not None:
            found.setdefault(id(attribute.value), name)
    return found


def attribute_rows(
    owner: Any,
    attributes: list[Attribute],
    covered: Collection[str] = (),
    shown: dict[int, str] | None = None,
) -> list[Child]:
    """Rows for the attributes the structured rows do not show: public ones, then a
    ``private attributes`` row holding the ``_x`` and ``__x__`` ones, then a ``raise when
    read (N)`` row holding those whose read raised. ``covered`` names are shown by the
    structured rows as a whole; ``shown`` maps a value a structured row shows to the
    attribute name that row's expression uses."""
    shown = shown or {}
    read = [a for a in attributes if not _raised(a)]
    kept = [a for a in read if a.name not in covered and shown.get(id(a.value)) != a.name]
    rows = [_row(a, expression(a.name)) for a in kept if a.public]
    # every private one, as the row's expression (``private_attributes(x)``) lists them
    private = [a for a in read if not a.public]
    if private:
        node = PrivateAttributes(owner, private, {a.name for a in attributes})
        rows.append(Child("private attributes", node, call(PRIVATE + "({})")))
    raised = [a for a in attributes if _raised(a)]
    if raised:
        group = RaisedAttributes(raised)
        rows.append(Child(group.row_name(), group, call(RAISED + "({})")))
    return rows


def _row(attribute: Attribute, expression: Expression) -> Child:
    if isinstance(attribute.value, Note):
        expression = None  # the adapter gives a line of text its own literal
    return Child(attribute.name, attribute.value, expression)


def guarded(name: str, read: Callable[[], Any], expression: Expression = None) -> Child:
    """A row whose value is read when shown, as an observer; a read that raises is a
    placeholder for this one row (the adapter's), never for its siblings."""

    def compute() -> Any:
        with harmless():
            return read()

    return Child(name, compute=compute, expression=expression)


def guarded_rows(obj: Any, table: tuple[tuple[str, str], ...]) -> list[Child]:
    """One ``guarded`` row per (label, attribute name) of ``table``: the attribute, read
    when shown, with ``.name`` as its expression (the names are the plugin's own)."""
    return [
        guarded(label, lambda attr=attr: getattr(obj, attr), f".{attr}")  # type: ignore[misc]
        for label, attr in table
    ]


PRIVATE = f"{FACADE}.private_attributes"
RAISED = f"{FACADE}.raised_attributes"
RAISED_GROUP = "raise when read"  # the group's name starts so (checked by the real-program walk)
_NAMES_LISTED = 4


class RaisedAttributes(Node):
    """The attributes whose read raised, public ones first, each as the exception's line.
    A row's expression is its line itself (the adapter's literal for a Note): the
    attribute's own expression would raise, not give what the row shows."""

    def __init__(self, attributes: list[Attribute]) -> None:
        self.attributes = sorted(attributes, key=lambda a: (not a.public, a.special, a.name))

    def row_name(self) -> str:
        return f"{RAISED_GROUP} ({len(self.attributes)})"

    def summary(self) -> str:
        names = [a.name for a in self.attributes[:_NAMES_LISTED]]
        more = ", …" if len(self.attributes) > _NAMES_LISTED else ""
        noun = "attribute" if len(self.attributes) == 1 else "attributes"
        return f"{len(self.attributes)} {noun}: {', '.join(names)}{more}"

    def children(self) -> list[Child]:
        return [Child(a.name, a.value) for a in self.attributes]


def raised_attributes(obj: Any) -> RaisedAttributes:
    """What the ``raise when read (N)`` row's expression evaluates to (every read again)."""
    return RaisedAttributes([a for a in read_attributes(obj) if _raised(a)])


class PrivateAttributes(Node):
    """An object's ``_x`` attributes, as read when its parent was expanded."""

    def __init__(self, owner: Any, given: list[Attribute], seen: Collection[str] = ()) -> None:
        self.owner = owner
        self.given = given
        self.seen = frozenset(seen) | {a.name for a in given}  # every name the parent read
        self._found: list[Attribute] | None = None

    @property
    def attributes(self) -> list[Attribute]:
        """The parent's private attributes, and any the instance got since (a sibling row
        computed after the parent's read may set one: a loaded SavedModel object's), read
        from its ``__dict__`` (no code runs) when first shown; special ones last (pydevd
        groups them anyway, and their names say little)."""
        if self._found is None:
            added = [
                Attribute(name, value)
                for name, value in own_values(self.owner)
                if isinstance(name, str) and name.startswith("_") and name not in self.seen
            ]
            given = [a for a in self.given if not _raised(a)]  # their own group has those
            self._found = sorted(given + added, key=lambda a: a.special)
        return self._found

    def summary(self) -> str:
        names = [a.name for a in self.attributes[:_NAMES_LISTED]]
        more = ", …" if len(self.attributes) > _NAMES_LISTED else ""
        return f"{len(self.attributes)} attributes: {', '.join(names)}{more}"

    def children(self) -> list[Child]:
        return [_row(a, _owner_expression(a.name)) for a in self.attributes]


def private_attributes(obj: Any) -> PrivateAttributes:
    """What the ``private attributes`` row's expression evaluates to."""
    return PrivateAttributes(obj, [a for a in read_attributes(obj) if not a.public])


def _owner_expression(name: str) -> Expression:
    """``self._x`` from the row's parent expression ``…private_attributes(self)``."""
    own = expression(name)
    if own is None:
        return None

    def on(parent: str) -> str:
        prefix = PRIVATE + "("
        if parent.startswith(prefix) and parent.endswith(")"):
            owner = parent[len(prefix) : -1]
        else:  # reached some other way: no owner expression to give
            owner = f"({parent}).owner"
        return own(owner) if callable(own) else owner + own

    return on


def own_values(obj: Any) -> list[tuple[str, Any]]:
    """The instance's own attributes, read without running any of its code (no properties)."""
    return list(_instance_dict(obj).items())


def distinct(rows: list[Child], attribute_rows: list[Child]) -> list[Child]:
    """``rows + attribute_rows``, every name once (PyCharm looks rows up by name): an
    attribute keeps its name, and a structured row of the same name (a Normalization's
    weight ``mean`` beside its attribute ``mean``) is named by its path or its role."""
    taken = {row.name for row in attribute_rows}
    return [renamed(row) if row.name in taken else row for row in rows] + attribute_rows


def renamed(row: Child) -> Child:
    """``row`` named by its path (a variable's) or its role, for a name an attribute takes."""
    value = row.value
    if kind_of(value) in _VARIABLE_KINDS:
        path = getattr(value, "path", None)
        if isinstance(path, str) and path and path != row.name:
            return dataclasses.replace(row, name=path)
    return dataclasses.replace(row, name=f"{row.name} (view)")


_FUNCTIONS = (Kind.FUNCTION, Kind.CONCRETE_FUNCTION)
_VARIABLE_KINDS = (Kind.VARIABLE, Kind.KERAS_VARIABLE, Kind.MIRRORED, Kind.SYNC_ON_READ)


def with_attributes(
    obj: Any, rows: list[Child], covered: Collection[str] = (), shown: dict[int, str] | None = None
) -> list[Child]:
    """A view's structured ``rows``, then every attribute of ``obj`` they do not show, as
    for layers: what an object shown by its facts (an optimizer, a metric, a loss) holds
    besides them stays reachable, as stock debugpy showed it."""
    attributes = read_attributes(obj)
    return distinct(rows, attribute_rows(obj, attributes, covered, shown))
