"""Eager tensors: their summary line, their children and their Debug Console text.

Element previews walk the first axis (``[0]``, ``[1]``, …) down to plain Python
scalars; long axes are grouped into ``[0:100]``-style ranges so no level holds more
than ``CHUNK`` children. Listing children never copies a whole tensor off a GPU:
only expanding (or evaluating) the ``numpy`` child does.

Some dtypes have no TF slicing kernel on the CPU (quantized 16-bit, the 2- and 4-bit
integers, the ``fnuz`` float8 types, float4): their elements are sliced from the host
copy instead (``HostArray`` nodes), with expressions that go through numpy.
"""

from __future__ import annotations

import math
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import formatting as fmt
from ..core import time_budget
from ..core.guards import extend, harmless, host_view, is_on_host, slices_in_place
from ..core.stats import (
    SAMPLE_LIMIT,
    Stats,
    array_stats,
    cached_stats,
    first_bad_index,
    sampled_stats,
    sampled_stride,
    tensor_stats,
)
from ..core.view_model import (
    FACADE,
    NUMPY,
    Child,
    CutBytes,
    Expression,
    Node,
    Note,
    Scalar,
    call,
    error_note,
    lazy,
    scalar_leaf,
)

CHUNK = 100  # most children at one level of an axis
# Copy Value stops at this many elements; the Debug Console prints at most a screenful.
CLIPBOARD_ELEMENTS = 10_000
CONSOLE_FULL_ELEMENTS = 200  # up to this many, the console prints every value
CONSOLE_EDGE = 3  # corners shown per axis beyond that (numpy's summarised form)
CONSOLE_ELEMENTS = CONSOLE_FULL_ELEMENTS  # kept for callers of the old name
CONSOLE_STRING_CHARS = 200  # each string element in the console, at most
CONSOLE_LINES = 40  # the values printed in the Debug Console take at most this many lines
CLIPBOARD_CHARS = 1_000_000  # Copy Value text, at most (megabyte strings)
SUMMARY_STRING_BYTES = 1_000  # of a string scalar, the summary line reads this much
STRING_COPY_BYTES = 1_000_000  # strings holding more: the numpy row copies them when expanded

# dtypes without a CPU slicing kernel in TF (measured on TF 2.21): sliced on the host.
HOST_SLICED = frozenset(
    {
        "qint16",
        "quint16",
        "int2",
        "uint2",
        "int4",
        "uint4",
        "float8_e4m3fnuz",
        "float8_e5m2fnuz",
        "float8_e4m3b11fnuz",
        "float4_e2m1fn",
    }
)
# Quantized 8/32-bit types slice, but have no Unpack (tf.unstack) kernel.
_NO_UNSTACK = frozenset({"qint8", "quint8", "qint32"})


# --------------------------------------------------------------------------- values


def has_values(tensor: Any) -> bool:
    """False for resource and variant tensors (handles), which numpy cannot hold."""
    if isinstance(tensor, HostArray):
        return True
    return bool(getattr(tensor.dtype, "is_numpy_compatible", True))


def _dims(tensor: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in tensor.shape)


def _dtype_name(tensor: Any) -> str:
    return tensor.dtype_name if isinstance(tensor, HostArray) else tensor.dtype.name


def host_sliced(tensor: Any) -> bool:
    """Elements come from the host copy: a numpy-backed node, or a dtype TF cannot slice."""
    return isinstance(tensor, HostArray) or (
        tensor.dtype.name in HOST_SLICED and is_on_host(tensor)
    )


def host_array(tensor: Any) -> np.ndarray:
    """The values on the host: a zero-copy view of a CPU tensor, a copy from elsewhere.
    Only called on tensors already known to be small (or sliced to be)."""
    if isinstance(tensor, HostArray):
        return tensor.array
    return np.asarray(host_view(tensor) if is_on_host(tensor) else tensor.numpy())


def strings_cut(tensor: Any, limit: int) -> Any:
    """A string tensor with every element cut to ``limit`` bytes on its own device, so a
    100 MB string is never copied to the host or repr'd whole at each refresh; any other
    tensor unchanged."""
    if isinstance(tensor, HostArray) or _dtype_name(tensor) != "string":
        return tensor
    import tensorflow as tf

    with harmless(tensor.device):
        return tf.strings.substr(tensor, 0, limit)


def string_scalar_text(tensor: Any, limit: int = SUMMARY_STRING_BYTES) -> str | None:
    """``b'abc…'… (100 MB)`` for a string scalar longer than ``limit`` bytes, read from a cut
    on its device; None for any other value (shown as it is)."""
    if isinstance(tensor, HostArray) or _dtype_name(tensor) != "string" or _dims(tensor):
        return None
    import tensorflow as tf

    with harmless(tensor.device):
        length = int(tf.strings.length(tensor).numpy())
        if length <= limit:
            return None
        head = tf.strings.substr(tensor, 0, limit).numpy()
    return f"{head!r}… ({fmt.bytes_text(length)})"


def stats_of(tensor: Any) -> Stats:
    """Exact figures (as exact as ``stats`` makes them at any size)."""
    if isinstance(tensor, HostArray):
        found = tensor.known() if tensor.known is not None else None
        return found if found is not None else array_stats(tensor.array)
    return tensor_stats(tensor)


def summary_stats(tensor: Any) -> Stats:
    """The figures of a summary line: exact while the request's time budget lasts
    (``time_budget``) or when already known, sampled (marked ``~``) after that. Small tensors
    are always exact: their figures cost less than deciding."""
    size = math.prod(_dims(tensor))  # (math's: numpy's costs ~20 µs a row)
    if size <= SAMPLE_LIMIT or _dtype_name(tensor) == "string":
        return stats_of(tensor)
    known = None if isinstance(tensor, HostArray) else cached_stats(tensor)
    if known is not None:
        return known
    if time_budget.allows_exact(size):
        start = time.perf_counter()
        try:
            return stats_of(tensor)
        finally:
            time_budget.charge(time.perf_counter() - start, size)
    if isinstance(tensor, HostArray):
        array = tensor.array
        last = int(array.shape[-1]) if array.ndim else 1
        return array_stats(array, sampled_stride(int(array.size), array.dtype.itemsize, last))
    return sampled_stats(tensor)


def leaf(value: Any) -> Any:
    """An element as a plain Python leaf; ml_dtypes integers (int4…) stay integers."""
    if isinstance(value, np.generic) and value.dtype.kind == "V" and "int" in value.dtype.name:
        return Scalar(int(value), value.dtype.name)
    return scalar_leaf(value)


def _part(tensor: Any, start: int, stop: int) -> Any:
    """Rows ``start:stop`` of the first axis, of the same kind as ``tensor``."""
    if host_sliced(tensor):
        return HostArray(
            host_array(tensor)[start:stop], _dtype_name(tensor), getattr(tensor, "device", "")
        )
    with harmless(tensor.device):
        return tensor[start:stop]


def host_values(tensor: Any, limit: int) -> tuple[np.ndarray, str]:
    """At most ``limit`` elements on the host, and a note saying what was left out.

    Whole leading rows when a row fits, else a flat prefix; sliced on the tensor's own
    device first, so a huge GPU tensor is never copied whole."""
    dims = _dims(tensor)
    size = math.prod(dims)
    if size <= limit:
        return host_array(tensor), ""
    row = size // dims[0]
    what = "elements" if len(dims) == 1 else "rows"
    if host_sliced(tensor) or is_on_host(tensor):
        flat = host_array(tensor)
        if row <= limit:
            rows = limit // row
            note = f"… first {fmt.count(rows)} of {fmt.count(dims[0])} {what} shown"
            return flat[:rows], note
        note = f"… first {fmt.count(limit)} of {fmt.count(size)} elements shown (flattened)"
        return flat.reshape(-1)[:limit], note
    with harmless(tensor.device):
        if row <= limit:
            rows = limit // row
            part = tensor[:rows]
            note = f"… first {fmt.count(rows)} of {fmt.count(dims[0])} {what} shown"
        else:
            import tensorflow as tf

            part = tf.reshape(tensor, [-1])[:limit]
            note = f"… first {fmt.count(limit)} of {fmt.count(size)} elements shown (flattened)"
        array = host_array(part)
    return array, note


# --------------------------------------------------------------------------- summary


def summary_parts(
    tensor: Any, stats: Stats | None = None, tail: Sequence[fmt.Part] = ()
) -> list[fmt.Part]:
    """The parts of a summary line, most telling first, for a 300 px sidebar that shows
    about 30 characters of a value: a scalar's (or one element's) value, else dtype and
    shape, ``‼`` flags, range, mean and std, the byte size of a big tensor, element count
    and device, inline values last; then ``tail`` (a variable's name), which the pane's
    row name usually already tells."""
    P = fmt.Part
    dims = _dims(tensor)
    dtype = _dtype_name(tensor)
    device = fmt.device_text(getattr(tensor, "device", ""))
    head = P(f"{dtype}{fmt.shape_text(tensor.shape)}")
    if not has_values(tensor):
        return [head, P(device, fmt.FACTS), P("(a handle: no values to show)"), *tail]
    if stats is None:
        stats = summary_stats(tensor)
    if not dims:
        warn = fmt.WARNING if stats.bad else ""  # the value itself says nan/inf
        shown = _scalar_text(tensor)
        return [P(warn), P(shown, fmt.KEEP, shrink=True), P(dtype), P(device, fmt.FACTS), *tail]
    if stats.size == 1:
        # One element: its value says all that a range, mean and std would.
        shown = strings_cut(tensor, SUMMARY_STRING_BYTES)
        value = P(fmt.inline_values(host_array(shown)), fmt.KEEP, shrink=True)
        warn = fmt.WARNING if stats.bad else ""
        return [head, P(warn), value, P(device, fmt.FACTS), *tail]
    parts = [head, P(fmt.bad_values_text(stats))]
    if stats.size == 0:
        return [*parts, P(device, fmt.FACTS), P("empty"), *tail]
    if stats.category not in ("string", "other"):
        span, mean, std = fmt.figures(stats)
        parts += [P(span, fmt.FIGURES), P(mean, fmt.MOMENTS), P(std, fmt.MOMENTS)]
    parts += [
        P(fmt.big_bytes_text(_value_bytes(tensor, stats.size)), fmt.FACTS),
        P(f"n={fmt.count(stats.size)}", fmt.FACTS),
        P(device, fmt.FACTS),
    ]
    if stats.size <= fmt.INLINE_ELEMENTS:
        # Strings cut on the device first: the line shows a few characters of each anyway.
        shown = strings_cut(tensor, SUMMARY_STRING_BYTES)
        parts.append(P(fmt.inline_values(host_array(shown)), fmt.VALUES))
    return [*parts, *tail]


def _scalar_text(tensor: Any) -> str:
    """A scalar in full (the shortest text of its dtype), not rounded; a long string by its
    head."""
    long_string = string_scalar_text(tensor)
    value = leaf(host_array(tensor)[()]) if long_string is None else Note(long_string)
    if isinstance(value, (Scalar, Note)):
        return value.text
    return repr(value) if isinstance(value, (bytes, float, complex)) else fmt.number(value)


def _value_bytes(tensor: Any, size: int) -> int:
    """Bytes the elements take (0 for strings, whose size is not in the shape)."""
    if isinstance(tensor, HostArray):
        return int(tensor.array.nbytes) if tensor.array.dtype.kind not in "OSU" else 0
    if tensor.dtype.name == "string":
        return 0
    return size * int(getattr(tensor.dtype, "size", 0) or 0)


def summary(tensor: Any, stats: Stats | None = None, tail: Sequence[fmt.Part] = ()) -> str:
    """``float32[2, 3] x∈[-1, 2.5] μ=0.3333 σ=1.118 n=6 CPU:0 [[…]]``"""
    return fmt.render(summary_parts(tensor, stats, tail))


# --------------------------------------------------------------------------- children


def _guarded(name: str, make: Callable[[], list[Child]]) -> list[Child]:
    """Children from one source; if it fails, one placeholder in their place, so that a
    failing part (say, locating a NaN in float8) never hides the elements."""
    try:
        return make()
    except Exception as exc:
        from ..core.view_model import error_note

        return [Child(name, error_note(exc))]


def tensor_children(tensor: Any, stats: Stats | None = None) -> list[Child]:
    """Children of an eager tensor (also of a variable's current value, and of the
    numpy-backed rows of a host-sliced tensor)."""
    if not has_values(tensor):
        return property_children(tensor)
    if stats is None:
        stats = stats_of(tensor)
    dims = _dims(tensor)
    # Where ``x[i]`` cannot run (no TF kernel), the expressions index ``x.numpy()``.
    prefix = ".numpy()" if host_sliced(tensor) and not isinstance(tensor, HostArray) else ""
    children: list[Child] = []
    if dims:
        children += _guarded(
            "elements", lambda: axis_children(tensor, 0, dims[0], base_suffix="", prefix=prefix)
        )
        if not isinstance(tensor, HostArray):
            children.append(numpy_child(tensor))
    else:
        try:
            value = _scalar_value(tensor)
        except Exception as exc:  # that one row says so
            value = error_note(exc)
        # a long string's head: its expression is the scalar (which shows that head), not
        # .numpy(), which gives the whole string
        expression = _same if isinstance(value, CutBytes) else _scalar_expression(stats)
        children.append(Child("value", value, expression))
    children += property_children(tensor)
    if dims and stats.size > 1 and stats.category not in ("string", "other"):
        # Its expression is the tensor itself (whose summary carries the same figures),
        # so each figure below gets a real expression built on it. A scalar's summary
        # (or one element's) is its value: figures of one element would say nothing more.
        children.append(Child("stats", StatsNode(tensor, stats), _same))
    if stats.bad:
        children += _guarded(f"{fmt.WARNING} bad values", lambda: bad_value_children(tensor, stats))
    return children


def _scalar_value(tensor: Any) -> Any:
    """The element of a scalar; a long string's head as a line of text (pydevd would repr
    the whole string at every refresh)."""
    long_string = string_scalar_text(tensor)
    return leaf(host_array(tensor)[()]) if long_string is None else CutBytes(long_string)


def _scalar_expression(stats: Stats) -> str:
    # A string scalar's numpy() is already bytes (no .item()).
    return ".numpy()" if stats.category == "string" else ".numpy().item()"


def property_children(tensor: Any) -> list[Child]:
    # Notes, not tuples: a tuple would expand into pydevd's "special variables" noise.
    shape = Child("shape", Note(str(_dims(tensor))), call("tuple({}.shape)"))
    if isinstance(tensor, HostArray):
        return [shape, Child("dtype", Note(tensor.dtype_name))]
    return [
        shape,
        Child("dtype", Note(tensor.dtype.name), call("{}.dtype.name")),
        Child("device", Note(tensor.device), ".device"),
    ]


def numpy_child(tensor: Any) -> Child:
    """The values as numpy: a zero-copy view on CPU; on a GPU, a node that copies only
    when the user expands it."""
    # Strings are never a view (numpy holds copies): long ones are copied only when expanded.
    if is_on_host(tensor) and _string_bytes(tensor) <= STRING_COPY_BYTES:
        return lazy("numpy", lambda: host_view(tensor), ".numpy()")
    # a note about the copy, not the array: its expression gives that same node
    return Child("numpy", HostCopy(tensor), call(HOST_COPY + "({})"))


def _string_bytes(tensor: Any) -> int:
    """The bytes a string tensor's elements hold (counted on its device); 0 for other dtypes."""
    if tensor.dtype.name != "string":
        return 0
    import tensorflow as tf

    with harmless(tensor.device):
        return int(tf.reduce_sum(tf.strings.length(tensor)).numpy())


def _same(parent: str) -> str:
    return parent


def _element_expression(base_suffix: str, index_text: str, keep_device: bool) -> Expression:
    """The expression of an element of a range node: the range's own ``[a:b]`` suffix
    is replaced so ``Add to Watch`` on ``[150]`` gives ``x[150]``, not ``x[100:200][50]``.
    ``keep_device``: the elements are sliced on a device ``x[i]`` would not run on
    (``slices_in_place``), so the expression slices there too."""
    # Through ``guards.extend``: under Keras's build pass the parent's expression is an
    # ``eagerly(lambda v: …, w)`` wrapper, and the index belongs inside it.
    return lambda parent: extend(parent, index_text, replacing=base_suffix, keep_device=keep_device)


def _keeps_device(tensor: Any) -> bool:
    """Do the expressions of ``tensor``'s elements need to name its device?"""
    return not host_sliced(tensor) and not slices_in_place(tensor)


def axis_children(
    tensor: Any, start: int, stop: int, base_suffix: str, prefix: str = ""
) -> list[Child]:
    """Elements ``start..stop`` of the first axis, or range nodes when there are too many.
    ``prefix`` goes before the index at the top level (``.numpy()`` where TF cannot slice)."""
    length = stop - start
    lead = "" if base_suffix else prefix
    if length > CHUNK:
        keep_device = _keeps_device(tensor)
        step = CHUNK
        while step * CHUNK < length:
            step *= CHUNK
        nodes = []
        for a in range(start, stop, step):
            b = min(stop, a + step)
            suffix = f"[{a}:{b}]"
            nodes.append(
                Child(
                    suffix,
                    AxisRange(tensor, a, b),
                    _element_expression(base_suffix, lead + suffix, keep_device),
                )
            )
        return nodes
    return element_children(tensor, start, stop, base_suffix, lead)


def element_children(
    tensor: Any, start: int, stop: int, base_suffix: str, lead: str = ""
) -> list[Child]:
    dims = _dims(tensor)
    if stop <= start:
        return []
    values: list[Any]
    if host_sliced(tensor):
        block = host_array(tensor)[start:stop]
        if len(dims) == 1:
            values = [leaf(v) for v in block]
        else:
            name, device = _dtype_name(tensor), getattr(tensor, "device", "")
            values = [HostArray(row, name, device) for row in block]
    else:
        with harmless(tensor.device):
            block = tensor[start:stop]
            if len(dims) == 1 and block.dtype.name == "string":
                values = _string_leaves(block)
            elif len(dims) == 1:
                values = [leaf(v) for v in host_array(block)]
            elif tensor.dtype.name in _NO_UNSTACK:
                values = [block[i] for i in range(stop - start)]
            else:
                import tensorflow as tf

                values = tf.unstack(block)  # one op for all rows, not one slice per row
    keep_device = _keeps_device(tensor)
    return [
        Child(
            f"[{start + i}]",
            value,
            _element_expression(base_suffix, f"{lead}[{start + i}]", keep_device),
        )
        for i, value in enumerate(values)
    ]


def _string_leaves(block: Any) -> list[Any]:
    """String elements as leaves, each read cut on the device: a long one is a line of text
    with its head and length (pydevd would repr it whole at every refresh)."""
    import tensorflow as tf

    lengths = tf.strings.length(block).numpy()
    heads = host_array(tf.strings.substr(block, 0, SUMMARY_STRING_BYTES))
    return [
        CutBytes(f"{head!r}… ({fmt.bytes_text(int(n))})")
        if n > SUMMARY_STRING_BYTES
        else leaf(head)
        for head, n in zip(heads, lengths)
    ]


def bad_value_children(tensor: Any, stats: Stats) -> list[Child]:
    children = [Child(f"{fmt.WARNING} bad values", BadValues(tensor, stats), _same)]
    if not _dims(tensor):
        return children  # a scalar's first NaN is the scalar itself: its value child
    source = host_array(tensor) if host_sliced(tensor) else tensor
    index = first_bad_index(source)
    if index is not None:
        lead = ".numpy()" if host_sliced(tensor) and not isinstance(tensor, HostArray) else ""
        index_text = "[" + ", ".join(str(i) for i in index) + "]"
        children.append(
            lazy(
                f"{fmt.WARNING} first NaN/Inf at {index_text}",
                lambda: _element(tensor, index),
                lead + index_text,
            )
        )
    return children


def _element(tensor: Any, index: tuple[int, ...]) -> Any:
    if host_sliced(tensor):
        return leaf(host_array(tensor)[index])
    # Indexing is an op: under ``harmless`` it is neither traced nor taped.
    with harmless(tensor.device):
        return leaf(host_array(tensor[index])[()])


# --------------------------------------------------------------------------- nodes


class HostArray(Node):
    """Rows of a tensor whose dtype TF cannot slice, held as numpy: shown like a tensor
    (its TF dtype, its device), indexed through numpy."""

    def __init__(
        self,
        array: np.ndarray,
        dtype_name: str,
        device: str,
        known: Callable[[], Stats | None] | None = None,
    ) -> None:
        self.array = np.asarray(array)
        self.dtype_name = dtype_name
        self.device = device
        # its figures when they were taken with its siblings' (``_range_stats``), else None
        self.known = known

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape

    def summary(self) -> str:
        return summary(self)

    def children(self) -> list[Child]:
        return tensor_children(self)


class AxisRange(Node):
    """A group of rows ``[start:stop]`` of a long first axis."""

    def __init__(self, tensor: Any, start: int, stop: int) -> None:
        self.tensor = tensor
        self.start = start
        self.stop = stop

    @property
    def suffix(self) -> str:
        return f"[{self.start}:{self.stop}]"

    def summary(self) -> str:
        line = _range_line(self.tensor, self.start, self.stop)
        if line is not None:
            return line
        return summary(_range_part(self.tensor, self.start, self.stop))

    def children(self) -> list[Child]:
        return axis_children(self.tensor, self.start, self.stop, base_suffix=self.suffix)


# numpy kinds whose figures ``array_stats`` takes from a view as it takes them from the
# tensor's own host view (no ml_dtypes, no strings)
_VIEW_KINDS = frozenset("biufc")


def _range_part(tensor: Any, start: int, stop: int) -> Any:
    """Rows ``start:stop`` for a range row's summary. A CPU tensor's rows are a view of its
    host buffer (``HostArray``): the same figures and text as the sliced tensor's, without
    a TF slice per row (a 10^6 variable's expansion sliced it 100 times: ~40% of the
    request, benchmarks/profile_stop.py)."""
    if (
        not isinstance(tensor, HostArray)
        and not host_sliced(tensor)
        and is_on_host(tensor)
        and hasattr(tensor, "_numpy")
    ):
        dtype = host_array_dtype(tensor)
        if dtype.kind in _VIEW_KINDS:
            rows = host_view(tensor)[start:stop]
            return HostArray(
                rows,
                _dtype_name(tensor),
                getattr(tensor, "device", ""),
                lambda: _range_stats(tensor, start, stop),
            )
    return _part(tensor, start, stop)


# id(tensor) -> (weak reference to it, {(rows per range, first range's start): {start:
# figures}, ("parts", rows per range): the line's parts all those ranges share}): the
# figures of every range row of a tensor, taken together by the first row's summary. An
# eager tensor never changes; an entry leaves with its tensor.
_RANGE_STATS: OrderedDict[int, tuple[weakref.ref, dict]] = OrderedDict()
_RANGE_STATS_KEPT = 16
RANGE_GROUP_ELEMENTS = 1 << 15  # elements widened to float64 at a time (256 KiB: in cache)


def _range_stats(tensor: Any, start: int, stop: int) -> Stats | None:
    """The figures of rows ``start:stop`` of a CPU float tensor, taken with those of every
    other range of the same length at once: one vectorised pass over the tensor (min, max,
    mean and std along each range) where a 10^6-element variable's 100 range rows made 100
    calls of each reduction (~60% of its expansion, benchmarks/profile_stop.py). The same
    figures bit for bit as ``array_stats`` of each range (the same reductions, each over a
    contiguous range; tests/unit/test_views.py). None where that does not hold: a range
    past ``SAMPLE_LIMIT`` elements (sampled or chunked figures), a NaN or ±Inf in the range
    (its counts), other dtypes, the last, shorter range."""
    view = host_view(tensor)
    width = stop - start
    if (
        view.dtype.kind != "f"
        or view.ndim == 0
        or not view.flags.c_contiguous
        or width <= 0
        or width * (view.size // max(1, view.shape[0])) > SAMPLE_LIMIT
    ):
        return None
    origin = start % width
    key = (width, origin)
    entry = _RANGE_STATS.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        entry = (weakref.ref(tensor), {})
        _RANGE_STATS[id(tensor)] = entry
        while len(_RANGE_STATS) > _RANGE_STATS_KEPT:
            _RANGE_STATS.popitem(last=False)
    table = entry[1].get(key)
    if table is None:
        table = entry[1][key] = _ranges_figures(view, width, origin)
    return table.get(start)


def _range_line(tensor: Any, start: int, stop: int) -> str | None:
    """The summary line of rows ``start:stop`` of a CPU float tensor whose figures were
    taken with its siblings' (``_range_stats``) and hold no NaN or Inf: the text
    ``summary`` gives for the range's host view, with the parts every range of that length
    shares (dtype and shape, bytes, count, device) made once per tensor. A 10^6 variable's
    100 range rows each made those parts again (~65 of ~90 us a row). None where the general
    way is taken (other tensors, a NaN or Inf, few elements: their values inline)."""
    width = stop - start
    entry = _range_entry(tensor)
    table = None
    if entry is not None and width > 0:
        table = entry.get((width, start % width))  # its siblings' row made it
    if table is not None:
        stats = table.get(start)
    elif (
        isinstance(tensor, HostArray)
        or host_sliced(tensor)
        or not is_on_host(tensor)
        or not hasattr(tensor, "_numpy")
    ):
        return None
    else:
        stats = _range_stats(tensor, start, stop)
        entry = _range_entry(tensor)
    if stats is None or stats.bad or entry is None:
        return None
    shared = entry.get(("parts", width))
    if shared is None:
        rest = tuple(int(d) for d in tensor.shape[1:])
        size = width * math.prod(rest)
        if size <= fmt.INLINE_ELEMENTS:  # its values go inline: the general way
            shared = entry[("parts", width)] = ()
        else:
            texts = (
                fmt.big_bytes_text(size * host_view(tensor).itemsize),
                f"n={fmt.count(size)}",
                fmt.device_text(getattr(tensor, "device", "")),
            )
            shared = entry[("parts", width)] = (
                fmt.Part(f"{_dtype_name(tensor)}{fmt.shape_text((width, *rest))}"),
                tuple(fmt.Part(text, fmt.FACTS) for text in texts),
            )
    if not shared:
        return None
    head, facts = shared
    span, mean, std = fmt.figures(stats)
    return fmt.render(
        [
            head,
            fmt.Part(fmt.bad_values_text(stats)),
            fmt.Part(span, fmt.FIGURES),
            fmt.Part(mean, fmt.MOMENTS),
            fmt.Part(std, fmt.MOMENTS),
            *facts,
        ]
    )


def _range_entry(tensor: Any) -> dict | None:
    """``_RANGE_STATS``'s tables of this very tensor, if it has them."""
    entry = _RANGE_STATS.get(id(tensor))
    return entry[1] if entry is not None and entry[0]() is tensor else None


def _ranges_figures(view: np.ndarray, width: int, origin: int) -> dict[int, Stats]:
    """``{start: figures}`` of the whole ranges of ``width`` rows from ``origin`` whose
    elements are all finite, as ``array_stats``'s exact path computes them."""
    count = (view.shape[0] - origin) // width
    if count <= 0:
        return {}
    blocks = view[origin : origin + count * width].reshape(count, -1)
    size = int(blocks.shape[1])
    if not size:
        return {}
    lows, highs = blocks.min(axis=1), blocks.max(axis=1)
    clean = np.isfinite(lows) & np.isfinite(highs)
    means = np.empty(count, np.float64)
    stds = np.empty(count, np.float64)
    group = max(1, RANGE_GROUP_ELEMENTS // size)  # float64 copies of this many at a time
    # one float64 buffer, worked in place: the same arithmetic as array_stats's, without
    # three fresh arrays per group
    scratch = np.empty((min(group, count), size), np.float64)
    with np.errstate(all="ignore"):
        for first in range(0, count, group):
            wide = scratch[: min(group, count - first)]
            np.copyto(wide, blocks[first : first + group], casting="unsafe")
            mean = means[first : first + group] = wide.mean(axis=1)
            wide -= mean[:, None]
            np.square(wide, out=wide)
            stds[first : first + group] = np.sqrt(wide.mean(axis=1))
    return {
        origin + i * width: Stats(
            size=size,
            category="float",
            min=float(lows[i].item()),
            max=float(highs[i].item()),
            mean=float(means[i]),
            std=float(stds[i]),
            moments_sample=None,
            moments_stride=1,
            extremes_sampled=False,
            extremes_stride=1,
        )
        for i in range(count)
        if clean[i]
    }


class HostCopy(Node):
    """The ``numpy`` child of a tensor on an accelerator: copied only when expanded."""

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor

    def summary(self) -> str:
        nbytes = _string_bytes(self.tensor) or (
            (self.tensor.shape.num_elements() or 0) * self.tensor.dtype.size
        )
        return (
            f"ndarray {self.tensor.dtype.name}{fmt.shape_text(self.tensor.shape)} on "
            f"{fmt.device_text(self.tensor.device)}: expand to copy {nbytes / 2**20:.1f} MiB to the host"
        )

    def children(self) -> list[Child]:
        return [lazy("array", self.tensor.numpy, _copied)]


HOST_COPY = f"{FACADE}.host_copy"


def _copied(parent: str) -> str:
    """``x.numpy()`` from the ``numpy`` row's expression ``…host_copy(x)``."""
    prefix = HOST_COPY + "("
    if parent.startswith(prefix) and parent.endswith(")"):
        return parent[len(prefix) : -1] + ".numpy()"
    return f"({parent}).tensor.numpy()"


def _flat_source(tensor: Any, category: str) -> Callable[[str], str]:
    """An expression for the elements as a flat numpy array: ``x.numpy()`` (it also works
    on 0-d bfloat16/float8 tensors, where ``numpy.asarray(x)`` fails), widened where
    numpy's reductions do not take the dtype (bfloat16, float8, int4…)."""
    widen = ""
    if host_array_dtype(tensor).kind == "V":
        widen = ".astype('int64')" if category == "int" else ".astype('float64')"
    if isinstance(tensor, HostArray):
        return lambda p: f"{NUMPY}.asarray({p}).reshape(-1){widen}"
    return lambda p: f"{p}.numpy().reshape(-1){widen}"


def host_array_dtype(tensor: Any) -> np.dtype:
    if isinstance(tensor, HostArray):
        return tensor.array.dtype
    try:
        return np.dtype(tensor.dtype.as_numpy_dtype)
    except Exception:
        return np.dtype("O")


def _as_expressions_give(tensor: Any, s: Stats) -> tuple[Any, Any]:
    """The mean and std as the rows' expressions compute them (numpy's float64 ``mean()``
    and ``std()``), where the figures came whole from another algorithm: a tracked value's
    one pass (``forensics.one_pass``) sums in chunks, which differs in the last digits that
    these rows show. Only for figures of every element (a sample's keep theirs), read on the
    host only (no device copy): the one numpy pass an exact stats row always cost."""
    if s.moments_stride != 1 or s.category not in ("float", "int", "bool", "complex"):
        return s.mean, s.std
    try:
        if isinstance(tensor, HostArray):
            flat = np.asarray(tensor.array).reshape(-1)
        elif is_on_host(tensor):
            flat = np.asarray(host_view(tensor)).reshape(-1)
        else:
            return s.mean, s.std
        # a complex value's moments are its magnitudes' (``magnitude`` in the expression)
        wide = (np.abs(flat) if s.category == "complex" else flat).astype(np.float64)
        if s.bad:
            wide = wide[np.isfinite(wide)]
        if not wide.size:
            return s.mean, s.std
        return float(wide.mean()), float(wide.std())
    except Exception:  # the figures it has
        return s.mean, s.std


class StatsNode(Node):
    """The statistics, one leaf each, with expressions that recompute them."""

    def __init__(self, tensor: Any, stats: Stats) -> None:
        self.tensor = tensor
        self.stats = stats

    def summary(self) -> str:
        return fmt.stats_text(self.stats)

    def children(self) -> list[Child]:
        s = self.stats
        flat = _flat_source(self.tensor, s.category)

        # Expressions recompute over the same elements the figure came from.
        def over(stride: int) -> Callable[[str], str]:
            return flat if stride == 1 else (lambda p: f"{flat(p)}[::{stride}]")

        extremes, moments = over(s.extremes_stride), over(s.moments_stride)
        finite = (
            (lambda src: lambda p: f"(lambda a: a[{NUMPY}.isfinite(a)])({src(p)})")
            if s.bad
            else (lambda src: src)
        )
        magnitude = (
            (lambda src: lambda p: f"abs({src(p)})")
            if s.category == "complex"
            else (lambda src: src)
        )

        def reduce(fn: str, src: Callable[[str], str], cast: str = "float") -> Callable[[str], str]:
            return lambda p: f"{cast}({src(p)}.{fn}())"

        children = [Child("size", s.size, call("__import__('math').prod({}.shape)"))]
        if s.category == "bool":
            children.append(
                Child("true", s.true_count, lambda p: f"int({NUMPY}.count_nonzero({extremes(p)}))")
            )
        else:
            cast = "int" if s.category == "int" else "float"
            if s.min is not None:
                children.append(
                    Child("min", s.min, reduce("min", finite(magnitude(extremes)), cast))
                )
                children.append(
                    Child("max", s.max, reduce("max", finite(magnitude(extremes)), cast))
                )
            if s.mean is not None:
                mean_src = finite(magnitude(moments))
                mean, std = _as_expressions_give(self.tensor, s)
                children.append(
                    Child("mean", mean, lambda p: f"float({mean_src(p)}.astype('float64').mean())")
                )
                children.append(
                    Child("std", std, lambda p: f"float({mean_src(p)}.astype('float64').std())")
                )
        if s.moments_sample is not None:
            children.append(
                Child(
                    "sampled",
                    Note(
                        f"mean/std from every {fmt.ordinal(s.moments_stride)} element "
                        f"({fmt.count(s.moments_sample)} of {fmt.count(s.size)})"
                    ),
                )
            )
        if s.extremes_sampled:
            children.append(
                Child(
                    "sampled extremes",
                    Note(f"min/max/NaN counts from every {fmt.ordinal(s.extremes_stride)} element"),
                )
            )
        return children


class BadValues(Node):
    """Counts and shares of NaN, +Inf and -Inf."""

    def __init__(self, tensor: Any, stats: Stats) -> None:
        self.tensor = tensor
        self.stats = stats

    def summary(self) -> str:
        s = self.stats
        parts = [
            f"{label}×{fmt.count(n)} ({n / s.size:.1%})"
            for label, n in (("NaN", s.nan), ("+Inf", s.posinf), ("-Inf", s.neginf))
            if n
        ]
        return " ".join(parts) or "none"

    def children(self) -> list[Child]:
        s = self.stats
        flat = _flat_source(self.tensor, s.category)
        stride = s.extremes_stride
        sampled = (lambda p: f"{flat(p)}[::{stride}]") if stride > 1 else flat
        src = (lambda p: f"abs({sampled(p)})") if s.category == "complex" else sampled
        scale = f" * {stride}" if stride > 1 else ""
        checks = {
            "NaN": ("isnan({})", s.nan),
            "+Inf": ("isposinf({})", s.posinf),
            "-Inf": ("isneginf({})", s.neginf),
        }
        children = []
        for label, (test, n) in checks.items():
            children.append(
                Child(
                    label,
                    n,
                    lambda p, test=test: (  # type: ignore[misc]
                        f"int({NUMPY}.count_nonzero({NUMPY}.{test.format(src(p))})){scale}"
                    ),
                )
            )
        for label, (test, n) in checks.items():
            if n:
                children.append(
                    Child(
                        f"{label} share",
                        n / s.size,
                        lambda p, test=test: f"float({NUMPY}.{test.format(src(p))}.mean())",  # type: ignore[misc]
                    )
                )
        return children


# --------------------------------------------------------------------------- console


def _corners(tensor: Any, edge: int) -> np.ndarray:
    """The first and last ``edge`` entries of every long axis (plus one entry between,
    so that numpy still sees the axis as long and prints ``...`` there), gathered on the
    tensor's device: a screenful reaches the host, never the whole tensor."""
    dims = _dims(tensor)
    picks = [
        list(range(edge)) + [edge] + list(range(d - edge, d)) if d > 2 * edge + 1 else None
        for d in dims
    ]
    if host_sliced(tensor) or is_on_host(tensor):
        array = host_array(tensor)
        for axis, pick in enumerate(picks):
            if pick is not None:
                array = np.take(array, pick, axis=axis)
        return array
    import tensorflow as tf

    with harmless(tensor.device):
        part = tensor
        for axis, pick in enumerate(picks):
            if pick is not None:
                part = tf.gather(part, pick, axis=axis)
        return np.asarray(part.numpy())


def _console_text(array: np.ndarray, threshold: int, edge: int) -> str:
    return np.array2string(
        array,
        separator=", ",
        threshold=threshold,
        edgeitems=edge,
        max_line_width=120,
        formatter=fmt.array_formatter(array, CONSOLE_STRING_CHARS),
    )


def console_values(tensor: Any) -> str:
    """numpy-style values for the Debug Console: every value of a small tensor, numpy's
    summarised form (corners and ``...``) of a big or tall one, a screenful either way,
    with a line saying where the rest is. Empty for one element: the summary line above
    it already shows that value."""
    if not has_values(tensor):
        return "(a handle: no values to show)"
    tensor = strings_cut(tensor, CONSOLE_STRING_CHARS + 1)  # one byte more: the cut shows
    dims = _dims(tensor)
    size = math.prod(dims)
    if size == 1:
        return ""
    edge = CONSOLE_EDGE if len(dims) <= 2 else CONSOLE_EDGE - 1  # deep tensors: fewer corners
    summarised = size > CONSOLE_FULL_ELEMENTS
    if not summarised:
        array = host_array(tensor)
        text = _console_text(array, CONSOLE_FULL_ELEMENTS, edge)
        if len(text.splitlines()) > CONSOLE_LINES:
            # Few values but many lines (a [64, 1] column): the first and last rows that
            # fit, as numpy summarises, rather than a cut with no word about the rest.
            summarised = True
            edge = (CONSOLE_LINES - 2) // 2
            text = _console_text(array, 0, edge)
            while len(text.splitlines()) > CONSOLE_LINES and edge > 1:
                edge -= 1
                text = _console_text(array, 0, edge)
    else:
        text = _console_text(_corners(tensor, edge), 0, edge)
    lines = text.splitlines()
    if len(lines) > CONSOLE_LINES:  # a rank-6 corner still fits a screen: the worst case
        text = "\n".join([*lines[: CONSOLE_LINES - 2], "...", lines[-1]])
        summarised = True
    if summarised:
        text += "\n" + _rest_note(size)
    return text


def _rest_note(size: int) -> str:
    """Where the values the console left out are."""
    copied = "" if size <= CLIPBOARD_ELEMENTS else f" (the first {fmt.count(CLIPBOARD_ELEMENTS)})"
    # numpy prints up to 1,000 elements whole, and summarises past that.
    printed = "" if size <= 1000 else " (numpy summarises past 1,000)"
    return (
        f"({fmt.count(size)} elements, summarised. The rest: Copy Value in the Watch or "
        f"Variables pane{copied}, its numpy child there, or evaluate .numpy() of it{printed})"
    )


def values_text(tensor: Any, limit: int) -> str:
    """numpy-style values for Copy Value, bounded to ``limit`` elements (leading rows or
    elements; a note says what was left out)."""
    if not has_values(tensor):
        return "(a handle: no values to show)"
    # Each string element cut on the device first: the text holds CLIPBOARD_CHARS at most.
    shown = min(limit, math.prod(_dims(tensor)) or 1)
    tensor = strings_cut(tensor, CLIPBOARD_CHARS // max(1, shown) + 1)
    array, note = host_values(tensor, limit)
    text = np.array2string(
        array,
        separator=", ",
        threshold=limit,
        edgeitems=3,
        max_line_width=120,
        formatter=fmt.array_formatter(array),
    )
    if len(text) > CLIPBOARD_CHARS:
        text = text[:CLIPBOARD_CHARS]
        note = f"{note}\n" if note else ""
        note += f"… cut at {fmt.count(CLIPBOARD_CHARS)} characters"
    return f"{text}\n{note}" if note else text


def clipboard_values(tensor: Any) -> str:
    """Copy Value's text of an eager tensor: bounded for huge ones."""
    return values_text(tensor, CLIPBOARD_ELEMENTS)


def brief(tensor: Any) -> str:
    """``float32[4, 8]``: a tensor (or what holds one, sparse, ragged) inside a list."""
    return f"{tensor.dtype.name}{fmt.shape_text(tensor.shape)}"


def eager_brief(tensor: Any) -> str:
    """A tensor inside a list or dict: a scalar by its value and dtype (``3.909617
    float32``, as a Keras ``logs`` dict's loss: stock's repr shows that value too), any
    other by ``brief``'s dtype and shape."""
    if tensor.shape.rank == 0 and has_values(tensor):
        return f"{_scalar_text(tensor)} {_dtype_name(tensor)}"
    return brief(tensor)
