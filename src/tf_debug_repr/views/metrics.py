"""Keras 3 metrics (current result, state variables) and losses (name, reduction, config).

A metric's result is ``metric.result()``, its documented read-only query, run harmlessly
(off every tape, outside any graph being traced); its state is never reset or updated.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from ..core import bounded
from ..core import formatting as fmt
from ..core.guards import harmless
from ..core.tf_types import Kind, kind_of, library_class
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


def _config(loss: Any) -> tuple[dict, bool]:
    """The loss's config; empty where it has none (Keras's CompileLoss raises
    ``NotImplementedError``) or where its ``get_config`` (the program's code, for a custom
    loss) fails or does not return in time; with whether that is the whole answer (False:
    it failed or hung, and may not next time)."""
    try:
        config = bounded.call(loss.get_config, what=f"{type(loss).__name__}.get_config()")
    except NotImplementedError:
        return {}, True
    except Exception:
        return {}, False
    return (config, True) if isinstance(config, dict) else ({}, True)


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


def _state(loss: Any) -> tuple | None:
    """What Keras's ``get_config`` of a loss reads: the instance's own attributes, each
    value held (compared by identity, so no ``__eq__`` of the program's runs), and the
    items of a dict or list held there (``_fn_kwargs``); None without an instance dict."""
    own = attributes.own_values(loss)
    if not own:
        return None
    found: list[Any] = [type(loss)]
    for name, value in own:
        found.append(name)
        found.append(value)
        if type(value) is dict:
            found.append(tuple(dict.items(value)))
        elif type(value) is list:
            found.append(tuple(value))
    return tuple(found)


def _same_state(kept: tuple, now: tuple) -> bool:
    if len(kept) != len(now):
        return False
    for a, b in zip(kept, now, strict=True):
        if a is b:
            continue
        if type(a) is tuple and type(b) is tuple and _same_state(a, b):
            continue
        if type(a) is str and type(b) is str and a == b:  # names: str's own compare
            continue
        return False
    return True


class _KeptLine:
    __slots__ = ("line", "ref", "state")

    def __init__(self, ref: Any, state: tuple, line: str) -> None:
        self.ref, self.state, self.line = ref, state, line


# id(loss) -> its summary line with what it was built from; a weak reference tells a
# loss from a later object that has the same id, and drops the entry when the loss goes
_lines: dict[int, _KeptLine] = {}
_lines_lock = threading.Lock()


def _forget(key: int, ref: Any) -> None:
    with _lines_lock:
        kept = _lines.get(key)
        if kept is not None and kept.ref is ref:
            del _lines[key]


def forget_lines() -> None:
    """Drop every kept loss line (tests)."""
    with _lines_lock:
        _lines.clear()


def loss_summary(loss: Any) -> str:
    """The loss's line. For a loss of Keras's own class (``get_config``, ``name`` and the
    rest are Keras's code, built from the instance's own attributes), built once and kept
    until one of those attributes is assigned, or a dict or list held there changes: its
    config cannot change otherwise. The bounded ``get_config`` (a hand-off to the worker
    thread) was about a sixth of a training loop's Locals at every stop. A loss of the
    program's own class (its ``get_config`` may read anything) is read at each look."""
    if not library_class(type(loss)):
        return _loss_line(loss)[0]
    state = _state(loss)
    if state is None:
        return _loss_line(loss)[0]
    key = id(loss)
    with _lines_lock:
        kept = _lines.get(key)
    if kept is not None and kept.ref() is loss and _same_state(kept.state, state):
        return kept.line
    line, whole = _loss_line(loss)
    if not whole or not _same_state(state, _state(loss) or ()):
        # get_config failed or hung (the next look tries again), or it assigned an
        # attribute: nothing kept from this read
        return line

    def gone(ref: Any, key: int = key) -> None:
        _forget(key, ref)

    try:
        ref = weakref.ref(loss, gone)
    except TypeError:  # not weakly referenceable: built at each look
        return line
    with _lines_lock:
        _lines[key] = _KeptLine(ref, state, line)
    return line


def _loss_line(loss: Any) -> tuple[str, bool]:
    """The line, and whether its config part is whole (see ``_config``)."""
    config, whole = _config(loss)
    extra = [
        f"{k}={bounded.repr_of(v)}"
        for k, v in config.items()
        if type(k) is str and k not in ("name", "reduction", "dtype")
    ]
    fn = _fn_name(loss)
    if fn and fn != loss.name:
        extra.insert(0, f"fn={fn}")
    line = fmt.clip(
        fmt.join([f"{type(loss).__name__} {loss.name!r} reduction={loss.reduction}", *extra])
    )
    return line, whole


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
