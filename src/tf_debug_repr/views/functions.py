"""``tf.function`` objects (polymorphic functions, restored ones from a SavedModel
included) and their concrete functions (one trace each).

A polymorphic function shows where its Python function is defined, its input signature,
the concrete functions traced so far and how many times it was traced, and whether XLA
compiles it; a concrete function its input and output specs, captures and variables (each row
named as the attribute it shows, as stock debugpy names it). Then,
as for every object, its other attributes (``attributes``). Nothing here traces: the
traced functions are read from the function's cache, never through
``get_concrete_function``.
"""

from __future__ import annotations

import inspect
import os
from typing import Any

from ..core import formatting as fmt
from ..core.guards import harmless
from ..core.view_model import FACADE, Child, Note, call
from . import attributes as attribute_views
from .attributes import guarded, guarded_rows

RESTORED = "RestoredFunction"
CONCRETE = f"{FACADE}.concrete_functions"
_LISTED_SPECS = 4


def _restored(function: Any) -> bool:
    return any(cls.__name__ == RESTORED for cls in type(function).__mro__)


def concrete_functions(function: Any) -> list:
    """The concrete functions traced so far (a restored function's loaded ones), read from
    the function's cache: nothing is traced."""
    if _restored(function):
        return list(getattr(function, "concrete_functions", None) or [])
    cache = getattr(function, "_function_cache", None)
    return [] if cache is None else list(cache.values())


def _python_function(function: Any) -> Any:
    """The user's own Python function (a bound method's wrapper unwrapped)."""
    python: Any = getattr(function, "_python_function", None)
    try:
        python = inspect.unwrap(python)
    except Exception:
        pass
    return getattr(python, "__func__", python)


def where(function: Any) -> str:
    """``MyModule.__call__ at train.py:12``; a restored function has no Python code."""
    if _restored(function):
        return "restored from a SavedModel: no Python function (its graphs only)"
    python = _python_function(function)
    code = getattr(python, "__code__", None)
    name = getattr(python, "__qualname__", None) or getattr(function, "__name__", "?")
    if code is None:
        return str(name)
    return f"{name} at {os.path.basename(code.co_filename)}:{code.co_firstlineno}"


def _xla(function: Any) -> str:
    jit = getattr(function, "_jit_compile", None)
    return ", XLA (jit_compile)" if jit else ""


def _specs_text(specs: Any) -> str:
    """``(x: float32[None, 3])`` from a ``structured_input_signature`` or input signature."""
    if isinstance(specs, tuple) and len(specs) == 2 and isinstance(specs[1], dict):
        args, kwargs = specs
        parts = [_spec_text(a) for a in args] + [_keyed(k, v) for k, v in kwargs.items()]
    else:
        parts = [_spec_text(a) for a in specs]
    more = len(parts) - _LISTED_SPECS
    parts = parts[:_LISTED_SPECS] + ([f"… {more} more"] if more > 0 else [])
    return "(" + ", ".join(parts) + ")"


def _keyed(key: Any, spec: Any) -> str:
    """``x: float32[3]``: the key once, where the spec is named after it."""
    text = _spec_text(spec)
    return text if text.startswith(f"{key}: ") else f"{key}: {text}"


def _spec_text(spec: Any) -> str:
    shape, dtype = getattr(spec, "shape", None), getattr(spec, "dtype", None)
    if shape is None or dtype is None or getattr(shape, "rank", None) is None:
        if isinstance(spec, dict):
            return "{" + ", ".join(_keyed(k, v) for k, v in spec.items()) + "}"
        if isinstance(spec, (list, tuple)):
            return "(" + ", ".join(_spec_text(v) for v in spec) + ")"
        return type(spec).__name__ if spec is not None else "None"
    name = getattr(spec, "name", None)
    text = f"{getattr(dtype, 'name', dtype)}{fmt.shape_text(shape)}"
    return f"{name}: {text}" if name else text


def function_summary(function: Any) -> str:
    """``tf.function 'g' (M.g at prog.py:12), traced 3×, 3 concrete functions, XLA``."""
    restored = _restored(function)
    head = f"{'restored ' if restored else ''}tf.function {getattr(function, '_name', '?')!r}"
    parts = [head if restored else f"{head} ({where(function)})"]
    with harmless():
        try:
            signature = function.input_signature
            if signature is not None:
                parts.append(f"input signature {_specs_text(signature)}")
        except Exception:
            pass
        try:
            if not restored:
                parts.append(f"traced {function.experimental_get_tracing_count()}×")
            found = len(concrete_functions(function))
            parts.append(f"{found} concrete function{'' if found == 1 else 's'}")
        except Exception as exc:
            parts.append(f"traces unknown ({type(exc).__name__})")
    return fmt.clip(", ".join(parts) + _xla(function))


def function_children(function: Any) -> list[Child]:
    restored = _restored(function)
    rows = [Child("defined at", Note(where(function)))]
    rows.append(guarded("name", lambda: function.name, ".name"))
    signature = getattr(function, "input_signature", None)
    if signature is None:
        rows.append(Child("input_signature", Note("None: a new trace for each new input type")))
    else:
        rows.append(
            guarded("input_signature", lambda: function.input_signature, ".input_signature")
        )
    if not restored:
        rows.append(
            guarded(
                "times traced",
                function.experimental_get_tracing_count,
                call("{}.experimental_get_tracing_count()"),
            )
        )
    # a restored function's own attribute, by its name; a traced one's, read from its cache
    traced = ".concrete_functions" if restored else call(CONCRETE + "({})")
    label = "concrete_functions" if restored else "concrete functions"
    rows.append(guarded(label, lambda: concrete_functions(function), traced))
    rows.append(guarded("XLA (jit_compile)", lambda: function._jit_compile, "._jit_compile"))
    covered = {"name", "input_signature"} | ({"concrete_functions"} if restored else set())
    attributes = attribute_views.read_attributes(function)
    return rows + attribute_views.attribute_rows(function, attributes, covered)


# --------------------------------------------------------------------------- concrete


def concrete_text(function: Any) -> str:
    """``(x: float32[None, 3]) -> {y: float32[None, 3]}``."""
    inputs = _specs_text(function.structured_input_signature)
    return f"{inputs} -> {_spec_text(function.structured_outputs)}"


def concrete_summary(function: Any) -> str:
    """``ConcreteFunction (x: float32[None, 3]) -> {y: float32[None, 3]}, 1 captured``."""
    with harmless():
        text = f"ConcreteFunction {concrete_text(function)}"
        captured = len(function.captured_inputs)
    if captured:
        text += f", {captured} captured"
    return fmt.clip(text)


def concrete_brief(function: Any) -> str:
    with harmless():
        return fmt.clip(f"{_specs_text(function.structured_input_signature)} -> …", 80)


# Each by the attribute's own name, as the program (and stock debugpy) names it: the row is
# that attribute, found by that name and by its expression.
_CONCRETE_ROWS = (
    ("name", "name"),
    ("structured_input_signature", "structured_input_signature"),
    ("structured_outputs", "structured_outputs"),
    ("captured_inputs", "captured_inputs"),
    ("variables", "variables"),
)


def concrete_children(function: Any) -> list[Child]:
    rows = guarded_rows(function, _CONCRETE_ROWS)
    rows.append(
        guarded(
            "graph ops",
            lambda: len(function.graph.get_operations()),
            call("len({}.graph.get_operations())"),
        )
    )
    covered = {attr for _, attr in _CONCRETE_ROWS}
    attributes = attribute_views.read_attributes(function)
    return rows + attribute_views.attribute_rows(function, attributes, covered)
