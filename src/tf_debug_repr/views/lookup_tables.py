"""TF's lookup tables (``tf.lookup.StaticHashTable``, ``StaticVocabularyTable``,
``experimental.MutableHashTable``, ``DenseHashTable``): where a Keras ``StringLookup``'s or
``TextVectorization``'s vocabulary lives (``layer.lookup_table``). Stock debugpy shows
``<…StaticHashTable object at 0x…>``; here its dtypes, size and default, and its entries.

Read with TF's own ops under ``harmless`` (the table's size, its exported keys and values:
no record on a tape, no op in a graph being traced), and only for TF's own table classes:
a program's subclass may override anything, so it is left to its attributes.
"""

from __future__ import annotations

import functools
from typing import Any

from ..core import formatting as fmt
from ..core.guards import harmless
from ..core.tf_types import library_class
from ..core.view_model import Child, Note, call
from . import attributes as attribute_views
from .attributes import guarded

# Entries exported as the ``keys`` and ``values`` rows at most: past this, a look would copy
# a vocabulary's every string to show a few.
EXPORTED = 100_000


def _size(table: Any) -> int:
    with harmless():
        return int(table.size().numpy())


def _dtype(table: Any, attribute: str) -> str:
    dtype = getattr(table, attribute, None)
    return str(getattr(dtype, "name", dtype))


def _default_attribute(table: Any) -> str | None:
    """Where the table's default value is read: TF's ``default_value`` property (a
    ``StaticHashTable``'s), else its ``_default_value``; None where it has none."""
    if isinstance(getattr(type(table), "default_value", None), property):
        return "default_value"
    return "_default_value" if "_default_value" in vars(table) else None


def _default(table: Any) -> Any:
    attribute = _default_attribute(table)
    if attribute is None:
        return None
    with harmless():
        return getattr(table, attribute, None)


def table_summary(table: Any) -> str:
    """``StaticHashTable string → int64, 50 entries, default -1``."""
    name = type(table).__name__
    if not library_class(type(table)):
        return f"{name} (a lookup table of the program's own class)"
    key, value = _dtype(table, "key_dtype"), _dtype(table, "value_dtype")
    size = _size(table)
    parts = [f"{name} {key} → {value}", f"{fmt.count(size)} entr{'y' if size == 1 else 'ies'}"]
    default = _default(table)
    shape = getattr(default, "shape", None)
    if shape is not None and shape.rank == 0:
        item = default.numpy()
        item = item.item() if hasattr(item, "item") else item  # a string's is bytes already
        parts.append(
            f"default {item.decode(errors='replace') if isinstance(item, bytes) else item!r}"
        )
    buckets = getattr(table, "_num_oov_buckets", None)
    if isinstance(buckets, int):
        parts.append(f"{buckets} OOV bucket{'' if buckets == 1 else 's'}")
    return fmt.clip(", ".join(parts))


def _exported(table: Any) -> tuple[Any, Any] | Note:
    """(keys, values) as TF's ``export`` gives them, or why they are not read."""
    if _size(table) > EXPORTED:
        return Note(f"not read: more than {fmt.count(EXPORTED)} entries")
    with harmless():
        keys, values = table.export()
    return keys, values


def table_children(table: Any) -> list[Child]:
    covered: set[str] = set()
    rows: list[Child] = []
    if library_class(type(table)):
        rows += [
            guarded("size", lambda: _size(table), call("int({}.size())")),
            Child("key_dtype", Note(_dtype(table, "key_dtype")), call("{}.key_dtype.name")),
            Child("value_dtype", Note(_dtype(table, "value_dtype")), call("{}.value_dtype.name")),
        ]
        covered |= {"key_dtype", "value_dtype"}
        attribute = _default_attribute(table)
        if attribute is not None:
            rows.append(guarded("default_value", lambda: _default(table), f".{attribute}"))
            covered.add("default_value")
        if hasattr(table, "export"):
            # One export for both rows (each is a copy of the whole table), in TF's order
            # (the hash table's): keys[i] goes to values[i].
            exported = functools.cache(lambda: _exported(table))

            def part(index: int) -> Any:
                found = exported()
                return found if isinstance(found, Note) else found[index]

            rows += [
                guarded("keys", lambda: part(0), ".export()[0]"),
                guarded("values", lambda: part(1), ".export()[1]"),
            ]
    attributes = attribute_views.read_attributes(table)
    return rows + attribute_views.attribute_rows(table, attributes, covered)
