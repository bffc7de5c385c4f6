"""The JupyterLab Variable Inspector (``lckr_jupyterlab_variableinspector``), right for TF.

The Inspector runs a script in the kernel that defines ``_jupyterlab_variableinspector_*``
functions in the user's namespace, then calls ``…_dict_list()`` after each cell and
``…_getmatrixcontent(x, n)`` for its grid. On TF values it is wrong or blind: ``str()``
of a tensor copies it whole, sizes read 184 or ``?``, Keras objects are left out (their
``str`` starts with ``<``) and the grid raises.

We wrap those two functions where they live, in the user's namespace: TF values (and
lists of them) get their rows and grids from the plugin; every other name goes through the
Inspector's own code unchanged (it is asked about those names only). The Inspector injects
its script again when its panel opens and after a kernel restart, so a ``post_execute``
hook (which runs after silent cells too, as the injection is) wraps again whatever is new.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from itertools import islice
from typing import Any

from ...core.tf_types import Kind, kind_of
from . import facts

PREFIX = "_jupyterlab_variableinspector_"
LIST = PREFIX + "dict_list"
MATRIX = PREFIX + "getmatrixcontent"
NAMES = PREFIX + "nms"
_MARK = "_tf_debug_repr_original"

# The kinds the Inspector gets a row for from us; other TF objects (shapes, specs,
# functions) keep the Inspector's own handling, which is right for them.
LISTED = (
    *facts.DENSE,
    *facts.COMPOSITE,
    Kind.SYMBOLIC,
    Kind.KERAS_TENSOR,
    Kind.TENSOR_ARRAY,
    Kind.KERAS_LAYER,
    Kind.TF_MODULE,
    Kind.OPTIMIZER,
    Kind.METRIC,
    Kind.LOSS,
    Kind.LR_SCHEDULE,
    Kind.DATASET,
)
HISTORY = ("keras.src.callbacks.history", "History")
CONTENT_CHARS = 300  # the Inspector cuts its own at 150; a summary line gets a little more
# The grid: rows the Inspector asks for (100,000 by default), bounded in cells and columns
# so that a [4096, 4096] weight sends ~1 MB of JSON, not 400 MB.
MAX_CELLS = 100_000
MAX_COLUMNS = 1_000
_CONTAINERS = (list, tuple, dict)
# A list, tuple or dict of TF values of any length gets its row from us. Up to EXACT_ITEMS
# items every item's kind and bytes are read (metadata, ~1 µs an item: ~10 ms); a longer
# one is judged from SAMPLE_ITEMS items spread evenly over it (first and last included),
# its bytes estimated from theirs, and its row says so.
EXACT_ITEMS = 10_000
SAMPLE_ITEMS = 1_000
# Its first ITEM_ROWS tensors and variables also get a row each, named as the expression
# that reads them (``grads[0]``, ``layers["dense"]``): the Inspector's grid request
# evaluates the row's name, so their numbers open in the grid as any tensor's do.
ITEM_ROWS = 32
# Item rows get the plugin's summary (figures reduced on the device, ~1 ms each) for the
# first SUMMARISED_ITEMS of them in one query, all containers together; the others read
# their dtype, shape and device (metadata only), and their grid has their numbers.
SUMMARISED_ITEMS = 16
# Up to this many items a container's Content is the plugin's summary as the Variables pane
# has it; past it (where that summary reads every item's shape, ~6 µs each) its count and
# bytes come from what ``_container_items`` read and the shapes of its first items follow.
SUMMARY_ITEMS = 100
# The rows of a container's own grid (one per item, with its summary).
GRID_ITEMS = 1_000
_SAFE_KEY = re.compile(r"[A-Za-z0-9_.:/ -]{1,60}")


@dataclass
class Items:
    """What was read of a container of TF values: its length, the items looked at (all of
    them, or a sample), their total bytes (an estimate when sampled)."""

    length: int
    values: list[Any]
    sampled: bool
    nbytes: int | None


def _sample_positions(length: int) -> list[int]:
    if length <= EXACT_ITEMS:
        return list(range(length))
    step = (length - 1) / (SAMPLE_ITEMS - 1)
    return sorted({round(i * step) for i in range(SAMPLE_ITEMS)})


def _item_bytes(value: Any) -> int | None:
    # an eager tensor's count without building its TensorShape (0.3 µs, not 6)
    elements_of = getattr(value, "_num_elements", None)
    if callable(elements_of) and kind_of(value) is Kind.EAGER:
        try:
            return int(elements_of()) * int(value.dtype.size)
        except Exception:
            pass
    return facts.value_bytes(value)


def _container_items(obj: Any, sized: bool = True) -> Items | None:
    """The items of a list, tuple or dict whose items are all TF values (``grads``), or
    all of those sampled; None for any other container. ``sized``: with their bytes."""
    if type(obj) not in _CONTAINERS or not obj:
        return None
    length = len(obj)
    positions = _sample_positions(length)
    if isinstance(obj, dict):
        if length <= EXACT_ITEMS:
            values = list(obj.values())
        else:
            everything = list(obj.values())  # a pointer copy: ~1 ms for 100,000
            values = [everything[i] for i in positions]
    else:
        values = list(obj) if length <= EXACT_ITEMS else [obj[i] for i in positions]
    if not all(kind_of(v) in LISTED for v in values):
        return None
    sizes = [_item_bytes(v) for v in values] if sized else [None]
    total: int | None = None
    if None not in sizes:
        total = sum(sizes)  # type: ignore[arg-type]
        if len(values) < length:
            total = round(total * length / len(values))
    return Items(length, values, len(values) < length, total)


def _is_history(obj: Any) -> bool:
    cls = type(obj)
    return (getattr(cls, "__module__", ""), cls.__name__) == HISTORY


def is_ours(obj: Any) -> bool:
    return (
        kind_of(obj) in LISTED or _is_history(obj) or _container_items(obj, sized=False) is not None
    )


# ------------------------------------------------------------------------------- rows


def _shape_text(obj: Any) -> str:
    found = facts.dims(obj)
    if found is None:
        return ""
    return " x ".join("?" if d is None else str(d) for d in found)  # the Inspector's way


def _dims_text(obj: Any) -> str:
    found = facts.dims(obj)
    return (
        "" if found is None else "[" + ", ".join("?" if d is None else str(d) for d in found) + "]"
    )


def _size_text(size: int | None) -> str:
    return "?" if size is None else str(size)


def _summary(obj: Any) -> str:
    from ... import views

    try:
        text = views.container_summary(obj) if type(obj) in _CONTAINERS else views.summary(obj)
    except Exception as exc:
        text = f"{type(obj).__name__} (summary failed: {type(exc).__name__})"
    text = facts.unnamed(str(text or ""))
    return text if len(text) <= CONTENT_CHARS else text[: CONTENT_CHARS - 1] + "…"


def _container_content(obj: Any, found: Items) -> str:
    """The plugin's summary of a container; past SUMMARY_ITEMS items (where it would read
    every item's shape), its count and bytes from ``found`` and the summary of its first items."""
    from ...core import formatting as fmt

    if found.length <= SUMMARY_ITEMS:
        return _summary(obj)
    first = dict(list(islice(obj.items(), 8))) if isinstance(obj, dict) else list(obj[:8])
    text = _summary(first)
    opening = "{" if isinstance(obj, dict) else "["
    text = text[text.index(opening) :] if opening in text else text
    closing = "}" if isinstance(obj, dict) else "]"
    if text.endswith(closing):
        text = text[:-1] + f", … {fmt.count(found.length - len(first))} more{closing}"
    if isinstance(obj, tuple):
        text = "(" + text[1:-1] + ")"
    size = "? bytes" if found.nbytes is None else fmt.bytes_text(found.nbytes)
    if found.sampled:
        size = f"~{size} (read from {fmt.count(len(found.values))} items spread over them)"
    kinds = {kind_of(v) for v in found.values}
    noun = "TF values"
    if kinds == {Kind.EAGER}:
        noun = "tensors"
    elif kinds <= {Kind.VARIABLE, Kind.KERAS_VARIABLE}:
        noun = "variables"
    head = f"{fmt.count(found.length)} {noun}, {size}: "
    return fmt.clip(head + text, CONTENT_CHARS)


def _history_facts(obj: Any) -> tuple[str, str]:
    history = getattr(obj, "history", None) or {}
    epochs = len(getattr(obj, "epoch", None) or [])
    last = []
    for key, values in list(history.items())[:6]:
        try:
            last.append(f"{key}={float(values[-1]):.4g}")
        except Exception:
            continue
    from ...core import formatting as fmt

    epochs_text = fmt.counted(epochs, "epoch")
    return epochs_text, f"History of {epochs_text}: " + " ".join(last)


def row(name: str, obj: Any, summary: bool = True) -> dict[str, Any]:
    """The Inspector's row for a value of ours: its class name as type, bytes as size,
    ``3 x 4`` (or parameters, variables, items) as shape, the plugin's summary as content."""
    kind = kind_of(obj)
    matrix = False
    if _is_history(obj):
        shape, content = _history_facts(obj)
        size: int | None = sys.getsizeof(obj)
    elif kind is None:  # a container of TF values
        found = _container_items(obj)
        if found is None:
            raise TypeError("not a container of TF values")
        size = found.nbytes
        shape, content, matrix = f"{found.length:,} items", _container_content(obj, found), True
    else:
        owned = facts.owner_facts(obj) if kind in facts.OWNERS else None
        size = facts.value_bytes(obj, kind) if owned is None else owned.nbytes
        if summary:
            content = _summary(obj)
        else:  # metadata only: what it is and where; the grid has its numbers
            where = facts.device(obj)
            content = f"{facts.dtype_name(obj)}{_dims_text(obj)}{' ' + where if where else ''}"
            content += " (figures: open its grid)"
        if owned is not None:
            count = len(owned.variables)
            if kind is Kind.OPTIMIZER or kind is Kind.METRIC:
                shape = f"{count} variables"
            else:
                shape = f"{owned.parameters:,} parameters"
            matrix = count > 0
        else:
            shape = _shape_text(obj)
            matrix = kind in facts.DENSE and facts.elements(obj) not in (None, 0)
    return {
        "varName": name,
        "varType": type(obj).__name__,
        "varSize": _size_text(size),
        "varShape": shape,
        "varContent": content,
        "isMatrix": bool(matrix),
        "isWidget": False,
    }


def _brief_row(name: str, obj: Any) -> dict[str, Any]:
    """An item's row from its metadata only (past SUMMARISED_ITEMS in one query)."""
    try:
        found = row(name, obj, summary=False)
    except Exception:
        return _guarded_row(name, obj)
    return found


def _guarded_row(name: str, obj: Any) -> dict[str, Any]:
    try:
        return row(name, obj)
    except Exception as exc:  # this one row says why; the others stand
        return {
            "varName": name,
            "varType": type(obj).__name__,
            "varSize": "?",
            "varShape": "",
            "varContent": f"(tf-debug-repr: {type(exc).__name__})",
            "isMatrix": False,
            "isWidget": False,
        }


# ------------------------------------------------------------------------------- grids


def _items_table(items: list[tuple[str, Any | None]]) -> str:
    """One row per value: what a model's, an optimizer's or a list's grid shows."""
    from . import grid

    rows: list[list[Any]] = []
    for label, value in items:
        if value is None:  # a note: how many more
            rows.append([grid.text(label), "", "", None, ""])
            continue
        try:
            size = facts.value_bytes(value)
            rows.append(
                [
                    grid.text(label),
                    grid.text(facts.dtype_name(value)),
                    grid.text(_shape_text(value)),
                    size if size is not None else "?",
                    grid.text(_summary(value)),
                ]
            )
        except Exception as exc:
            rows.append([grid.text(label), "", "", "?", f"(failed: {type(exc).__name__})"])
    columns = ["name", "dtype", "shape", "bytes", "summary"]
    return grid.table("#", columns, rows, ["string", "string", "string", "integer", "string"])


def _weight_label(var: Any) -> str:
    from ...views import variables as variable_views

    return variable_views.label(var) or type(var).__name__


def matrix_json(obj: Any, max_rows: int) -> str:
    """The grid of a value of ours: a 2-D slice of a tensor or variable (a bounded one),
    one row per weight of a model or variable of an optimizer, one per item of a list."""
    from . import grid

    kind = kind_of(obj)
    if kind in facts.OWNERS:
        return _items_table([(_weight_label(v), v) for v in facts.variables_of(obj)])
    if kind is None:
        if isinstance(obj, dict):
            pairs = list(islice(obj.items(), GRID_ITEMS))
        else:
            pairs = list(enumerate(islice(obj, GRID_ITEMS)))
        items = [(f"[{k!r}]", v) for k, v in pairs]
        if len(obj) > GRID_ITEMS:
            items.append((f"… {len(obj) - GRID_ITEMS:,} more items", None))
        return _items_table(items)
    bound = max(1, int(max_rows)) if max_rows else MAX_CELLS
    cut = facts.matrix_slice(obj, kind, bound, MAX_CELLS, MAX_COLUMNS)
    if cut is None:
        return grid.table("value", ["note"], [["no values to show"]], ["string"])
    where, array, _ = cut
    return grid.array_table(where, array)


def _error_table(exc: Exception) -> str:
    from . import grid

    return grid.table(
        "#", ["error"], [[grid.text(f"{type(exc).__name__}: {exc}")[:300]]], ["string"]
    )


# ------------------------------------------------------------------------------ wrapping


def item_names(name: str, obj: Any) -> list[tuple[str, Any]]:
    """(expression, value) of the first ITEM_ROWS tensors and variables of a container of
    ours: ``grads[0]``, ``weights["dense/kernel"]``. A key that is not a plain int or a
    short plain string (letters, digits, ``_.:/ -``) gets no row: the name is code the
    Inspector runs, so it is written from safe keys only (the container's grid lists all)."""
    pairs: Any = (
        islice(obj.items(), ITEM_ROWS)
        if isinstance(obj, dict)
        else enumerate(islice(obj, ITEM_ROWS))
    )
    found = []
    for key, value in pairs:
        if kind_of(value) not in facts.DENSE:
            continue
        if type(key) is int:
            found.append((f"{name}[{key}]", value))
        elif type(key) is str and _SAFE_KEY.fullmatch(key):
            found.append((f'{name}["{key}"]', value))
    return found


def _item_rows(containers: list[tuple[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each container's item rows, to follow its own; the shortest containers first get
    the query's SUMMARISED_ITEMS summaries (``grads`` before a list of 2,000 batches)."""
    left = SUMMARISED_ITEMS
    extra: dict[str, list[dict[str, Any]]] = {}
    for name, value in sorted(containers, key=lambda pair: len(pair[1])):
        rows = []
        try:
            for item, found in item_names(name, value):
                left -= 1
                rows.append(_guarded_row(item, found) if left >= 0 else _brief_row(item, found))
        except Exception:
            pass
        extra[name] = rows
    return extra


class _SomeNames:
    """Stands in for the Inspector's ``NamespaceMagics`` while its own code lists the
    names that are not ours."""

    def __init__(self, names: list[str]) -> None:
        self._names = names

    def who_ls(self) -> list[str]:
        return list(self._names)


def _wrap_list(ns: dict, original: Any) -> Any:
    def dict_list() -> str:
        if "tensorflow" not in sys.modules and "keras" not in sys.modules:
            return original()
        magics = ns.get(NAMES)
        if magics is None:  # the Inspector's own helper is gone: its own answer
            return original()
        names = list(magics.who_ls())
        ours: dict[str, dict[str, Any]] = {}
        containers: list[tuple[str, Any]] = []
        others = []
        for name in names:
            value = ns.get(name)
            try:
                mine = is_ours(value)
            except Exception:
                mine = False
            if mine:
                ours[name] = _guarded_row(name, value)
                if type(value) in _CONTAINERS:
                    containers.append((name, value))
            else:
                others.append(name)
        extra = _item_rows(containers)
        ns[NAMES] = _SomeNames(others)
        try:
            theirs = {r["varName"]: r for r in json.loads(original())}
        finally:
            ns[NAMES] = magics
        rows = []
        for n in names:
            found = ours.get(n) or theirs.get(n)
            if found is not None:
                rows.append(found)
                rows += extra.get(n, [])
        return json.dumps(rows, ensure_ascii=False)

    setattr(dict_list, _MARK, original)
    return dict_list


def _wrap_matrix(original: Any) -> Any:
    def getmatrixcontent(x: Any, max_rows: int = 10000) -> Any:
        try:
            mine = "tensorflow" in sys.modules and is_ours(x)
        except Exception:
            mine = False
        if not mine:
            return original(x, max_rows)
        try:
            return matrix_json(x, max_rows)
        except Exception as exc:  # the grid shows why instead of a silent kernel error
            return _error_table(exc)

    setattr(getmatrixcontent, _MARK, original)
    return getmatrixcontent


def wrap(ns: dict) -> bool:
    """Wrap the Inspector's functions in ``ns`` if they are there and not ours yet."""
    done = False
    for name, wrapper in ((LIST, lambda f: _wrap_list(ns, f)), (MATRIX, _wrap_matrix)):
        current = ns.get(name)
        if callable(current) and not hasattr(current, _MARK):
            ns[name] = wrapper(current)
            done = True
    return done


def unwrap(ns: dict) -> None:
    for name in (LIST, MATRIX):
        original = getattr(ns.get(name), _MARK, None)
        if original is not None:
            ns[name] = original


class Hook:
    """``post_execute``: two dict lookups per cell while the Inspectors' functions are ours
    (JupyterLab's, and the classic Notebook's: ``inspector_classic``, the same rows)."""

    def __init__(self, ip: Any) -> None:
        self.ip = ip

    def __call__(self) -> None:
        from . import inspector_classic

        try:
            ns = self.ip.user_ns
            current = ns.get(LIST)
            if current is not None and not hasattr(current, _MARK):
                wrap(ns)
            if inspector_classic.needs_wrap(ns):
                wrap_classic(ns)
        except Exception:
            pass


def wrap_classic(ns: dict) -> bool:
    """Wrap the classic Notebook's Inspector's functions in ``ns`` with this module's rows."""
    from . import inspector_classic

    return inspector_classic.wrap(ns, sys.modules[__name__])


def _transformers(ip: Any) -> list | None:
    found = getattr(ip, "input_transformers_post", None)
    return found if isinstance(found, list) else None


_hook: Hook | None = None


def install(ip: Any) -> None:
    global _hook
    if _hook is not None:
        return
    from . import inspector_classic

    _hook = Hook(ip)
    ip.events.register("post_execute", _hook)
    transformers = _transformers(ip)
    if transformers is not None and inspector_classic.transform not in transformers:
        transformers.append(inspector_classic.transform)
    _hook()  # the Inspector may have come first


def uninstall(ip: Any) -> None:
    global _hook
    if _hook is None:
        return
    try:
        ip.events.unregister("post_execute", _hook)
    except ValueError:
        pass
    _hook = None
    from . import inspector_classic

    transformers = _transformers(ip)
    if transformers is not None and inspector_classic.transform in transformers:
        transformers.remove(inspector_classic.transform)
    unwrap(ip.user_ns)
    inspector_classic.unwrap(ip.user_ns)
