"""The tensor viewer's payload (docs/tensor-viewer.md): a bounded description of a value
to draw (figures, a histogram, a downsampled 2-D slice with NaN/±Inf marks, an image
grid when the value looks like images), built in the debuggee.

Everything runs under ``guards.harmless`` on the value's own device (nothing recorded
on a tape, no op in a graph being traced, no random state drawn); only the downsampled
cells, the counts and the figures come to the host. ``build`` never raises: a failure is
the payload's ``error``, with whatever was computed before it.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import replace
from typing import Any

import numpy as np

from ..core.time_budget import exact as exact_figures
from .slices import CELL_BYTES, PayloadError

VERSION = 1
PARTS = ("abs", "angle", "real", "imag")
# Compute in float64 where float32 would round the values themselves.
_WIDE = frozenset({"float64", "int32", "int64", "uint32", "uint64", "qint32"})
_ERROR_CHARS = 300


# --------------------------------------------------------------------------- values


class Source:
    """What the payload is drawn from: the values (an eager tensor or a numpy array)
    and what to call them."""

    def __init__(self, values: Any, kind: str, summary_of: Any, note: str = "") -> None:
        self.values = values
        self.kind = kind
        self.summary_of = summary_of  # the object whose one-line summary is shown
        self.note = note  # which part of the value is drawn, when not all of it

    @property
    def is_array(self) -> bool:
        return isinstance(self.values, np.ndarray)


def source_of(value: Any) -> Source:
    """The values behind a TF value (or an array); a ``PayloadError`` saying why for a
    value that has none here. A TF value's kind answers through its catalog row."""
    from ..core.tf_types import kind_of
    from ..views import dispatch

    kind = kind_of(value)
    if kind is not None:
        row = dispatch.row(kind)
        if row is not None and row.source is not None:
            return row.source(value)
        if row is not None and row.no_values is not None:
            raise PayloadError(row.no_values(value))
        raise PayloadError(f"a {kind.value} has no tensor values to draw")
    if _is_gradient_info(value):
        return _gradient(value)
    if value is None:
        raise PayloadError("None: no value to draw (no gradient kept, or nothing assigned)")
    if isinstance(value, (np.ndarray, np.generic, bool, int, float, complex, list, tuple)):
        try:
            array = np.asarray(value)
        except Exception as exc:  # ragged lists
            raise PayloadError(f"not an array: {_first_line(exc)}") from None
        if array.dtype.kind not in "biufcV":
            raise PayloadError(f"a {array.dtype} array: no numbers to draw")
        return Source(array, "numpy", array)
    raise PayloadError(
        f"{type(value).__name__} is not a tensor, variable or array: nothing to draw"
    )


# The sources of the kinds that have values (their catalog rows name them).


def tensor_source(tensor: Any) -> Source:
    return Source(tensor, "tensor", tensor)


def variable_source(var: Any) -> Source:
    """A variable's current value; a Keras variable made under a strategy: its replicas'."""
    from ..core.tf_types import Kind, kind_of
    from ..views import variables as variable_views

    values = variable_views.read_value(var)
    if values is None:
        raise PayloadError(variable_views.state(var)[1])
    inner = getattr(var, "_value", None)
    if kind_of(inner) in (Kind.MIRRORED, Kind.SYNC_ON_READ):
        return _distributed(inner, var)
    return Source(values, "variable", var)


def distributed_source(value: Any) -> Source:
    return _distributed(value, value)


def indexed_slices_source(value: Any) -> Source:
    """The rows held, never densified."""
    return _held(value, "indexed slices", "rows")


def sparse_source(value: Any) -> Source:
    """The values held, never densified."""
    return _held(value, "sparse tensor", "values")


def _held(value: Any, name: str, what: str) -> Source:
    held = int(value.values.shape[0])
    return Source(
        value.values,
        name,
        value,
        f"the {held} {what} held (.values), not the dense {_dense_shape(value)} tensor",
    )


def ragged_source(value: Any) -> Source:
    return Source(
        value.flat_values,
        "ragged tensor",
        value,
        f"its {int(value.flat_values.shape[0])} flat values (.flat_values), row after row",
    )


def _is_gradient_info(value: Any) -> bool:
    from ..views.gradients import GradientInfo

    return isinstance(value, GradientInfo)


def _gradient(info: Any) -> Source:
    """A "∇ gradient" row (a variable's, or a model's gradient table's) holds the record
    of a gradient: what is drawn is the gradient itself; without one, its summary says why."""
    if info.gradient is None:
        raise PayloadError(info.summary())
    return source_of(info.gradient)


def _dense_shape(s: Any) -> str:
    from ..core import formatting as fmt

    dense = s.dense_shape
    return fmt.shape_text([int(d) for d in dense.numpy()]) if hasattr(dense, "numpy") else "[?]"


def _distributed(value: Any, shown: Any) -> Source:
    """A mirrored variable or value: its first replica; sync-on-read: the aggregate the
    program would read; per-replica: replica 0."""
    import tensorflow as tf

    from ..core import formatting as fmt
    from ..core.guards import harmless
    from ..core.tf_types import Kind, kind_of
    from ..views import distribute as distribute_views

    replicas = tuple(value.values)
    if kind_of(value) is Kind.SYNC_ON_READ:
        with harmless():
            values = value.read_value()
        note = f"the {value.aggregation.name} of {len(replicas)} replicas"
        # Stopped inside strategy.run: the read is this replica's own value.
        if tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context():
            note = f"this replica's own value (in a replica context: not {note})"
    else:
        values = distribute_views.eager_value(replicas[0])
        if values is None:
            raise PayloadError("replica 0 has no values here (symbolic)")
        device = fmt.device_text(getattr(replicas[0], "device", ""))
        note = f"replica 0 of {len(replicas)} ({device})"
    kind = "distributed variable" if hasattr(value, "read_value") else "per-replica value"
    return Source(values, kind, shown, note)


# --------------------------------------------------------------------------- payload


def build(
    value: Any,
    axes: Any = None,
    index: Any = None,
    region: Any = None,
    part: str | None = None,
    budget: int = 1_000_000,
    bins: int = 64,
    pixel_values: bool = False,
) -> dict:
    """The payload of ``value`` as a dict (docs/tensor-viewer.md, section 2); with
    ``pixel_values`` (the VS Code page's, whose hover reads them) an image's values too."""
    payload: dict[str, Any] = {
        "version": VERSION,
        "error": None,
        "kind": None,
        "summary": None,
        "dtype": None,
        "shape": None,
        "device": None,
        "part": None,
        "stats": None,
        "histogram": None,
        "slice": None,
        "image": None,
        "filters": None,
        "history": None,
        "bad_request": False,
    }
    try:
        with exact_figures():  # one value looked at closely: its summary's figures exact
            _fill(payload, value, axes, index, region, part, budget, bins, pixel_values)
    except Exception as exc:  # never into pydevd, never into the notebook
        payload["error"] = _first_line(exc)
        if payload["summary"] is None:
            _describe(payload, value)
    if payload["error"] is None:
        payload["history"] = history_of(value)
    return payload


def history_of(value: Any) -> dict | None:
    """The ``history`` of a variable shown in the viewer (docs/history.md): viewing it is
    looking at it, so it is recorded at this stop and tracked from now on. None for other
    values, and where it cannot be read (the rest of the payload stands)."""
    from ..core.tf_types import Kind, kind_of

    if kind_of(value) not in (Kind.VARIABLE, Kind.KERAS_VARIABLE):
        return None
    try:
        from ..forensics import history_views

        found = history_views.history_of(value)
        if not found.entries:
            return None
        axis, x = found.axis()
        figures = [*history_views.FIGURES, "grad_norm"]
        return {
            "name": found.name,
            "axis": axis,
            "x": [int(v) for v in x],
            "stop": [e.stop for e in found.entries],
            "step": [e.step for e in found.entries],
            "epoch": [e.epoch for e in found.entries],
            "figures": figures,
            "series": [[_finite(v) for v in found.series(f)] for f in figures],
            "grad_step": [s for s, _ in found.gradient_series],
            "grad_norm": [_finite(n) for _, n in found.gradient_series],
            "compare": (
                compare_of(found, found.entries[0].stop, found.entries[-1].stop)
                if len(found.entries) >= 2
                else None
            ),
        }
    except Exception:
        return None


COMPARE_COLUMNS = 32  # a difference with no 2-D shape of its own is drawn this many cells wide


def compare_of(found: Any, a: int, b: int) -> dict:
    """The History tab's Compare of stops ``a`` and ``b`` (``history(value).compare(a,
    b)``, docs/history.md): the difference b − a as a grid of at most ``COPY_ELEMENTS``
    cells (the value's own rows and columns where it is 2-D and kept whole, else its
    flattened cells, or block means, ``COMPARE_COLUMNS`` a row), its norm and largest
    change, and each figure's change."""
    from ..forensics import history_views

    compare = found.compare(a, b)
    difference = compare.difference
    values: list | None = None
    rows = cols = 0
    if difference is not None:
        flat = np.asarray(difference, dtype=np.float64)
        if flat.ndim == 2:
            rows, cols = int(flat.shape[0]), int(flat.shape[1])
        else:
            flat = flat.reshape(-1)
            cols = min(COMPARE_COLUMNS, int(flat.size)) or 1
            rows = -(-int(flat.size) // cols)
        cells = flat.reshape(-1)
        finite = np.isfinite(cells)
        # one list by numpy, None where not finite (a per-cell _finite was ~1.5 ms a payload)
        values = cells.tolist()
        if not finite.all():
            values = [v if ok else None for v, ok in zip(values, finite.tolist(), strict=True)]
    return {
        "a": int(compare.a.stop),
        "b": int(compare.b.stop),
        "rows": rows,
        "cols": cols,
        "values": values,
        "exact": bool(compare.exact),
        "block": int(compare.a.block or 1),
        "norm": _finite(compare.norm),
        "largest": _finite(compare.largest),
        "figures": list(history_views.FIGURES),
        "changes": [_finite(compare.change(f)) for f in history_views.FIGURES],
        "note": compare.note,
    }


def view_history_compare(value: Any, a: Any, b: Any) -> str:
    """``encode`` of ``{"version", "error", "compare"}``: the viewer's Compare of stops
    ``a`` and ``b`` of a variable's history (recording this stop, as viewing does); the
    error (a stop not kept, not a variable) where there is none. Never raises."""
    answer: dict[str, Any] = {"version": VERSION, "error": None, "compare": None}
    try:
        from ..core.tf_types import Kind, kind_of
        from ..forensics import history_views

        first = _check_int(a, "stop a", 1)
        second = _check_int(b, "stop b", 1)
        if kind_of(value) not in (Kind.VARIABLE, Kind.KERAS_VARIABLE):
            raise PayloadError("history is kept for variables: no stops to compare")
        answer["compare"] = compare_of(history_views.history_of(value), first, second)
    except KeyError as exc:  # a stop not kept: the history says which are
        answer["error"] = str(exc.args[0]) if exc.args else "no such stop"
    except Exception as exc:
        answer["error"] = _first_line(exc)
    return encode(answer)


def _describe(payload: dict, value: Any) -> None:
    """What a value without values here still says (a symbolic tensor's summary, dtype
    and static shape): read from its type and graph, no op run."""
    from ..core.tf_types import kind_of
    from ..views import dispatch

    if kind_of(value) is None:
        return
    try:
        payload["summary"] = dispatch.summary(value)
        payload["dtype"] = str(getattr(value.dtype, "name", value.dtype))
        dims = value.shape.as_list() if hasattr(value.shape, "as_list") else list(value.shape)
        payload["shape"] = [None if d is None else int(d) for d in dims]
    except Exception:  # as much as could be read
        pass


def _first_line(exc: BaseException) -> str:
    text = str(exc) if isinstance(exc, PayloadError) else f"{type(exc).__name__}: {exc}"
    line = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return line if len(line) <= _ERROR_CHARS else line[: _ERROR_CHARS - 1] + "…"


def _check_int(value: Any, what: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise PayloadError(f"{what} must be an integer of at least {least}, not {value!r}")
    return int(value)


def _fill(
    payload: dict,
    value: Any,
    axes: Any,
    index: Any,
    region: Any,
    part: Any,
    budget: Any,
    bins: Any,
    pixel_values: bool = False,
) -> None:
    """Fill ``payload`` in order (what the value is, its figures, then the picture), so
    that a failure leaves everything before it in place."""
    from ..core.guards import harmless
    from . import filters as tensor_filters
    from . import images as tensor_images
    from . import slices as tensor_slices

    budget = _check_int(budget, "budget", CELL_BYTES)
    bins = _check_int(bins, "bins", 1)
    source = source_of(value)
    values = source.values
    payload["kind"] = source.kind
    payload["summary"] = _summary(source)
    payload["dtype"] = _dtype_name(source)
    payload["shape"] = shape = [int(d) for d in values.shape]
    payload["device"] = "host (numpy)" if source.is_array else str(values.device)
    category = _category(source)
    if category == "string":
        raise PayloadError("strings: no numbers to draw")
    if category == "other":
        raise PayloadError(f"a {payload['dtype']} value (a handle): no numbers to draw")
    if category == "complex":
        part = "abs" if part is None else part
        if part not in PARTS:
            payload["bad_request"] = True
            raise PayloadError(f"part must be one of {', '.join(PARTS)}, not {part!r}")
        payload["part"] = part
        category = "float"  # the part drawn is real
    else:
        part = None
    with harmless(None if source.is_array else values.device):
        tensor = _numeric(source, part)
        figures = _figures(source, tensor, part)
        histogram = _histogram(tensor, figures, category, bins)
        if histogram is not None:
            payload["histogram"] = {
                "edges": [_finite(e) for e in histogram.edges],
                "counts": histogram.counts,
                "sampled": histogram.sampled,
            }
        payload["stats"] = _stats_dict(figures, histogram)
        if math.prod(shape) == 0:
            raise PayloadError(f"empty (shape {shape}): nothing to draw")
        layout = tensor_images.layout_of(tuple(shape), category)
        kernel = tensor_images.filter_bank(tuple(shape), _variable_name(value))
        if layout and kernel:
            layout = None
        if layout and not tensor_images.looks_like_pictures(
            tensor, tuple(shape), layout, payload["dtype"]
        ):
            layout = None
        # A conv kernel [h, w, in, out] is also its filters, a quarter of the budget.
        filter_budget = budget // 4 if kernel and len(shape) == 4 and category != "bool" else 0
        if axes is None and layout:  # an image's height and width, not its width and channels
            axes = tensor_images.SPATIAL_AXES[layout]
        try:
            spec = tensor_slices.resolve(tuple(shape), axes, index, region)
        except PayloadError:
            # The request, not the value: a view asking again after the value changed shape
            # falls back to the default slice on this (docs/tensor-viewer.md).
            payload["bad_request"] = True
            raise
        slice_budget = budget // 2 if layout else budget - filter_budget
        payload["slice"] = _slice(tensor, spec, slice_budget, figures, category)
        if filter_budget:
            payload["filters"] = tensor_filters.filters(tensor, tuple(shape), filter_budget)
        if layout:
            scale = tensor_images.scale_for(payload["dtype"], category, figures.min, figures.max)
            payload["image"] = tensor_images.image(
                tensor, layout, scale, budget - slice_budget, with_values=pixel_values
            )


def tensor_array_source(ta: Any) -> Source:
    """An eager TensorArray's written elements, stacked on their device: what ``stack()``
    gives, without calling it (it would write zeros into unwritten elements, and a read
    clears one)."""
    import tensorflow as tf

    from ..core.guards import harmless
    from ..views.tensor_arrays import elements as written_elements

    elements = written_elements(ta)
    if elements is None:
        raise PayloadError(
            "symbolic: a TensorArray in a graph being traced holds no values "
            "(TF_DEBUG_REPR_EAGER=1 runs tf.functions eagerly)"
        )
    if not elements:
        raise PayloadError("empty TensorArray (size 0): nothing to draw")
    missing = sum(1 for e in elements if e is None)
    if missing:
        raise PayloadError(
            f"{missing} of its {len(elements)} elements are not written: "
            "no stack to draw (view a written one, [i])"
        )
    shapes = {tuple(e.shape) for e in elements}
    if len(shapes) > 1:
        raise PayloadError(
            f"elements of different shapes ({len(shapes)} of them): "
            "no stack to draw (view one, [i])"
        )
    with harmless(elements[0].device):
        stacked = tf.stack(elements)
    return Source(
        stacked, "tensor array", ta, f"its {len(elements)} elements stacked, as .stack() gives"
    )


def _variable_name(value: Any) -> str | None:
    """A variable's name (a Keras variable's path); for a gradient record, its variable's
    (a Conv1D kernel's gradient is a kernel's shape too); None for other values."""
    from ..core.tf_types import Kind, kind_of
    from ..views import variables as variable_views

    if _is_gradient_info(value):
        name = getattr(getattr(value, "source", None), "name", None)
        return name if isinstance(name, str) else None
    if kind_of(value) not in (Kind.VARIABLE, Kind.KERAS_VARIABLE):
        return None
    return variable_views.label(value)


def _histogram(tensor: Any, figures: Any, category: str, bins: int) -> Any:
    """Over the finite range the figures found; None when there is none."""
    from . import histograms

    if category == "bool":
        return histograms.histogram(tensor, 0, 1, True, bins, False)
    if figures.min is None:
        return None
    integral = category == "int"
    bad = _may_be_bad(figures, category)
    return histograms.histogram(tensor, figures.min, figures.max, integral, bins, bad)


def _summary(source: Source) -> str:
    from ..views import dispatch
    from ..views import tensors as tensor_views

    try:
        if source.is_array:
            array = source.values
            line = tensor_views.summary(tensor_views.HostArray(array, array.dtype.name, ""))
        else:
            line = dispatch.summary(source.summary_of)
    except Exception as exc:
        line = f"<error: {_first_line(exc)}>"
    return f"{line} · showing {source.note}" if source.note else line


def _dtype_name(source: Source) -> str:
    dtype = source.values.dtype
    return str(getattr(dtype, "name", dtype))


def _category(source: Source) -> str:
    from ..core.stats import category_of

    values = source.values
    if source.is_array:
        return category_of(values.dtype)
    if not values.dtype.is_numpy_compatible:
        return "other"
    if values.dtype.is_quantized:
        return "int"
    return category_of(np.dtype(values.dtype.as_numpy_dtype))


def _numeric(source: Source, part: str | None) -> Any:
    """The values as a tensor TF can slice, cast and count, or a host array (numpy arrays
    and the dtypes TF has no kernels for: int4, the fnuz float8s…); a complex value
    becomes the part shown."""
    import tensorflow as tf

    from ..core.guards import host_view, is_on_host
    from ..views.tensors import HOST_SLICED

    values = source.values
    array = None
    if source.is_array:
        array = values
    elif values.dtype.name in HOST_SLICED and is_on_host(values):
        array = np.asarray(host_view(values))
    if array is not None:
        if array.dtype.kind == "V":  # ml_dtypes (bfloat16, float8, int4…): widen on the host
            array = array.astype(np.float32)
        # Left as numpy: the slice, the histogram's sample and the images convert only the
        # pieces they cut (tf.constant of the whole array took twice its size).
        if part is None:
            return array
        parts: dict[str, Any] = {"abs": np.abs, "angle": np.angle, "real": np.real, "imag": np.imag}
        return parts[part](array)
    if part is None:
        return values
    return {"abs": tf.abs, "angle": tf.math.angle, "real": tf.math.real, "imag": tf.math.imag}[
        part
    ](values)


def _figures(source: Source, tensor: Any, part: str | None) -> Any:
    """The value's statistics: the plugin's own (cached for an eager tensor) where they
    describe what is drawn; those of the part for a complex value's angle/real/imag."""
    from ..core.stats import array_stats, tensor_stats

    if part not in (None, "abs"):
        return array_stats(tensor) if isinstance(tensor, np.ndarray) else tensor_stats(tensor)
    if source.is_array:
        return array_stats(source.values)
    return tensor_stats(source.values)


def _finite(x: Any) -> float | int | None:
    if x is None:
        return None
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    x = float(x)
    return x if math.isfinite(x) else None


def _stats_dict(s: Any, histogram: Any) -> dict:
    zeros = histogram.zeros if histogram is not None else 0
    if s.category == "bool":
        true = s.true_count or 0
        share = true / s.size if s.size else 0.0
        low, high = (0 if true < s.size else 1), (1 if true else 0)
        mean, std = share, math.sqrt(share * (1 - share))
        zeros = s.size - true
    else:
        low, high, mean, std = s.min, s.max, s.mean, s.std
    return {
        "n": s.size,
        "min": _finite(low),
        "max": _finite(high),
        "mean": _finite(mean),
        "std": _finite(std),
        "nan": s.nan,
        "posinf": s.posinf,
        "neginf": s.neginf,
        "zeros": int(zeros),
        "sampled": bool(s.extremes_sampled or (histogram is not None and histogram.sampled)),
        "moments_sampled": s.moments_sample is not None,
    }


def _may_be_bad(figures: Any, category: str) -> bool:
    """Could the value hold NaN/±Inf? Not when its (exact) figures count none."""
    return category == "float" and (figures.bad > 0 or figures.extremes_sampled)


def _sum_may_overflow(figures: Any, step: tuple[int, int]) -> bool:
    """Could a block's float32 sum pass float32's range (values near 3e38, a value about
    to overflow)? Then its mean would show as the largest float32, not the mean."""
    if figures.min is None or figures.max is None:
        return False
    largest = max(abs(float(figures.min)), abs(float(figures.max)))
    return largest * step[0] * step[1] >= float(np.finfo(np.float32).max) / 2


def _b64(array: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")


def _slice(tensor: Any, spec: Any, budget: int, figures: Any, category: str) -> dict:
    import tensorflow as tf

    from . import slices as tensor_slices

    (r0, r1), (c0, c1) = spec.region
    step = tensor_slices.choose_step(r1 - r0, c1 - c0, budget // CELL_BYTES)
    wide = tensor.dtype.name in _WIDE or _sum_may_overflow(figures, step)
    dtype = tf.float64 if wide else tf.float32
    may_be_bad = _may_be_bad(figures, category)
    # Tiles of whole blocks, so that the copies and temporaries on the device stay small
    # whatever the region's size (a matrix filling a GPU must not need twice its memory):
    # bands of rows, each cut into columns where one row is long (a vector, a [1, 10^8]).
    # The last partial block of each side is a tile of its own: the others need no padding
    # (padding copied each tile: a third of the time).
    tile_cols = max(1, tensor_slices.BAND_ELEMENTS // step[0] // step[1]) * step[1]
    band = max(1, tensor_slices.BAND_ELEMENTS // min(tile_cols, c1 - c0) // step[0]) * step[0]

    def cuts(start: int, stop: int, size: int, block: int) -> list[tuple[int, int]]:
        whole = start + (stop - start) // block * block
        pieces = [(a, min(a + size, whole)) for a in range(start, whole, size)]
        return pieces + [(whole, stop)] if whole < stop else pieces

    # At full resolution a float region is copied as it is and converted on the host (the
    # cells are copied there anyway): TF's CPU cast would flush its subnormals to zero.
    exact = step == (1, 1) and category == "float"

    def tile(rows: tuple[int, int], cols: tuple[int, int]) -> Any:
        region = replace(spec, region=(rows, cols))
        if exact:
            return tensor_slices.host_cells(tensor_slices.take(tensor, region, None))
        piece = tensor_slices.take(tensor, region, dtype)
        return tensor_slices.reduce_blocks(piece, step, may_be_bad)

    column_cuts = cuts(c0, c1, tile_cols, step[1])
    tiles = [[tile(rows, cols) for cols in column_cuts] for rows in cuts(r0, r1, band, step[0])]

    def joined(field: str) -> np.ndarray:
        return np.concatenate(
            [np.concatenate([getattr(t, field) for t in row], 1) for row in tiles]
        )

    cells = tensor_slices.Cells(joined("values"), joined("mask"), joined("filled"))
    shown = cells.values[cells.filled]
    low = float(shown.min()) if shown.size else 0.0
    high = float(shown.max()) if shown.size else 0.0
    height, width = cells.values.shape
    return {
        "axes": list(spec.axes),
        "index": list(spec.index),
        "rows": spec.rows,
        "cols": spec.cols,
        "region": [list(spec.region[0]), list(spec.region[1])],
        "height": int(height),
        "width": int(width),
        "step": list(step),
        "reduce": "none" if step == (1, 1) else "mean",
        "values": _b64(cells.values.astype("<f4")),
        "mask": _b64(cells.mask),
        "min": low,
        "max": high,
        "signed": low < 0 < high,
    }


# --------------------------------------------------------------------------- wire


def _finite_json(obj: Any) -> Any:
    """Every float finite (JSON has no NaN): a non-finite one becomes null."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite_json(v) for v in obj]
    return obj


def encode(payload: dict) -> str:
    """base64 of the UTF-8 JSON: only ``[A-Za-z0-9+/=]``, so its repr is always
    ``'<base64>'`` and pydevd's clipboard context passes it whole."""
    text = json.dumps(_finite_json(payload), allow_nan=False, separators=(",", ":"))
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def decode(text: str) -> dict:
    """What the extension does with the ``evaluate`` result: strip the repr's quotes,
    base64, UTF-8, JSON."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return json.loads(base64.b64decode(text).decode("utf-8"))


def view_payload(value: Any, **request: Any) -> str:
    """``encode(build(value, **request))`` with the image's values (the page's hover reads
    them), never raising."""
    try:
        return encode(build(value, **request, pixel_values=True))
    except Exception as exc:
        return encode({"version": VERSION, "error": _first_line(exc)})
