"""Keras 3 metrics (current result, state variables) and losses (name, reduction, config).

A metric's result is ``metric.result()``, its documented read-only query, run harmlessly
(off every tape, outside any graph being traced); its state is never reset or updated.
"""

from __future__ import annotations

from typing import Any

from ..core import bounded
from ..core import formatting as fmt
from ..core.guards import harmless
from ..core.tf_types import Kind, kind_of
from ..core.view_model import Child, Note, call, error_note, lazy
from . import attributes
from . import tensors as tensor_views
from . import variables as variable_views

LISTED = 100


def _result(metric: Any) -> Any:
    """``metric.result()``: the metric's own code (a custom metric's may hang), bounded."""
    return bounded.call(_harmless_result, metric, what=f"{type(metric).__name__}.result()")


def _harmless_result(metric: Any) -> Any:
    with harmless():
        return metric.result()


def _result_text(result: Any) -> str:
    if kind_of(result) is Kind.EAGER:
        if result.shape.rank == 0:
            return fmt.number(tensor_views.host_array(result)[()])
        return tensor_views.summary(result)
    if isinstance(result, dict):
        return "{" + ", ".join(f"{k}: {_result_text(v)}" for k, v in result.items()) + "}"
    return bounded.repr_of(result)


def metric_summary(metric: Any) -> str:
    try:
        result = f"result={_result_text(_result(metric))}"
    except Exception as exc:  # an unbuilt metric (F1Score before its first update) raises
        result = f"result {error_note(exc)}"
    variables = list(metric.variables)
    state = ", ".join(variable_views.weight_name(v) for v in variables[:6]) + (
        ", …" if len(variables) > 6 else ""
    )
    return fmt.clip(f"{type(metric).__name__} {metric.name!r} {result} (state: {state or 'none'})")


def metric_children(metric: Any) -> list[Child]:
    rows = [lazy("result", lambda: _result(metric), call("{}.result()"))]
    variables = list(metric.variables)
    rows.extend(
        Child(variable_views.weight_name(v), v, f".variables[{i}]")
        for i, v in enumerate(variables[:LISTED])
    )
    rows.append(Child("name", metric.name, ".name"))
    dtype = getattr(metric, "dtype", None)
    if dtype is not None:
        rows.append(Child("dtype", Note(str(getattr(dtype, "name", dtype))), ".dtype"))
    # a state variable held as an attribute (Mean's total) is its row already
    shown = {id(v): variable_views.weight_name(v) for v in variables[:LISTED]}
    return attributes.with_attributes(metric, rows, {"variables", "name", "dtype"}, shown)


# --------------------------------------------------------------------------- losses


def _fn_name(loss: Any) -> str | None:
    fn = getattr(loss, "fn", None)
    return getattr(fn, "__name__", None) if fn is not None else None


def _config(loss: Any) -> dict:
    """The loss's config; empty where it has none (Keras's CompileLoss raises) or where
    its ``get_config`` (the program's code, for a custom loss) does not return in time."""
    try:
        config = bounded.call(loss.get_config, what=f"{type(loss).__name__}.get_config()")
    except Exception:
        return {}
    return config if isinstance(config, dict) else {}


def _config_row(loss: Any) -> Child:
    """``get_config()``, or a line saying it raises (Keras's CompileLoss has none): an
    expression that raises is no row's expression."""
    what = f"{type(loss).__name__}.get_config()"
    try:
        config = bounded.call(loss.get_config, what=what)
    except bounded.TimedOut as exc:
        return Child("config", error_note(exc))
    except Exception as exc:
        return Child("config", Note(f"none: {what} raises {type(exc).__name__}"))
    return Child("config", config, call("{}.get_config()"))


def loss_summary(loss: Any) -> str:
    config = _config(loss)
    extra = [
        f"{k}={bounded.repr_of(v)}"
        for k, v in config.items()
        if type(k) is str and k not in ("name", "reduction", "dtype")
    ]
    fn = _fn_name(loss)
    if fn and fn != loss.name:
        extra.insert(0, f"fn={fn}")
    return fmt.clip(
        fmt.join([f"{type(loss).__name__} {loss.name!r} reduction={loss.reduction}", *extra])
    )


def loss_children(loss: Any) -> list[Child]:
    rows = [
        Child("name", loss.name, ".name"),
        Child("reduction", loss.reduction, ".reduction"),
    ]
    fn = _fn_name(loss)
    if fn:
        rows.append(Child("fn", Note(fn), ".fn.__name__"))
    kwargs = getattr(loss, "_fn_kwargs", None)
    if isinstance(kwargs, dict) and kwargs:
        rows.append(Child("fn kwargs", dict(kwargs), "._fn_kwargs"))
    rows.append(_config_row(loss))
    return attributes.with_attributes(loss, rows, {"name", "reduction", "fn"})
