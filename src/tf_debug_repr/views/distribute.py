"""``tf.distribute`` values: one child per replica, with its device.

Mirrored values (``MirroredVariable``, ``Mirrored``) should hold the same value on every
replica; their summary says whether they do, by the largest absolute difference from the
first replica, and a divergence stands out (``‼``). Per-replica values and sync-on-read
variables differ by design: their summary leaves the comparison out (a child still gives
the figure), and a sync-on-read variable shows its aggregated value first.

Replicas are compared on the host when they live there (no copy), else on a bounded
strided sample taken on each replica's own device: a whole GPU tensor is never copied.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core import formatting as fmt
from ..core.guards import harmless, host_view, is_on_host
from ..core.tf_types import Kind, kind_of
from ..core.view_model import FACADE, Child, Note, call, lazy
from . import dispatch
from . import tensors as tensor_views
from . import variables as variable_views

MODULE = FACADE  # expressions name the stable facade, never this module's path
COMPARED = 1 << 20  # elements compared exactly; beyond, a strided sample of this many
LISTED = 100


def _replicas(value: Any) -> tuple:
    return tuple(value.values)


def _device(component: Any) -> str:
    return fmt.device_text(getattr(component, "device", "") or "") or "?"


def _devices(replicas: tuple) -> str:
    return ", ".join(_device(r) for r in replicas[:8]) + (", …" if len(replicas) > 8 else "")


def eager_value(component: Any) -> Any:
    """The replica's current value as an eager tensor, or None (symbolic, not a tensor)."""
    kind = kind_of(component)
    if kind in (Kind.VARIABLE, Kind.KERAS_VARIABLE):
        component = variable_views.read_value(component)
        kind = kind_of(component)
    return component if kind is Kind.EAGER and tensor_views.has_values(component) else None


def _sample(tensor: Any) -> tuple[np.ndarray, bool]:
    """Host values of at most COMPARED elements (strided when larger), and whether sampled."""
    size = int(tensor.shape.num_elements() or 0)
    stride = max(1, math.ceil(size / COMPARED))
    if is_on_host(tensor):
        array = np.asarray(host_view(tensor)).reshape(-1)
        return array[::stride], stride > 1
    import tensorflow as tf

    with harmless(tensor.device):  # sliced where it lives: only the sample moves
        part = tf.reshape(tensor, [-1])[::stride]
    return np.asarray(part.numpy()), stride > 1


def _difference(a: np.ndarray, b: np.ndarray) -> float:
    """Largest |a - b|; NaN against NaN is equal, NaN against a number is infinitely far."""
    if a.shape != b.shape:
        return math.inf
    if a.dtype.kind not in "biufc" or b.dtype.kind not in "biufc":
        return 0.0 if np.array_equal(a, b) else math.inf
    if np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
        return 0.0
    with np.errstate(all="ignore"):
        x, y = (
            a.astype(np.complex128 if a.dtype.kind == "c" else np.float64),
            b.astype(np.complex128 if b.dtype.kind == "c" else np.float64),
        )
        diff = np.where(x == y, 0.0, np.abs(x - y))
        both_nan = np.isnan(x) & np.isnan(y)
        diff = np.where(both_nan, 0.0, np.where(np.isnan(diff), np.inf, diff))
    return float(np.max(diff)) if diff.size else 0.0


def compare(value: Any) -> tuple[float | None, bool]:
    """(largest |replica - first replica|, sampled); None when a replica has no values."""
    replicas = _replicas(value)
    tensors = [eager_value(r) for r in replicas]
    if not tensors or any(t is None for t in tensors):
        return None, False
    first, sampled = _sample(tensors[0])
    worst = 0.0
    for other in tensors[1:]:
        values, other_sampled = _sample(other)
        sampled = sampled or other_sampled
        worst = max(worst, _difference(first, values))
    return worst, sampled


def max_difference(value: Any) -> float | None:
    """The largest absolute difference between any replica and the first (None: no values)."""
    return compare(value)[0]


def _agreement_text(value: Any) -> str:
    worst, sampled = compare(value)
    if worst is None:
        if any(kind_of(r) is Kind.SYMBOLIC for r in _replicas(value)):
            return "symbolic: no values while tracing"
        return "replicas not compared (not all are tensors with values)"
    approx = "≈" if sampled else ""
    if worst == 0:
        return "replicas equal"
    return f"{fmt.WARNING} replicas differ, max |Δ|{approx}={fmt.number(worst)}"


def _name(value: Any) -> str:
    """A distributed variable's name by the variables' one rule; a mirrored tensor has none."""
    if not hasattr(value, "read_value"):
        return ""
    name = variable_views.label(value)
    return f" {name!r}" if name else ""


def _value_summary(component: Any) -> str:
    tensor = eager_value(component)
    return tensor_views.summary(tensor) if tensor is not None else dispatch.brief(component)


def read_values(value: Any) -> Any:
    """What the console and clipboard print: a mirrored variable's first replica, a
    sync-on-read one's aggregate (what the program would read)."""
    if hasattr(value, "read_value"):
        with harmless():
            return value.read_value()
    return dispatch.values_of(value.values[0])


def _replica_rows(value: Any) -> list[Child]:
    replicas = _replicas(value)
    rows = [
        Child(f"[{i}] {_device(r)}", r, f".values[{i}]") for i, r in enumerate(replicas[:LISTED])
    ]
    if len(replicas) > LISTED:
        rows.append(Child("…", Note(f"{len(replicas) - LISTED} more replicas")))
    return rows


def _difference_row(value: Any) -> Child:
    return lazy(
        "max |Δ| between replicas",
        lambda: max_difference(value),
        call(f"{MODULE}.max_difference({{}})"),
    )


# --------------------------------------------------------------------------- mirrored


def mirrored_summary(value: Any) -> str:
    replicas = _replicas(value)
    head = f"{type(value).__name__}{_name(value)}"
    return fmt.clip(
        f"{head} {_agreement_text(value)}, {len(replicas)} replicas "
        f"({_devices(replicas)}): {_value_summary(replicas[0])}"
    )


def mirrored_children(value: Any) -> list[Child]:
    rows = [_difference_row(value), *_replica_rows(value)]
    if kind_of(value) is Kind.MIRRORED and hasattr(value, "aggregation"):
        rows.append(Child("aggregation", Note(value.aggregation.name), ".aggregation.name"))
    return rows


# ----------------------------------------------------------------------- sync on read


def _aggregated(var: Any) -> Any:
    with harmless():
        return var.read_value()


def sync_on_read_summary(var: Any) -> str:
    replicas = _replicas(var)
    aggregation = var.aggregation.name
    return fmt.clip(
        f"{type(var).__name__}{_name(var)} {aggregation} of {len(replicas)} replicas "
        f"({_devices(replicas)}): {tensor_views.summary(_aggregated(var))}"
    )


def sync_on_read_children(var: Any) -> list[Child]:
    return [
        Child(f"{var.aggregation.name} (read)", _aggregated(var), call("{}.read_value()")),
        Child("aggregation", Note(var.aggregation.name), ".aggregation.name"),
        *_replica_rows(var),
        _difference_row(var),
    ]


# ------------------------------------------------------------------------ per replica


def per_replica_summary(value: Any) -> str:
    # Replicas differ by design here (each its own batch): no comparison on the line.
    replicas = _replicas(value)
    first = _value_summary(replicas[0]) if replicas else ""
    return fmt.clip(
        f"{type(value).__name__} {len(replicas)} replicas ({_devices(replicas)}); [0]: {first}"
    )


def per_replica_children(value: Any) -> list[Child]:
    return [*_replica_rows(value), _difference_row(value)]


# ---------------------------------------------------------------- on Keras variables


def replica_mark(obj: Any, kind: Kind | None) -> str:
    """On a Keras variable created under a strategy: how many replicas, and a divergence."""
    if kind is not Kind.KERAS_VARIABLE:
        return ""
    inner = getattr(obj, "_value", None)
    inner_kind = kind_of(inner)
    if inner_kind is Kind.MIRRORED:
        text = _agreement_text(inner)
        if text.startswith(fmt.WARNING):
            return f"mirrored ×{len(_replicas(inner))} {text}"
        return f"mirrored ×{len(_replicas(inner))}"
    if inner_kind is Kind.SYNC_ON_READ and inner is not None:
        return f"sync-on-read ×{len(_replicas(inner))} {inner.aggregation.name}"
    return ""
