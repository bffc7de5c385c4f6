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


NOT_BUILT = Note("not built yet")


def _result(metric: Any) -> Any:
    """``metric.result()``: the metric's own code (a custom metric's may hang), bounded;
    ``NOT_BUILT`` where it raises because the metric has no state yet (Keras's
    ``CompileMetrics`` before the first step, ``F1Score`` before its first update): a
    state, not an error."""
    try:
        return bounded.call(_harmless_result, metric, what=f"{type(metric).__name__}.result()")
    except bounded.TimedOut:
        raise
    except Exception:
        if unbuilt(metric):
            return NOT_BUILT
        raise


def unbuilt(metric: Any) -> bool:
    """Does the metric say it is not built (Keras 3's ``CompileMetrics.built``, the
    ``_built`` of metrics that make their state at the first update)? Read from the
    instance's own attributes: no code of the program's runs."""
    own = attributes.own_values(metric)
    return any(name in ("built", "_built") and value is False for name, value in own)


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
        found = _result(metric)
        result = str(found) if found is NOT_BUILT else f"result={_result_text(found)}"
    except Exception as exc:  # the metric's own code failed: that part says so
        result = f"result {error_note(exc)}"
    variables = list(metric.variables)
    state = ", ".join(variable_views.weight_name(v) for v in variables[:6]) + (
        ", …" if len(variables) > 6 else ""
    )
    return fmt.clip(f"{type(metric).__name__} {metric.name!r} {result} (state: {state or 'none'})")


def metric_children(metric: Any) -> list[Child]:
    # an unbuilt metric's row reads "not built yet": its own line is its expression
    expression = None if unbuilt(metric) else call("{}.result()")
    rows = [lazy("result", lambda: _result(metric), expression)]
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
    """``get_config()``, or a line saying there is none (Keras's CompileLoss does not
    implement it: a fact of its class, no error); an expression that raises is no row's
    expression."""
    what = f"{type(loss).__name__}.get_config()"
    try:
        config = bounded.call(loss.get_config, what=what)
    except NotImplementedError:
        return Child("config", Note(f"none: {type(loss).__name__} has no get_config()"))
    except Exception as exc:  # the loss's own code failed (or hung): the row says so
        return Child("config", error_note(exc))
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
