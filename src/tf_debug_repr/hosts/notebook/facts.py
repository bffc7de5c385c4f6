"""Facts about a TF value read from its metadata, for the notebook's tables (the Variable
Inspector's rows, ``%tf_table``): bytes, shape, device, parameter counts, and a bounded 2-D
slice for a grid. Sizes come from shapes and dtypes: no op runs, nothing is copied, except
the slice, which is cut on the value's device before it reaches the host.
"""

from __future__ import annotations

import math
import re
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from ...core.tf_types import Kind, kind_of

# Kinds whose value is one dense array (a distributed one: its first replica).
DENSE = (Kind.EAGER, Kind.VARIABLE, Kind.KERAS_VARIABLE, Kind.MIRRORED, Kind.SYNC_ON_READ)
# Kinds of many arrays, whose bytes are the sum of their parts.
COMPOSITE = (Kind.SPARSE, Kind.INDEXED_SLICES, Kind.RAGGED, Kind.PER_REPLICA, Kind.DISTRIBUTED)
# Kinds that own variables (a model is a layer): their bytes are their variables'.
OWNERS = (Kind.KERAS_LAYER, Kind.TF_MODULE, Kind.OPTIMIZER, Kind.METRIC)


_STRING_DTYPE_SIZES: dict[str, int] = {}


def _dtype_size(obj: Any) -> int:
    dtype = obj.dtype
    size = getattr(dtype, "size", None)
    if size is None:  # Keras 3 dtypes are strings: looked up once per name
        name = str(dtype)
        size = _STRING_DTYPE_SIZES.get(name)
        if size is None:
            import tensorflow as tf

            size = _STRING_DTYPE_SIZES[name] = int(tf.as_dtype(name).size)
    return int(size)


def dtype_name(obj: Any) -> str:
    dtype = getattr(obj, "dtype", None)
    return str(getattr(dtype, "name", dtype) or "")


def dims(obj: Any) -> list[int | None] | None:
    """The static shape as a list (None for an unknown dimension), None for unknown rank."""
    try:
        shape = obj.shape
        listed = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    except Exception:
        return None
    return [None if d is None else int(d) for d in listed]


def elements(obj: Any) -> int | None:
    found = dims(obj)
    if found is None or any(d is None for d in found):
        return None
    return math.prod(found)  # type: ignore[arg-type]


def dense_bytes(obj: Any) -> int | None:
    count = elements(obj)
    if count is None:
        return None
    try:
        return count * _dtype_size(obj)
    except Exception:
        return None


def _storage_id(var: Any) -> int:
    inner = getattr(var, "_value", None) if kind_of(var) is Kind.KERAS_VARIABLE else None
    return id(var if inner is None else inner)


def _listed_variables(owner: Any) -> list[Any]:
    attribute = "weights" if kind_of(owner) is Kind.KERAS_LAYER else "variables"
    try:
        return list(getattr(owner, attribute, None) or [])
    except Exception:
        return []


def variables_of(owner: Any) -> list[Any]:
    """An owner's variables, each once (a model's weights, an optimizer's slots)."""
    return _unique(_listed_variables(owner))


def _unique(found: list[Any]) -> list[Any]:
    seen: set[int] = set()
    unique = []
    for var in found:
        key = _storage_id(var)
        if key not in seen:
            seen.add(key)
            unique.append(var)
    return unique


def parts_of(obj: Any, kind: Kind | None) -> list[Any]:
    """The dense arrays a composite value holds."""
    if kind is Kind.SPARSE:
        return [obj.indices, obj.values]
    if kind is Kind.INDEXED_SLICES:
        return [obj.indices, obj.values]
    if kind is Kind.RAGGED:
        return [obj.flat_values, *obj.nested_row_splits]
    if kind in (Kind.PER_REPLICA, Kind.DISTRIBUTED):
        return list(getattr(obj, "values", ()) or ())
    return []


def value_bytes(obj: Any, kind: Kind | None = None) -> int | None:
    """Bytes the value's elements take (a model: its weights, an optimizer: its slots;
    strings count their pointers only), None when unknown (a symbolic or unbuilt value)."""
    kind = kind or kind_of(obj)
    try:
        if kind in DENSE:
            return dense_bytes(obj)
        if kind in COMPOSITE:
            sizes = [dense_bytes(p) for p in parts_of(obj, kind)]
            return None if not sizes or None in sizes else sum(sizes)  # type: ignore[arg-type]
        if kind in OWNERS:
            return owner_facts(obj).nbytes
    except Exception:
        return None
    return None


def parameters(owner: Any) -> int:
    return owner_facts(owner).parameters


@dataclass(frozen=True)
class OwnerFacts:
    """What an owner's row says of its variables: how many, their elements, their bytes."""

    variables: tuple[Any, ...]
    parameters: int
    nbytes: int


_owner_facts: weakref.WeakKeyDictionary[Any, tuple[tuple[int, ...], OwnerFacts]] = (
    weakref.WeakKeyDictionary()
)
_owner_facts_lock = threading.Lock()


def owner_facts(owner: Any) -> OwnerFacts:
    """An owner's variables, parameters and bytes, worked out again only when its list of
    variables is not the same objects as last time: a variable's shape and dtype do not
    change, so a refresh of a 2,000-layer model costs its ``weights`` list, not a pass over
    every variable's shape (the Inspector refreshes after every cell)."""
    listed = _listed_variables(owner)
    key = tuple(map(id, listed))
    try:
        with _owner_facts_lock:
            kept = _owner_facts.get(owner)
    except TypeError:  # not weakly referenceable: worked out every time
        kept = None
    if kept is not None and kept[0] == key:
        return kept[1]
    variables = _unique(listed)
    found = OwnerFacts(
        variables=tuple(variables),
        parameters=sum(elements(v) or 0 for v in variables),
        nbytes=sum(dense_bytes(v) or 0 for v in variables),
    )
    try:
        with _owner_facts_lock:
            _owner_facts[owner] = (key, found)
    except TypeError:
        pass
    return found


def device(obj: Any) -> str:
    from ...core import formatting as fmt

    try:
        inner = getattr(obj, "_value", None) if kind_of(obj) is Kind.KERAS_VARIABLE else None
        text = getattr(obj if inner is None else inner, "device", "") or ""
    except Exception:
        text = ""
    return fmt.device_text(str(text)) if text else ""


_UNNAMED = re.compile(r" Variable 'Variable'(?=( non-trainable)?$)", re.M)


def unnamed(text: str) -> str:
    """A summary as the notebook shows it: TF names a variable made without ``name=``
    ``Variable``, which its summary's tail would print as ``Variable 'Variable'``; here it
    reads ``Variable, unnamed`` (first line only: the values follow it)."""
    return _UNNAMED.sub(" Variable, unnamed", text, count=1)


# ------------------------------------------------------------------------------ slices


def dense_value(obj: Any, kind: Kind | None) -> Any:
    """An eager tensor holding the value (a variable read harmlessly, a replicated value's
    first replica), or None when there is none yet."""
    if kind in (Kind.MIRRORED, Kind.SYNC_ON_READ):
        values = getattr(obj, "values", None)
        obj = values[0] if values else obj
        kind = kind_of(obj)
    if kind in (Kind.VARIABLE, Kind.KERAS_VARIABLE, Kind.MIRRORED, Kind.SYNC_ON_READ):
        from ...views import variables as variable_views

        return variable_views.read_value(obj)
    return obj if kind is Kind.EAGER else None


def matrix_slice(obj: Any, kind: Kind | None, max_rows: int, max_cells: int, max_columns: int):
    """(where, array, full (rows, columns)): a 2-D slice of the value as numpy, cut on the
    value's device: the last two axes at index 0 of the others (``[0, :, :]``), a 1-D value
    as one column, a scalar as one cell; at most ``max_rows`` rows, ``max_columns``
    columns and ``max_cells`` cells. None when the value has no dense values."""
    from ...core.guards import harmless

    value = dense_value(obj, kind)
    found = dims(value) if value is not None else None
    if found is None or any(d is None for d in found):
        return None
    shape = [int(d) for d in found if d is not None]
    rank = len(shape)
    rows = shape[-2] if rank >= 2 else (shape[0] if rank == 1 else 1)
    columns = shape[-1] if rank >= 2 else 1
    keep_columns = min(columns, max_columns)
    keep_rows = min(rows, max_rows, max(1, max_cells // max(1, keep_columns)))
    lead = (0,) * max(0, rank - 2)
    with harmless(getattr(value, "device", None) or None):
        if rank >= 2:
            cut = value[lead + (slice(0, keep_rows), slice(0, keep_columns))]
        elif rank == 1:
            cut = value[:keep_rows]
        else:
            cut = value
        array = cut.numpy()
    array = array.reshape(keep_rows if rank else 1, keep_columns if rank >= 2 else 1)
    where = "[" + ", ".join([*map(str, lead), ":", ":"][: max(rank, 1)]) + "]" if rank else "[]"
    return where, array, (rows, columns)
