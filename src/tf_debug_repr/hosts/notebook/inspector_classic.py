"""The classic Notebook's Variable Inspector (``jupyter_contrib_nbextensions``' ``varInspector``).

Its kernel code (``varInspector/var_list.py``, run in the user's namespace when its panel
opens) defines ``var_dic_list()``, which the panel runs after every cell
(``print(var_dic_list())``): one JSON list of rows (``varName``, ``varType``, ``varSize``,
``varShape``, ``varContent``) that its front end pastes into an HTML table as they are.
On TF values it fails: its ``_getcontentof`` never sets ``content`` for a value whose
``len()`` is 150 or less (``UnboundLocalError``: one tensor, or a short string, empties the
panel), a longer one is sliced (``x[:150]``, an op), sizes are ``sys.getsizeof``.

With ``%load_ext tf_debug_repr`` its functions are wrapped where they live, by the same
hook and with the same rows as the JupyterLab Inspector's (``inspector.row``: one rule
for both): TF values, Keras objects and containers of them get the plugin's row, the first
tensors of a container a row each (``grads[0]``); every other name goes through the
Inspector's own code, its ``_getcontentof`` guarded (the text it meant, or a placeholder
for that one row). The front end writes every field into HTML unescaped, so every
``varContent`` and ``varType`` is escaped here (debuggee text is data, never markup), and
an item row is only named by an int index (its name goes into the panel's ``del`` link).

Polling stays cheap where it can stay right: the row of an eager tensor (immutable), or of a
list, tuple or dict of them, is kept with the value it was made from and served again while
the same value (the same items) is under the same name. Variables, models, layers and
optimizers are read again at every refresh (see ``_state_key``).
"""

from __future__ import annotations

import html
import json
import sys
from typing import Any

from ...core.tf_types import Kind, kind_of

LIST = "var_dic_list"
CONTENT = "_getcontentof"
NAMES = "_nms"
# the names the Inspector's own code leaves out of its table
SKIPPED = frozenset({"_html", "_nms", "NamespaceMagics", "_Jupyter"})
FIELDS = ("varName", "varType", "varSize", "varShape", "varContent")
_MARK = "_tf_debug_repr_original"
# lines that say a cell is the Inspector's own script (var_list.py)
_SIGNATURE = ("def var_dic_list():", "_nms = NamespaceMagics()", "def _getcontentof(x):")
_REFRESH = "print(var_dic_list())"


class _Cache:
    """Rows kept between refreshes: name -> (the value, a key of its state, its row and
    its item rows)."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[Any, Any, list[dict[str, Any]]]] = {}

    def get(self, name: str, value: Any, key: Any) -> list[dict[str, Any]] | None:
        found = self.rows.get(name)
        if found is not None and found[0] is value and key is not None and found[1] == key:
            return found[2]
        return None


def _all_eager(values: list[Any]) -> bool:
    """Whether every value is an eager tensor, judged once per distinct type (~50 ns an item)."""
    seen: dict[type, Any] = {}
    for v in values:
        seen.setdefault(type(v), v)
    return bool(seen) and all(kind_of(v) is Kind.EAGER for v in seen.values())


def _state_key(value: Any, kind: Kind | None, kept: Any = None) -> Any:
    """What a row depends on, or None where it must be read again each time. An eager
    tensor never changes; a list, tuple or dict of eager tensors changes with its items
    (the same objects, in order, under the same keys: where they are the ones ``kept``
    holds, they were judged eager then and are not judged again). Everything else is read
    again each time (a variable's values change in place, an optimizer's iterations),
    except a Keras model or layer: its row shows counts and its latest gradient's mark, so
    it changes with its structure or the gradient records (``models.summary_key``: a Keras
    3 model's structure told without walking its weights; a compiled step's records are
    synced first)."""
    if kind is Kind.EAGER:
        return ()
    if kind is Kind.KERAS_LAYER:  # counts and its gradient's mark, never weights' values
        from ...views import models  # here: a Keras layer means TF is imported

        key = models.summary_key(value)
        return None if key is None else ("layer", key)
    if kind is None and type(value) in (list, tuple, dict):
        items = list(value.values()) if isinstance(value, dict) else list(value)
        keys = tuple(value) if isinstance(value, dict) else len(items)
        key = (keys, tuple(map(id, items)), _Held(items))
        if kept is not None and key == kept:
            return kept
        return key if _all_eager(items) else None
    return None


class _Held:
    """The items a container's key was made from, held so that no id in the key is reused
    by another object while the key is kept; equal to any other (only the ids compare)."""

    __slots__ = ("items",)

    def __init__(self, items: list[Any]) -> None:
        self.items = items

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Held)

    __hash__ = None  # type: ignore[assignment]


def _classic_row(row: dict[str, Any]) -> dict[str, Any]:
    out = {k: str(row.get(k, "")) for k in FIELDS}
    out["varType"] = html.escape(out["varType"], quote=False)
    out["varContent"] = html.escape(out["varContent"], quote=False)
    return out


def _content_text(x: Any) -> str:
    """What the Inspector's ``_getcontentof`` meant for a value with ``len()`` of 150 or less."""
    text = str(x)
    return text[:150] + " ..." if len(text) > 150 else text


def _wrap_content(original: Any) -> Any:
    def getcontentof(x: Any) -> str:
        try:
            text = original(x)
        except UnboundLocalError:  # its bug: len(x) <= 150 leaves `content` unset
            try:
                text = _content_text(x)
            except Exception as exc:
                text = f"(tf-debug-repr: {type(exc).__name__})"
        except Exception as exc:  # this one row says why; the others stand
            text = f"(tf-debug-repr: {type(exc).__name__})"
        return html.escape(str(text), quote=False)

    setattr(getcontentof, _MARK, original)
    return getcontentof


def _item_rows(rules: Any, containers: list[tuple[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The JupyterLab Inspector's item rows (``grads[0]``), int indices only: a row's name
    goes into the panel's ``del`` link as it is, where a quoted key would break it."""
    extra = rules._item_rows(containers)
    return {
        name: [r for r in rows if r["varName"].endswith("]") and r["varName"][-2:-1].isdigit()]
        for name, rows in extra.items()
    }


def _wrap_list(ns: dict, original: Any, rules: Any) -> Any:
    cache = _Cache()

    def var_dic_list() -> str:
        if "tensorflow" not in sys.modules and "keras" not in sys.modules:
            return original()
        magics = ns.get(NAMES)
        if magics is None:  # the Inspector's own helper is gone: its own answer
            return original()
        names = [n for n in magics.who_ls() if n not in SKIPPED]
        ours: dict[str, list[dict[str, Any]]] = {}  # a name's row and its item rows
        kept: dict[str, tuple[Any, Any, list[dict[str, Any]]]] = {}
        containers: list[tuple[str, Any]] = []
        others = []
        for name in names:
            value = ns.get(name)
            kept_before = cache.rows.get(name)
            try:
                kind = kind_of(value)
                key, same = None, False
                if kept_before is not None and kept_before[0] is value:
                    # kept last time: if its state is the same, it is still ours
                    key = _state_key(value, kind, kept_before[1])
                    same = key is not None and key == kept_before[1]
                mine = same or rules.is_ours(value)
                if mine and key is None:
                    key = _state_key(value, kind)
            except Exception:
                kind, mine, key = None, False, None
            if not mine:
                others.append(name)
                continue
            found = cache.get(name, value, key)
            if found is None:
                found = [_classic_row(rules._guarded_row(name, value))]
                if type(value) in (list, tuple, dict):
                    containers.append((name, value))
            ours[name] = found
            if key is not None:
                kept[name] = (value, key, found)
        for name, items in _item_rows(rules, containers).items():
            ours[name] += [_classic_row(r) for r in items]
        cache.rows = kept  # what left the namespace, or changed, is let go
        ns[NAMES] = rules._SomeNames(others)
        try:
            theirs = {r["varName"]: r for r in json.loads(original())}
        finally:
            ns[NAMES] = magics
        rows: list[dict[str, Any]] = []
        for n in names:
            if n in ours:
                rows += ours[n]
            elif n in theirs:
                rows.append(theirs[n])
        return json.dumps(rows)

    setattr(var_dic_list, _MARK, original)
    return var_dic_list


def wrap(ns: dict, rules: Any) -> bool:
    """Wrap the classic Inspector's functions in ``ns`` if they are there and not ours yet;
    ``rules``: the JupyterLab Inspector's module (``inspector``), whose rows these are (it
    imports this module, not the other way round)."""
    done = False
    for name, wrapper in ((CONTENT, _wrap_content), (LIST, lambda f: _wrap_list(ns, f, rules))):
        current = ns.get(name)
        if callable(current) and not hasattr(current, _MARK):
            ns[name] = wrapper(current)
            done = True
    return done


def unwrap(ns: dict) -> None:
    for name in (LIST, CONTENT):
        original = getattr(ns.get(name), _MARK, None)
        if original is not None:
            ns[name] = original


def needs_wrap(ns: dict) -> bool:
    current = ns.get(LIST)
    return current is not None and not hasattr(current, _MARK)


def transform(lines: list[str]) -> list[str]:
    """An input transformer: the Inspector's own script ends with ``print(var_dic_list())``,
    run before any post_execute hook could wrap it (so the panel's first table would be its
    error); in that script only, its functions are wrapped just before that line."""
    try:
        if len(lines) < 20 or not all(any(s in line for line in lines) for s in _SIGNATURE):
            return lines
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].strip() == _REFRESH:
                hook = (
                    "__import__('tf_debug_repr.hosts.notebook.inspector', fromlist=['_'])"
                    ".wrap_classic(globals())\n"
                )
                return [*lines[:i], hook, *lines[i:]]
    except Exception:
        pass
    return lines
