"""Static descriptions of tensors: ``tf.TensorShape`` and ``tf.TypeSpec`` (``TensorSpec``,
``RaggedTensorSpec``, a dataset's element spec…).

Both are plain Python facts: nothing here runs a TF op.
"""

from __future__ import annotations

from typing import Any

from ..core import formatting as fmt
from ..core.view_model import Child, Note, call, lazy
from . import attributes as attribute_views

LISTED = 100  # most dims listed one per row


def shape_summary(shape: Any) -> str:
    """``TensorShape [None, 28, 28, 1] rank 4``; ``TensorShape <unknown rank>``."""
    rank = shape.rank
    if rank is None:
        return "TensorShape <unknown rank>"
    text = f"TensorShape {fmt.shape_text(shape)} rank {rank}"
    n = shape.num_elements()
    if n is not None and rank > 1:
        text += f" n={fmt.count(n)}"
    return fmt.clip(text)


def shape_children(shape: Any) -> list[Child]:
    rank = shape.rank
    if rank is None:
        return [Child("rank", None, ".rank")]
    # shape[i] is the dim as an int (None when unknown) in TF 2.
    rows = [Child(f"[{i}]", shape[i], f"[{i}]") for i in range(min(rank, LISTED))]
    if rank > LISTED:
        rows.append(Child("…", Note(f"{rank - LISTED} more dims: see as_list()")))
    rows.append(Child("rank", rank, ".rank"))
    rows.append(Child("num_elements", shape.num_elements(), call("{}.num_elements()")))
    rows.append(Child("as_list", shape.as_list(), call("{}.as_list()")))
    return rows


# --------------------------------------------------------------------------- TypeSpec


def _dtype_name(spec: Any) -> str | None:
    dtype = getattr(spec, "dtype", None)
    return getattr(dtype, "name", None) if dtype is not None else None


def spec_summary(spec: Any) -> str:
    """``TensorSpec float32[None, 4] 'features'``, ``RaggedTensorSpec int32[None, None]
    ragged_rank=1``; other specs by class name and whatever shape/dtype they have."""
    name = type(spec).__name__
    parts = [name]
    dtype = _dtype_name(spec)
    shape = getattr(spec, "shape", None)
    if dtype is not None or shape is not None:
        shape_part = fmt.shape_text(shape) if shape is not None and shape.rank is not None else ""
        if shape is not None and shape.rank is None:
            shape_part = "[<unknown rank>]"
        parts.append(f"{dtype or ''}{shape_part}")
    spec_name = getattr(spec, "name", None)
    if isinstance(spec_name, str) and spec_name:
        parts.append(repr(spec_name))
    ragged_rank = getattr(spec, "ragged_rank", None)
    if isinstance(ragged_rank, int):
        parts.append(f"ragged_rank={ragged_rank}")
    if dtype is None and shape is None:
        parts.append(fmt.clip(repr(spec), 200))
    return fmt.clip(" ".join(parts))


def spec_children(spec: Any) -> list[Child]:
    rows: list[Child] = []
    shape = getattr(spec, "shape", None)
    if shape is not None:
        rows.append(Child("shape", shape, ".shape"))
    dtype = _dtype_name(spec)
    if dtype is not None:
        rows.append(Child("dtype", Note(dtype), call("{}.dtype.name")))
    if hasattr(spec, "name") and type(spec).__name__ == "TensorSpec":
        rows.append(Child("name", spec.name, ".name"))
    ragged_rank = getattr(spec, "ragged_rank", None)
    if isinstance(ragged_rank, int):
        rows.append(Child("ragged_rank", ragged_rank, ".ragged_rank"))
    rows.append(
        lazy("value_type", lambda: Note(spec.value_type.__name__), call("{}.value_type.__name__"))
    )
    # then every attribute stock debugpy shows besides (private ones in their own row)
    covered = {"shape", "dtype", "name", "ragged_rank", "value_type"}
    return attribute_views.with_attributes(spec, rows, covered)
