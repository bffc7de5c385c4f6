"""``tf.TensorArray``: size, element shape, and its elements when eager.

Never calls ``read``, ``stack`` or ``size``: an eager TensorArray forgets an element once
read (``clear_after_read``, the default) and ``stack`` writes zeros into the unwritten
ones; in a graph each would add an op. The elements are read from the eager
implementation's own list, and their expressions read the same list.
"""

from __future__ import annotations

from typing import Any

from ..core import formatting as fmt
from ..core.view_model import Child, Note, call

LISTED = 100
ELEMENTS = "._implementation._tensor_array"


def elements(ta: Any) -> list | None:
    """The eager array's element list (None for unwritten ones); None in a graph."""
    found = getattr(getattr(ta, "_implementation", None), "_tensor_array", None)
    return found if isinstance(found, list) else None


def _dtype(ta: Any) -> str:
    return getattr(ta.dtype, "name", str(ta.dtype))


def tensor_array_summary(ta: Any) -> str:
    head = f"TensorArray {_dtype(ta)}"
    element_shape = (
        fmt.shape_text(ta.element_shape) if ta.element_shape.rank is not None else "<unknown>"
    )
    items = elements(ta)
    if items is None:
        return fmt.clip(
            f"{head} element_shape={element_shape} (symbolic: in a graph, no values while tracing)"
        )
    written = sum(1 for e in items if e is not None)
    dynamic = ", dynamic size" if getattr(ta._implementation, "_dynamic_size", False) else ""
    return fmt.clip(
        f"{head} size={len(items)} element_shape={element_shape}, "
        f"{written} of {len(items)} written{dynamic}"
    )


def tensor_array_children(ta: Any) -> list[Child]:
    rows: list[Child] = []
    items = elements(ta)
    if items is not None:
        for i, element in enumerate(items[:LISTED]):
            if element is None:
                rows.append(Child(f"[{i}]", Note("not written (or cleared after a read)")))
            else:
                rows.append(Child(f"[{i}]", element, f"{ELEMENTS}[{i}]"))
        if len(items) > LISTED:
            rows.append(Child("…", Note(f"{fmt.count(len(items) - LISTED)} more elements")))
        rows.append(Child("size", len(items), call(f"len({{}}{ELEMENTS})")))
    else:
        rows.append(
            Child("values", Note("symbolic: the array lives in a graph being traced; no values"))
        )
    rows.append(Child("element_shape", ta.element_shape, ".element_shape"))
    rows.append(Child("dtype", Note(_dtype(ta)), call("{}.dtype.name")))
    dynamic = getattr(getattr(ta, "_implementation", None), "_dynamic_size", None)
    if isinstance(dynamic, bool):
        rows.append(Child("dynamic_size", dynamic, "._implementation._dynamic_size"))
    return rows
