"""Sparse, ragged and indexed-slices tensors, and datasets: shown through their parts.

A dataset is described from its static element spec and cardinality: iterating it (or an
iterator) would consume elements the program expects to see. Its attributes follow, read as
stock debugpy reads them (``attributes.with_attributes``), so every name stock shows is there.
"""

from __future__ import annotations

from typing import Any

from ..core import formatting as fmt
from ..core.guards import harmless
from ..core.view_model import Child, Note, call, error_note, lazy
from . import attributes as attribute_views
from . import preview as preview_views
from . import symbolic
from . import tensors as tensor_views
from .tensors import summary as tensor_summary


def _count_text(part: Any) -> str:
    n = part.shape.num_elements()
    return fmt.count(n) if n is not None else "?"


def sparse_summary(st: Any) -> str:
    dense = [int(d) for d in st.dense_shape.numpy()] if hasattr(st.dense_shape, "numpy") else None
    nnz = int(st.values.shape[0]) if st.values.shape[0] is not None else None
    total = 1
    for d in dense or []:
        total *= d
    density = (
        f" ({nnz / total:.1%} dense)" if dense is not None and nnz is not None and total else ""
    )
    values = tensor_summary(st.values) if hasattr(st.values, "numpy") else ""
    return fmt.clip(
        f"SparseTensor {st.dtype.name}{fmt.shape_text(dense if dense is not None else st.shape)} "
        f"nnz={nnz}{density} values: {values}"
    )


def sparse_children(st: Any) -> list[Child]:
    return [
        Child("values", st.values, ".values"),
        Child("indices", st.indices, ".indices"),
        Child("dense_shape", st.dense_shape, ".dense_shape"),
    ]


def ragged_summary(rt: Any) -> str:
    with harmless():
        rows = int(rt.nrows())
        flat = rt.flat_values
    values = tensor_summary(flat) if hasattr(flat, "numpy") else ""
    return fmt.clip(
        f"RaggedTensor {rt.dtype.name}{fmt.shape_text(rt.shape)} rows={fmt.count(rows)} "
        f"ragged_rank={rt.ragged_rank} values: {values}"
    )


def ragged_children(rt: Any) -> list[Child]:
    with harmless(_device(rt)):
        rows = int(rt.nrows())
    if rt.dtype.name in tensor_views.HOST_SLICED:
        children = _host_rows(rt, min(rows, 100))
    else:
        children = [
            lazy(f"[{i}]", lambda i=i: _row(rt, i), f"[{i}]")  # type: ignore[misc]
            for i in range(min(rows, 100))
        ]
    if rows > 100:
        children.append(
            Child("…", Note(f"{fmt.count(rows - 100)} more rows: see flat_values / row_splits"))
        )
    children += [
        Child("flat_values", rt.flat_values, ".flat_values"),
        Child("row_splits", rt.row_splits, ".row_splits"),
        symbolic.shape_row(rt.shape),
    ]
    return children


def _device(rt: Any) -> str:
    return getattr(rt.row_splits, "device", "") or ""


def _row(rt: Any, i: int) -> Any:
    with harmless(_device(rt)):
        return rt[i]


def _host_rows(rt: Any, count: int) -> list[Child]:
    """Rows of a ragged tensor of a dtype TF cannot slice: cut from the host copy of its
    values (ragged_rank 1), with expressions through numpy; deeper nesting says where to look."""
    if rt.ragged_rank != 1:
        return [
            Child(
                "rows",
                Note(f"TF cannot slice {rt.dtype.name} here: see flat_values / row_splits"),
            )
        ]
    splits = [int(s) for s in tensor_views.host_array(rt.row_splits)]
    values = tensor_views.host_array(rt.values)
    name, device = rt.dtype.name, rt.values.device
    return [
        Child(
            f"[{i}]",
            tensor_views.HostArray(values[splits[i] : splits[i + 1]], name, device),
            lambda p, a=splits[i], b=splits[i + 1]: f"{p}.values.numpy()[{a}:{b}]",  # type: ignore[misc]
        )
        for i in range(count)
    ]


def indexed_slices_summary(s: Any) -> str:
    dense = s.dense_shape
    dense_text = (
        fmt.shape_text([int(d) for d in dense.numpy()]) if hasattr(dense, "numpy") else "[?]"
    )
    rows = s.indices.shape[0]
    values = tensor_summary(s.values) if hasattr(s.values, "numpy") else ""
    return fmt.clip(f"IndexedSlices {s.dtype.name}{dense_text} rows={rows} values: {values}")


def indexed_slices_children(s: Any) -> list[Child]:
    return [
        Child("values", s.values, ".values"),
        Child("indices", s.indices, ".indices"),
        Child("dense_shape", s.dense_shape, ".dense_shape"),
    ]


_CARDINALITY = {-1: "infinite", -2: "unknown"}


def _cardinality(ds: Any) -> str:
    with harmless():
        n = int(ds.cardinality())
    return _CARDINALITY.get(n, fmt.count(n))


def _cardinality_row(ds: Any) -> Child:
    """The count as a number, which ``int(ds.cardinality())`` gives; ``infinite`` or
    ``unknown`` as a line of its own (the expression would give -1 or -2)."""
    try:
        with harmless():
            n = int(ds.cardinality())
    except Exception as exc:  # that one row says so
        return Child("cardinality", error_note(exc))
    if n in _CARDINALITY:
        return Child("cardinality", Note(_CARDINALITY[n]))
    return Child("cardinality", n, call("int({}.cardinality())"))


def structure_text(spec: Any) -> str:
    """An element spec in a few words: ``(float32[None, 4], int32[None])``, dicts by key;
    plain tensor specs by dtype and shape, other specs as their own view says."""
    from .shapes import spec_summary

    if isinstance(spec, dict):
        return "{" + ", ".join(f"{k!r}: {structure_text(v)}" for k, v in spec.items()) + "}"
    if isinstance(spec, (tuple, list)):
        inner = ", ".join(structure_text(v) for v in spec)
        return f"({inner},)" if isinstance(spec, tuple) and len(spec) == 1 else f"({inner})"
    text = spec_summary(spec)
    return text.removeprefix("TensorSpec ") if type(spec).__name__ == "TensorSpec" else text


def dataset_summary(ds: Any) -> str:
    return fmt.clip(
        f"{type(ds).__name__.lstrip('_')} of {structure_text(ds.element_spec)} "
        f"cardinality={_cardinality(ds)}"
    )


def dataset_children(ds: Any) -> list[Child]:
    rows = [
        Child("element_spec", ds.element_spec, ".element_spec"),
        _cardinality_row(ds),
        Child(
            "note",
            Note("elements are not listed: reading them would consume the program's data"),
        ),
        preview_views.preview_row(ds),
    ]
    # and every attribute stock debugpy shows (its input dataset, options, variant tensor…)
    return attribute_views.with_attributes(ds, rows, {"element_spec"})


def iterator_summary(it: Any) -> str:
    return fmt.clip(
        f"Iterator over {structure_text(it.element_spec)} (not advanced by the debugger)"
    )


def iterator_children(it: Any) -> list[Child]:
    rows = [
        Child("element_spec", it.element_spec, ".element_spec"),
        Child(
            "note",
            Note("the next element is not shown: reading it would take it from the program"),
        ),
    ]
    return attribute_views.with_attributes(it, rows, {"element_spec"})  # as stock shows them
