"""Keras models and layers, and plain ``tf.Module`` trees, as trees of layers and weights.

A layer shows its sublayers, then its own weights. Each weight is the variable itself,
so it carries its ``∇ gradient`` child. The summary line gives parameter counts and,
when gradients were recorded, their global norm. Which values are layers or modules is
decided by ``tf_types`` (the one table of kinds).
"""

from __future__ import annotations

import math
from typing import Any

from . import formatting as fmt
from . import gradient_capture as capture
from .gradient_views import GradientInfo, global_mark
from .tf_types import Kind, kind_of
from .view_model import Child, Node, Note, call

MODULE = "__import__('tf_debug_repr.model_views', fromlist=['_'])"
LISTED = 100
_VARIABLE_KINDS = (Kind.VARIABLE, Kind.KERAS_VARIABLE, Kind.MIRRORED, Kind.SYNC_ON_READ)


def is_keras_layer(obj: Any) -> bool:
    return kind_of(obj) is Kind.KERAS_LAYER


def _size(var: Any) -> int:
    try:
        return int(math.prod(int(d) for d in var.shape))
    except Exception:
        return 0


def _params_text(variables: list) -> str:
    total = sum(_size(v) for v in variables)
    frozen = sum(_size(v) for v in variables if not getattr(v, "trainable", False))
    text = f"{fmt.count(total)} params"
    if frozen:
        text += f" ({fmt.count(total - frozen)} trainable, {fmt.count(frozen)} frozen)"
    return text


def _global_norm(variables: list) -> str:
    """``∇‖g‖=0.42@Adam iteration 5`` over the weights' latest gradients, if any were recorded."""
    return global_mark(variables)


# --------------------------------------------------------------------------- keras


def _sublayers(layer: Any) -> tuple[list, str]:
    """Direct sublayers and the attribute that lists them."""
    if hasattr(layer, "layers") and isinstance(getattr(type(layer), "layers", None), property):
        return list(layer.layers), ".layers"
    return list(getattr(layer, "_layers", []) or []), "._layers"


def _title(obj: Any) -> str:
    """``Dense 'dense'``; the class alone where reading the name fails (a ``tf.Module``
    subclass whose ``__init__`` never called ``super().__init__()`` has no ``_name``)."""
    try:
        return f"{type(obj).__name__} {obj.name!r}"
    except Exception:
        return type(obj).__name__


def layer_summary(layer: Any) -> str:
    name = f"{type(layer).__name__} {layer.name!r}"
    subs, _ = _sublayers(layer)
    weights = list(layer.weights)
    if not getattr(layer, "built", True) and not weights:
        return f"{name} not built yet (no weights)"
    head = f"{name}, {len(subs)} layers" if subs else name
    text = f"{head}, {_params_text(weights)}"
    if not subs and weights:
        text += ": " + " ".join(f"{w.name}{fmt.shape_text(w.shape)}" for w in weights[:4])
    return fmt.join([text, _global_norm(weights)])


def layer_children(layer: Any) -> list[Child]:
    subs, attribute = _sublayers(layer)
    rows = [
        Child(f"{sub.name} ({type(sub).__name__})", sub, f"{attribute}[{i}]")
        for i, sub in enumerate(subs[:LISTED])
    ]
    weights = list(layer.weights)
    nested = {id(w) for sub in subs for w in sub.weights}
    for k, weight in enumerate(weights):
        if id(weight) not in nested:
            rows.append(Child(weight.name, weight, f".weights[{k}]"))
    rows.append(
        Child("params", sum(_size(w) for w in weights), call(f"{MODULE}.param_count({{}})"))
    )
    if subs and weights:
        rows.append(Child("all weights", Weights(weights), ".weights"))
    trainable = list(layer.trainable_weights)
    if any(capture.record_of(w) is not None for w in trainable):
        rows.append(
            Child("∇ gradients", GradientTable(trainable), call(f"{MODULE}.gradient_table({{}})"))
        )
    rows.append(Child("trainable", bool(layer.trainable), ".trainable"))
    return rows


# --------------------------------------------------------------------------- tf.Module


def _module_members(module: Any) -> list[tuple[str, Any, str]]:
    """Public attributes that are modules or variables (one level into lists/dicts)."""
    members = []
    for attr, value in vars(module).items():
        if attr.startswith("_"):
            continue
        if _is_member(value):
            members.append((attr, value, f".{attr}"))
        elif isinstance(value, (list, tuple)):
            members.extend(
                (f"{attr}[{i}]", v, f".{attr}[{i}]") for i, v in enumerate(value) if _is_member(v)
            )
        elif isinstance(value, dict):
            members.extend(
                (f"{attr}[{k!r}]", v, f".{attr}[{k!r}]")
                for k, v in value.items()
                if _is_member(v) and isinstance(k, (str, int))
            )
    return members[:LISTED]


def _is_member(value: Any) -> bool:
    return kind_of(value) in _MEMBER_KINDS


# What a tf.Module lists as its parts: sublayers, submodules, variables.
_MEMBER_KINDS = (Kind.KERAS_LAYER, Kind.TF_MODULE, *_VARIABLE_KINDS)


def module_variables(module: Any, trainable: bool = False) -> list:
    """``module.variables`` (or ``trainable_variables``) and the weights of the Keras 3
    layers and variables it holds, which ``tf.Module`` does not collect (they are no
    ``tf.Module``/``tf.Variable``): a module holding a Keras model has its parameters."""
    found = list(module.trainable_variables if trainable else module.variables)
    seen = {id(v) for v in found}
    for owner in [module, *_submodules(module)]:
        for _, value, _ in _module_members(owner):
            for variable in _keras_variables(value, trainable):
                if id(variable) not in seen:
                    seen.add(id(variable))
                    found.append(variable)
    return found


def _submodules(module: Any) -> list:
    try:
        return list(module.submodules)
    except Exception:  # a submodule's broken attribute: the module's own members still count
        return []


def _keras_variables(value: Any, trainable: bool) -> list:
    kind = kind_of(value)
    if kind is Kind.KERAS_LAYER:
        return list(value.trainable_weights if trainable else value.weights)
    if kind is Kind.KERAS_VARIABLE and (value.trainable or not trainable):
        return [value]
    return []


def module_summary(module: Any) -> str:
    variables = module_variables(module)
    text = f"{_title(module)}, {len(variables)} variables, {_params_text(variables)}"
    return fmt.join([text, _global_norm(module_variables(module, trainable=True))])


def module_children(module: Any) -> list[Child]:
    rows = [Child(name, value, expression) for name, value, expression in _module_members(module)]
    variables = module_variables(module)
    rows.append(
        Child("params", sum(_size(v) for v in variables), call(f"{MODULE}.param_count({{}})"))
    )
    plain = len(variables) == len(module.variables)  # nothing added to tf.Module's own list
    every = ".variables" if plain else call(f"{MODULE}.module_variables({{}})")
    rows.append(Child("all variables", Weights(variables), every))
    trainable = module_variables(module, trainable=True)
    if any(capture.record_of(v) is not None for v in trainable):
        rows.append(
            Child("∇ gradients", GradientTable(trainable), call(f"{MODULE}.gradient_table({{}})"))
        )
    return rows


# --------------------------------------------------------------------------- nodes


class Weights(Node):
    """All weights of a model (or variables of an optimizer, a metric), by path."""

    def __init__(self, weights: list, noun: str = "weights") -> None:
        self.weights = weights
        self.noun = noun

    def summary(self) -> str:
        if self.noun != "weights":  # state, not parameters: no trainable/frozen split
            values = sum(_size(w) for w in self.weights)
            noun = self.noun[:-1] if len(self.weights) == 1 else self.noun
            return f"{len(self.weights)} {noun}, {fmt.count(values)} values"
        return f"{len(self.weights)} weights, {_params_text(self.weights)}"

    def children(self) -> list[Child]:
        return [
            Child(getattr(w, "path", None) or w.name, w, f"[{i}]")
            for i, w in enumerate(self.weights[:LISTED])
        ]


class GradientTable(Node):
    """Every trainable weight's latest gradient on one screen: which layer vanishes?
    Rows are named by the weight's path; the figures are in the value."""

    def __init__(self, weights: list) -> None:
        self.weights = weights

    def info(self, index: int) -> GradientInfo | None:
        from .gradient_views import gradient_info

        return gradient_info(self.weights[index])

    def summary(self) -> str:
        have = sum(1 for w in self.weights if capture.record_of(w) is not None)
        return fmt.join(
            [
                _global_norm(self.weights),
                f"{have} of {len(self.weights)} trainable weights recorded",
            ]
        )

    def children(self) -> list[Child]:
        rows = []
        for i, weight in enumerate(self.weights[:LISTED]):
            name = getattr(weight, "path", None) or weight.name
            if capture.record_of(weight) is None:
                rows.append(Child(name, Note("no gradient recorded")))
            else:
                rows.append(Child(name, self.info(i), call(f"{{}}.info({i})")))
        if len(self.weights) > LISTED:
            rows.append(Child("…", Note(f"{len(self.weights) - LISTED} more weights")))
        return rows


# --------------------------------------------------------------------------- public


def param_count(obj: Any) -> int:
    weights = obj.weights if is_keras_layer(obj) else module_variables(obj)
    return sum(_size(w) for w in weights)


def gradient_table(obj: Any) -> GradientTable:
    weights = obj.trainable_weights if is_keras_layer(obj) else module_variables(obj, True)
    return GradientTable(list(weights))
