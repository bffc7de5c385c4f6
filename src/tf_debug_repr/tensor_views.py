"""Eager tensors and variables: their summary line and their children.

Element previews walk the first axis (``[0]``, ``[1]``, …) down to plain Python
scalars; long axes are grouped into ``[0:100]``-style ranges so no level holds more
than ``CHUNK`` children. Listing children never copies a whole tensor off a GPU:
only expanding (or evaluating) the ``numpy`` child does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import formatting as fmt
from .stats import Stats, first_bad_index, harmless, host_view, is_on_host, tensor_stats
from .view_model import NUMPY, Child, Expression, Node, Note, Scalar, call, lazy, scalar_leaf

CHUNK = 100  # most children at one level of an axis
# Host copies for the Debug Console / Copy Value stop at this many elements.
CONSOLE_ELEMENTS = 1_000
CLIPBOARD_ELEMENTS = 10_000


# --------------------------------------------------------------------------- values


def read_value(obj: Any) -> Any:
    """The current value of a tensor or variable, as an eager tensor, read harmlessly.

    Reading a variable under ``harmless`` neither records on an active tape nor makes
    the tape start watching the variable.
    """
    with harmless():
        value = getattr(obj, "_value", None)  # Keras 3 variables wrap a tf.Variable
        if value is not None and not _is_eager(obj):
            obj = value
        if hasattr(obj, "read_value") and not _is_eager(obj):
            return obj.value()
        return obj


def _is_eager(obj: Any) -> bool:
    return hasattr(obj, "_numpy") and not hasattr(obj, "read_value")


def has_values(tensor: Any) -> bool:
    """False for resource and variant tensors (handles), which numpy cannot hold."""
    return bool(getattr(tensor.dtype, "is_numpy_compatible", True))


def _dims(tensor: Any) -> tuple[int, ...]:
    return tuple(int(d) for d in tensor.shape)


def host_array(tensor: Any) -> np.ndarray:
    """The values on the host: a zero-copy view of a CPU tensor, a copy from elsewhere.
    Only called on tensors already known to be small (or sliced to be)."""
    return np.asarray(host_view(tensor) if is_on_host(tensor) else tensor.numpy())


def host_values(tensor: Any, limit: int) -> tuple[np.ndarray, str]:
    """At most ``limit`` elements on the host, and a note saying what was left out.

    Whole leading rows when a row fits, else a flat prefix; sliced on the tensor's own
    device first, so a huge GPU tensor is never copied whole."""
    dims = _dims(tensor)
    size = int(np.prod(dims)) if dims else 1
    if size <= limit:
        return host_array(tensor), ""
    row = size // dims[0]
    with harmless(tensor.device):
        if row <= limit:
            rows = limit // row
            part = tensor[:rows]
            note = f"… first {fmt.count(rows)} of {fmt.count(dims[0])} rows shown"
        else:
            import tensorflow as tf

            part = tf.reshape(tensor, [-1])[:limit]
            note = f"… first {fmt.count(limit)} of {fmt.count(size)} elements shown (flattened)"
        array = host_array(part)
    return array, note


# --------------------------------------------------------------------------- summary


def summary(tensor: Any, stats: Stats | None = None, prefix: str = "") -> str:
    """``float32[2, 3] CPU:0 n=6 x∈[-1, 2.5] μ=0.3333 σ=1.118 [[…]]``"""
    dims = _dims(tensor)
    dtype = tensor.dtype.name
    device = fmt.device_text(tensor.device)
    if not has_values(tensor):
        return fmt.clip(
            fmt.join(
                [
                    prefix,
                    f"{dtype}{fmt.shape_text(tensor.shape)}",
                    device,
                    "(a handle: no values to show)",
                ]
            )
        )
    if stats is None:
        stats = tensor_stats(tensor)
    if not dims:
        value = scalar_leaf(host_array(tensor)[()])
        # A scalar is shown in full (the shortest text of its dtype), not rounded.
        shown = (
            value.text
            if isinstance(value, Scalar)
            else repr(value)
            if isinstance(value, (bytes, float, complex))
            else fmt.number(value)
        )
        warn = fmt.WARNING if stats.bad else ""  # the value itself says nan/inf
        return fmt.clip(fmt.join([prefix, warn, shown, f"{dtype} {device}"]))
    head = f"{dtype}{fmt.shape_text(tensor.shape)}"
    inline = ""
    if 0 < stats.size <= fmt.INLINE_ELEMENTS:
        inline = fmt.inline_values(host_array(tensor))
    body = (
        fmt.stats_text(stats)
        if stats.category not in ("string", "other") or stats.size == 0
        else ""
    )
    if stats.category == "string" and stats.size:
        body = f"n={fmt.count(stats.size)}"
    return fmt.clip(fmt.join([prefix, head, fmt.bad_values_text(stats), device, body, inline]))


# --------------------------------------------------------------------------- children


def tensor_children(tensor: Any, stats: Stats | None = None) -> list[Child]:
    """Children of an eager tensor (also used for a variable's current value)."""
    dims = _dims(tensor)
    if not has_values(tensor):
        return property_children(tensor)
    if stats is None:
        stats = tensor_stats(tensor)
    children: list[Child] = []
    if dims:
        children.extend(axis_children(tensor, 0, dims[0], base_suffix=""))
        children.append(numpy_child(tensor))
    else:
        children.append(
            lazy(
                "value",
                lambda: scalar_leaf(host_array(tensor)[()]),
                ".numpy().item()",
            )
        )
    children.extend(property_children(tensor))
    if stats.size and stats.category not in ("string", "other"):
        # Its expression is the tensor itself (whose summary carries the same figures),
        # so each figure below gets a real expression built on it.
        children.append(Child("stats", StatsNode(tensor, stats), _same))
    if stats.bad:
        children.extend(bad_value_children(tensor, stats))
    return children


def property_children(tensor: Any) -> list[Child]:
    return [
        # Notes, not tuples: a tuple would expand into pydevd's "special variables" noise.
        Child("shape", Note(str(tuple(int(d) for d in tensor.shape))), call("tuple({}.shape)")),
        Child("dtype", Note(tensor.dtype.name), call("{}.dtype.name")),
        Child("device", Note(tensor.device), ".device"),
    ]


def numpy_child(tensor: Any) -> Child:
    """The values as numpy: a zero-copy view on CPU; on a GPU, a node that copies only
    when the user expands it."""
    if is_on_host(tensor):
        return lazy("numpy", lambda: host_view(tensor), ".numpy()")
    return Child("numpy", HostCopy(tensor), ".numpy()")


def _same(parent: str) -> str:
    return parent


def _element_expression(base_suffix: str, index_text: str) -> Expression:
    """The expression of an element of a range node: the range's own ``[a:b]`` suffix
    is replaced so ``Add to Watch`` on ``[150]`` gives ``x[150]``, not ``x[100:200][50]``."""
    if not base_suffix:
        return index_text

    def expression(parent: str) -> str:
        if parent.endswith(base_suffix):
            return parent[: -len(base_suffix)] + index_text
        return parent + index_text  # still correct, just longer

    return expression


def axis_children(tensor: Any, start: int, stop: int, base_suffix: str) -> list[Child]:
    """Elements ``start..stop`` of the first axis, or range nodes when there are too many."""
    length = stop - start
    if length > CHUNK:
        step = CHUNK
        while step * CHUNK < length:
            step *= CHUNK
        nodes = []
        for a in range(start, stop, step):
            b = min(stop, a + step)
            suffix = f"[{a}:{b}]"
            nodes.append(
                Child(suffix, AxisRange(tensor, a, b), _element_expression(base_suffix, suffix))
            )
        return nodes
    return element_children(tensor, start, stop, base_suffix)


def element_children(tensor: Any, start: int, stop: int, base_suffix: str) -> list[Child]:
    dims = _dims(tensor)
    if stop <= start:
        return []
    with harmless(tensor.device):
        block = tensor[start:stop]
        if len(dims) == 1:
            array = host_array(block)
            values: list[Any] = [scalar_leaf(v) for v in array]
        else:
            import tensorflow as tf

            values = tf.unstack(block)  # one op for all rows, not one slice per row
    return [
        Child(f"[{start + i}]", value, _element_expression(base_suffix, f"[{start + i}]"))
        for i, value in enumerate(values)
    ]


def bad_value_children(tensor: Any, stats: Stats) -> list[Child]:
    children = [Child(f"{fmt.WARNING} bad values", BadValues(tensor, stats), _same)]
    index = first_bad_index(tensor)
    if index is not None:
        index_text = "[" + ", ".join(str(i) for i in index) + "]"
        children.append(
            lazy(
                f"{fmt.WARNING} first NaN/Inf at {index_text}",
                lambda: _element(tensor, index),
                index_text,
            )
        )
    return children


def _element(tensor: Any, index: tuple[int, ...]) -> Any:
    # Indexing is an op: under ``harmless`` it is neither traced nor taped.
    with harmless(tensor.device):
        return scalar_leaf(host_array(tensor[index])[()])


# --------------------------------------------------------------------------- nodes


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
        with harmless(self.tensor.device):
            part = self.tensor[self.start : self.stop]
        return summary(part)

    def children(self) -> list[Child]:
        return axis_children(self.tensor, self.start, self.stop, base_suffix=self.suffix)


class HostCopy(Node):
    """The ``numpy`` child of a tensor on an accelerator: copied only when expanded."""

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor

    def summary(self) -> str:
        nbytes = (self.tensor.shape.num_elements() or 0) * self.tensor.dtype.size
        return (
            f"ndarray {self.tensor.dtype.name}{fmt.shape_text(self.tensor.shape)} on "
            f"{fmt.device_text(self.tensor.device)}: expand to copy {nbytes / 2**20:.1f} MiB to the host"
        )

    def children(self) -> list[Child]:
        return [lazy("array", self.tensor.numpy, _same)]


class StatsNode(Node):
    """The statistics, one leaf each, with expressions that recompute them."""

    def __init__(self, tensor: Any, stats: Stats) -> None:
        self.tensor = tensor
        self.stats = stats

    def summary(self) -> str:
        return fmt.stats_text(self.stats)

    def children(self) -> list[Child]:
        s = self.stats

        # Expressions recompute over the same elements the figure came from.
        def over(stride: int) -> Callable[[str], str]:
            def sample(parent: str) -> str:
                flat = f"{NUMPY}.asarray({parent}).reshape(-1)"
                return flat if stride == 1 else f"{flat}[::{stride}]"

            return sample

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

        children = [Child("size", s.size, call("int({}.shape.num_elements())"))]
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
                children.append(
                    Child(
                        "mean", s.mean, lambda p: f"float({mean_src(p)}.astype('float64').mean())"
                    )
                )
                children.append(
                    Child("std", s.std, lambda p: f"float({mean_src(p)}.astype('float64').std())")
                )
        if s.moments_sample is not None:
            children.append(
                Child(
                    "sampled",
                    Note(
                        f"mean/std from every {s.moments_stride}th element "
                        f"({fmt.count(s.moments_sample)} of {fmt.count(s.size)})"
                    ),
                )
            )
        if s.extremes_sampled:
            children.append(
                Child(
                    "sampled extremes",
                    Note(f"min/max/NaN counts from every {s.extremes_stride}th element"),
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
        src = (
            (lambda p: f"abs({NUMPY}.asarray({p}))")
            if s.category == "complex"
            else (lambda p: f"{NUMPY}.asarray({p})")
        )
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
                    lambda p, test=test: (
                        f"int({NUMPY}.count_nonzero({NUMPY}.{test.format(src(p))}))"
                    ),
                )
            )
        for label, (test, n) in checks.items():
            if n:
                children.append(
                    Child(
                        f"{label} share",
                        n / s.size,
                        lambda p, test=test: f"float({NUMPY}.{test.format(src(p))}.mean())",
                    )
                )
        return children


# --------------------------------------------------------------------------- console


def values_text(tensor: Any, limit: int) -> str:
    """numpy-style values for the Debug Console and Copy Value, bounded to ``limit``
    elements (leading rows; a note says what was left out)."""
    array, note = host_values(tensor, limit)
    text = np.array2string(
        array,
        separator=", ",
        threshold=limit,
        edgeitems=3,
        max_line_width=120,
        formatter=fmt.array_formatter(array),
    )
    return f"{text}\n{note}" if note else text
