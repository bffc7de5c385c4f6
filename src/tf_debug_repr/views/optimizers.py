"""Keras optimizers (Keras 3, and Keras 2's two families): learning rate (and its schedule), iterations, clipping, loss scale
under mixed precision, and the slot variables grouped by the weight they belong to.

Keras names a slot ``<weight path with '/' as '_'>_<slot>`` (``add_variable_from_reference``),
so each slot is matched to the weight with the longest such prefix: ``momentum`` and
``velocity`` under ``sequential/dense/kernel``. The current learning rate of a schedule is
the schedule evaluated at ``iterations`` (Keras's own ``learning_rate`` property), run
harmlessly; nothing else is computed.

Keras 2 (TF 2.13-2.15's Keras, ``tf_keras``) keeps the same facts elsewhere: the new
family (``keras.optimizers``, 2.11+) names slots ``<opt>/<slot>/<weight>``, the legacy one
(``keras.optimizers.legacy``, ``OptimizerV2``) ``<opt>/<weight>/<slot>`` and keeps its
hyperparameters in ``_hyper``; neither keeps the weights, so a slot group is known by the
weight's name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import bounded, expressions
from ..core import formatting as fmt
from ..core.guards import harmless, remote_device
from ..core.tf_types import Kind, kind_of, library_class
from ..core.view_model import FACADE, NUMPY, Child, Node, Note, call, lazy, scalar_leaf
from . import attributes
from . import variables as variable_views

MODULE = FACADE  # expressions name the stable facade, never this module's path
CLIPPING = ("clipnorm", "clipvalue", "global_clipnorm")
LISTED = 100


def _path(variable: Any) -> str:
    return str(getattr(variable, "path", None) or variable.name)


def _name(opt: Any) -> str:
    """``name``; Keras 2's legacy optimizers have only ``_name``."""
    return str(getattr(opt, "name", None) or getattr(opt, "_name", None) or "")


def _is_legacy(opt: Any) -> bool:
    """Keras 2's ``keras.optimizers.legacy`` family (``OptimizerV2``)."""
    return isinstance(getattr(opt, "_hyper", None), dict)


def _is_keras2(opt: Any) -> bool:
    return _is_legacy(opt) or hasattr(opt, "_index_dict")


def _lr_object(base: Any) -> Any:
    """What the optimizer was given as its learning rate: a variable, a number, a schedule."""
    if _is_legacy(base):
        return base._hyper.get("learning_rate")
    return getattr(base, "_learning_rate", None)


def _variables(opt: Any) -> list:
    """``variables``: a property, a method in Keras 2's legacy family."""
    found = opt.variables
    return list(found() if callable(found) else found)


def _is_loss_scale(opt: Any) -> bool:
    return hasattr(opt, "inner_optimizer") and hasattr(opt, "dynamic_growth_steps")


def _base(opt: Any) -> Any:
    """The optimizer that does the updates (the inner one under a LossScaleOptimizer)."""
    return opt.inner_optimizer if _is_loss_scale(opt) else opt


def _schedule(opt: Any) -> Any:
    lr = _lr_object(_base(opt))
    return lr if kind_of(lr) is Kind.LR_SCHEDULE else None


def current_learning_rate(opt: Any) -> Any:
    """The learning rate the next step uses, as a float32 leaf (None if it is a callable
    that is not a Keras schedule: calling user code is not the debugger's business)."""
    base = _base(opt)
    lr = _lr_object(base)
    if callable(lr) and kind_of(lr) is not Kind.LR_SCHEDULE:
        return None
    if _in_place(base, lr):
        return _current_rate(base, lr)
    # a schedule's __call__ is the program's code where the schedule is its own: bounded
    return bounded.call(_current_rate, base, lr, what=f"the {type(lr).__name__} schedule")


_READ_IN_PLACE = (Kind.VARIABLE, Kind.KERAS_VARIABLE)


def _in_place(base: Any, lr: Any) -> bool:
    """Is reading the rate only library code on a local value, so that it needs no worker
    thread (whose hand-off was a sixth of a training loop's Locals at every stop)? Where
    the optimizer's and the schedule's classes are TF's or Keras's own (``learning_rate``
    and a built-in schedule's ``__call__`` are then Keras's code: a subclass of the
    program's may override either), and the rate is a number, a variable in this process,
    or a built-in schedule of one."""
    if not library_class(type(base)):
        return False
    kind = kind_of(lr)
    if kind is Kind.LR_SCHEDULE:
        if not library_class(type(lr)):
            return False
        lr = getattr(base, "iterations", None)  # what the schedule reads
        kind = kind_of(lr)
    if type(lr) in (int, float):
        return True
    return kind in _READ_IN_PLACE and remote_device(lr) is None


def _current_rate(base: Any, lr: Any) -> Any:
    with harmless():
        if _is_keras2(base):
            # Keras 2's property gives the schedule itself (legacy) or the rate of the
            # last step (new): evaluate the schedule at iterations, as Keras 3 does.
            current = lr(base.iterations) if kind_of(lr) is Kind.LR_SCHEDULE else lr
        else:
            current = base.learning_rate
        value = variable_views.host_array(current).astype(np.float32)
    return scalar_leaf(value[()])


def _built(base: Any) -> bool:
    """Keras 3's ``built``, Keras 2's ``_built``; the legacy family has neither, and holds
    its variables (``iterations`` first) once it has applied."""
    if getattr(base, "built", False) or getattr(base, "_built", False):
        return True
    return _is_legacy(base) and bool(getattr(base, "_weights", None))


def _lr_expression(opt: Any) -> Any:
    base = _base(opt)
    if _is_keras2(base) and _schedule(opt) is not None:
        inner = "{0}.inner_optimizer" if base is not opt else "{0}"  # {0}: named twice
        schedule = (
            f"{inner}._hyper['learning_rate']" if _is_legacy(base) else f"{inner}._learning_rate"
        )
        return call(f"float({schedule}({inner}.iterations))")
    return call(f"float({_as_number(opt, 'learning_rate')})")


_DISTRIBUTED = (Kind.MIRRORED, Kind.SYNC_ON_READ)


def _as_number(opt: Any, name: str) -> str:
    """``{}.name``, through numpy where the optimizer's variables are distributed ones (a
    ``MirroredVariable``, or a Keras variable holding one, has no ``__float__``). Decided
    from ``iterations``, a plain variable: ``learning_rate`` may call the user's schedule."""
    with harmless():
        iterations = getattr(opt, "iterations", None)
        inner = getattr(iterations, "value", iterations)
        if _is_distributed(iterations) or _is_distributed(inner):
            return f"{NUMPY}.asarray({{}}.{name})"
    return f"{{}}.{name}"


def _is_distributed(value: Any) -> bool:
    return kind_of(value) in _DISTRIBUTED


def _iterations(opt: Any) -> int:
    return int(variable_views.host_array(opt.iterations))


def _loss_scale(opt: Any) -> float | None:
    scale = getattr(opt, "dynamic_scale", None)
    if scale is None:
        return None
    with harmless():
        return float(np.asarray(scale))


def _clipping(opt: Any) -> list[tuple[str, Any]]:
    base = _base(opt)
    return [(name, getattr(base, name)) for name in CLIPPING if getattr(base, name, None)]


def _lr_text(opt: Any) -> str:
    schedule = _schedule(opt)
    try:
        value = current_learning_rate(opt)
    except bounded.TimedOut:  # the schedule hangs: the rest of the line still shows
        return f"lr=<timed out> ({type(schedule).__name__})"
    text = f"lr={fmt.number(value)}" if value is not None else "lr=<callable>"
    return f"{text} ({type(schedule).__name__})" if schedule is not None else text


def optimizer_summary(opt: Any) -> str:
    parts = [f"{type(opt).__name__} {_name(opt)!r}"]
    if _is_loss_scale(opt):
        scale = _loss_scale(opt)
        scale_text = fmt.number(scale) if scale is not None else f"{opt.initial_scale} (not built)"
        parts.append(f"loss scale={scale_text} over {type(opt.inner_optimizer).__name__}")
    parts.append(_lr_text(opt))
    parts.append(f"iterations={_iterations(opt)}")
    parts.extend(f"{name}={fmt.number(value)}" for name, value in _clipping(opt))
    slots = slots_by_weight(opt)
    if slots.groups:
        names = sorted({slot for group in slots.groups for slot in group.slots})
        parts.append(f"slots {', '.join(names)} for {len(slots.groups)} weights")
    elif not _built(_base(opt)):
        parts.append("not built yet")
    return fmt.clip(" ".join(parts))


def optimizer_children(opt: Any) -> list[Child]:
    rows: list[Child] = []
    if _is_loss_scale(opt):
        if getattr(opt, "dynamic_scale", None) is not None:
            rows.append(Child("loss scale", _loss_scale(opt), call("float({}.dynamic_scale)")))
        rows.append(Child("initial_scale", opt.initial_scale, ".initial_scale"))
        rows.append(
            Child("dynamic_growth_steps", opt.dynamic_growth_steps, ".dynamic_growth_steps")
        )
        rows.append(Child("inner_optimizer", opt.inner_optimizer, ".inner_optimizer"))
    rows.append(lazy("learning_rate", lambda: current_learning_rate(opt), _lr_expression(opt)))
    schedule = _schedule(opt)
    if schedule is not None:
        where = "._hyper['learning_rate']" if _is_legacy(_base(opt)) else "._learning_rate"
        if _base(opt) is not opt:
            where = ".inner_optimizer" + where
        rows.append(Child("schedule", schedule, where))
    iterations = call(f"int({_as_number(opt, 'iterations')})")
    rows.append(Child("iterations", _iterations(opt), iterations))
    clipping = _clipping(opt)
    if clipping:
        rows.extend(Child(name, value, expressions.attribute(name)) for name, value in clipping)
    else:
        rows.append(Child("clipping", Note("none (clipnorm, clipvalue, global_clipnorm unset)")))
    base = _base(opt)
    for name in ("weight_decay", "gradient_accumulation_steps", "loss_scale_factor"):
        value = getattr(base, name, None)
        if value:
            rows.append(Child(name, value, expressions.attribute(name)))
    if getattr(base, "use_ema", False):
        rows.append(Child("use_ema", True, ".use_ema"))
        rows.append(Child("ema_momentum", base.ema_momentum, ".ema_momentum"))
    slots = slots_by_weight(opt)
    if slots.groups:
        rows.append(Child("slots by weight", slots, call(f"{MODULE}.slots_by_weight({{}})")))
    else:
        rows.append(Child("slots", Note("none yet: created at the first apply_gradients (build)")))
    expression = call("{}.variables()") if _is_legacy(opt) else ".variables"
    rows.append(Child("variables", _weights(_variables(opt)), expression))
    covered = {row.name for row in rows}
    return attributes.with_attributes(opt, rows, covered)


def _weights(variables: list) -> Any:
    from .models import Weights

    return Weights(variables, noun="variables")


# ------------------------------------------------------------------------ slots


class WeightSlots(Node):
    """One weight's slot variables (``momentum``, ``velocity``…), by slot name."""

    def __init__(self, weight: Any, slots: dict[str, Any], path: str | None = None) -> None:
        self.weight = weight  # None under Keras 2, whose optimizers keep no weights
        self.slots = slots
        self.path = path if path is not None else _path(weight)

    def __getitem__(self, slot: str) -> Any:
        return self.slots[slot]

    def summary(self) -> str:
        like = self.weight if self.weight is not None else next(iter(self.slots.values()))
        shape = fmt.shape_text(like.shape)
        return f"{', '.join(self.slots)} of {self.path}{shape}"

    def children(self) -> list[Child]:
        rows = [Child(slot, var, expressions.item(slot)) for slot, var in self.slots.items()]
        if self.weight is not None:
            rows.append(Child("weight", self.weight, ".weight"))
        return rows


class SlotsByWeight(Node):
    """An optimizer's slot variables, grouped under the weight each belongs to."""

    def __init__(self, groups: list[WeightSlots], others: list) -> None:
        self.groups = groups
        self.others = others

    def __getitem__(self, path: str) -> WeightSlots:
        for group in self.groups:
            if group.path == path:
                return group
        raise KeyError(path)

    def summary(self) -> str:
        names = sorted({slot for group in self.groups for slot in group.slots})
        return f"{len(self.groups)} weights × {', '.join(names)}"

    def children(self) -> list[Child]:
        rows = [
            Child(group.path, group, expressions.item(group.path)) for group in self.groups[:LISTED]
        ]
        if len(self.groups) > LISTED:
            rows.append(Child("…", Note(f"{len(self.groups) - LISTED} more weights")))
        return rows


def slots_by_weight(opt: Any) -> SlotsByWeight:
    """Group ``opt``'s slot variables by the weight they were made for."""
    base = _base(opt)
    if _is_keras2(base):
        return _keras2_slots(base)
    weights = list(getattr(base, "_trainable_variables", None) or [])
    by_prefix = {_path(w).replace("/", "_").replace(":", "_"): w for w in weights}
    grouped: dict[int, dict[str, Any]] = {}
    others = []
    for var in base.variables:
        name = str(var.name)
        match = _owner(name, by_prefix)
        if match is None:
            others.append(var)
        else:
            weight, slot = match
            grouped.setdefault(id(weight), {})[slot] = var
    groups = [WeightSlots(w, grouped[id(w)]) for w in weights if id(w) in grouped]
    return SlotsByWeight(groups, others)


def _keras2_slots(base: Any) -> SlotsByWeight:
    """Keras 2's slots, grouped by the weight name inside their own names (the new family:
    ``Adam/m/dense/kernel:0``; legacy: ``Adam/dense/kernel/m:0``)."""
    legacy = _is_legacy(base)
    prefix = _name(base) + "/"
    grouped: dict[str, dict[str, Any]] = {}
    others = []
    iterations = getattr(base, "_iterations", None)
    for var in _variables(base):
        name = str(var.name).removesuffix(":0")
        if var is iterations or not name.startswith(prefix) or name.count("/") < 2:
            others.append(var)
            continue
        rest = name[len(prefix) :]
        if legacy:
            weight, _, slot = rest.rpartition("/")
        else:
            slot, _, weight = rest.partition("/")
        grouped.setdefault(weight, {})[slot] = var
    groups = [WeightSlots(None, slots, path=weight) for weight, slots in grouped.items()]
    return SlotsByWeight(groups, others)


def _owner(name: str, by_prefix: dict[str, Any]) -> tuple[Any, str] | None:
    """(weight, slot) for a slot named ``<prefix>_<slot>``, trying the longest prefix
    first: ``d_kernel_1_momentum`` belongs to ``d/kernel_1`` before ``d/kernel``."""
    cut = len(name)
    while (cut := name.rfind("_", 0, cut)) > 0:
        weight = by_prefix.get(name[:cut])
        if weight is not None:
            return weight, name[cut + 1 :]
    return None


# --------------------------------------------------------------------- schedules


def _config(obj: Any) -> dict:
    """The schedule's config; empty where a custom schedule has none (or its
    ``get_config`` does not return in time)."""
    try:
        config = bounded.call(obj.get_config, what=f"{type(obj).__name__}.get_config()")
    except Exception:
        return {}
    return config if isinstance(config, dict) else {}


def schedule_summary(schedule: Any) -> str:
    items = ", ".join(
        f"{_key_text(k)}={bounded.repr_of(v)}"
        for k, v in _config(schedule).items()
        if k != "name" or v is not None
    )
    return fmt.clip(f"{type(schedule).__name__}({items})")


def _key_text(key: Any) -> str:
    """A config key as a row name: an exact str's text (no subclass ``__str__`` runs)."""
    plain = expressions.plain_str(key)
    return plain if plain is not None else type(key).__name__


def _config_item(key: Any) -> str | None:
    item = expressions.item(key)  # a str subclass key's own __repr__ never runs
    return None if item is None else f".get_config(){item}"


def schedule_children(schedule: Any) -> list[Child]:
    rows = [Child(_key_text(k), v, _config_item(k)) for k, v in _config(schedule).items()]
    return rows or [Child("config", Note("none: the schedule does not implement get_config"))]
