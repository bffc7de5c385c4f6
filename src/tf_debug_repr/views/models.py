"""Keras models and layers, and plain ``tf.Module`` trees, as trees of layers and weights.

A layer shows its sublayers, then its own weights. Each weight is the variable itself,
so it carries its ``∇ gradient`` child. The summary line gives parameter counts and,
when gradients were recorded, their global norm. After these structured rows come the
object's other attributes (``attribute_views``: optimizers, metric trackers,
hyperparameters), so that nothing stock debugpy shows is lost. Which values are layers
or modules is decided by ``tf_types`` (the one table of kinds).
"""

from __future__ import annotations

import gc
import math
import operator
import sys
import threading
import weakref
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from ..core import bounded, expressions
from ..core import formatting as fmt
from ..core.guards import harmless
from ..core.tf_types import Kind, kind_of, library_class
from ..core.view_model import Child, Expression, Node, Note, call, error_note
from ..gradients import capture
from . import attributes as attribute_views
from . import preprocessing
from . import variables as variable_views
from .gradients import GradientInfo, global_mark, has_gradients, pending_flags

MODULE = "__import__('tf_debug_repr._expr', fromlist=['_'])"  # view_model.FACADE: stable
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
    """``81,937 params (1,568 non-trainable)``, with the byte size when it is big."""
    total = sum(_size(v) for v in variables)
    fixed = sum(_size(v) for v in variables if not getattr(v, "trainable", False))
    text = f"{fmt.count(total)} params"
    size = fmt.big_bytes_text(sum(_size(v) * _itemsize(v) for v in variables))
    notes = [n for n in (size, f"{fmt.count(fixed)} non-trainable" if fixed else "") if n]
    return text + (f" ({', '.join(notes)})" if notes else "")


def _itemsize(var: Any) -> int:
    dtype = var.dtype
    try:
        return int(getattr(dtype, "size", None) or np.dtype(str(dtype)).itemsize)
    except Exception:  # a dtype numpy does not know: no byte size, the count stays
        return 0


def _output_text(layer: Any, subs: list) -> str:
    """``→ [None, 28, 28, 1]``: the shape of what the layer returns, where Keras knows it
    without running anything (a layer of a functional or Sequential model; a Sequential
    model by its last layer)."""
    for candidate in [layer, *subs[-1:]]:
        try:
            shape = candidate.output.shape
        except Exception:  # never called symbolically: no output shape to tell
            continue
        return f"→ {fmt.shape_text(shape)}"
    return ""


def _global_norm(variables: list) -> str:
    """``∇‖g‖=0.42@Adam iteration 5`` over the weights' latest gradients, if any were recorded."""
    return global_mark(variables)


# --------------------------------------------------------------------------- keras


def _sublayers(layer: Any) -> tuple[list, str]:
    """Direct sublayers and the attribute that lists them. ``layers`` is a property, which
    a model of the program's may override (its code): read bounded; in place where every
    class of the model is Keras's own (``Sequential``, a functional ``Model``): Keras's
    property walks its own lists, and the worker's hand-off was a first stop's cost."""
    if isinstance(getattr(type(layer), "layers", None), property):
        try:
            if library_class(type(layer)):
                return _listed(layer, "layers"), ".layers"
            found = bounded.call(_listed, layer, "layers", what="reading .layers")
            return found, ".layers"
        except bounded.TimedOut:
            raise
        except Exception:  # a property that raises: Keras's own list
            pass
    return _own_sublayers(layer)


def _own_sublayers(layer: Any) -> tuple[list, str]:
    return list(getattr(layer, "_layers", []) or []), "._layers"


def _sublayers_or_hang(layer: Any) -> tuple[list, str, Note | None]:
    """``_sublayers``, or Keras's own list and the note saying ``layers`` hung."""
    try:
        return (*_sublayers(layer), None)
    except bounded.TimedOut as exc:
        return (*_own_sublayers(layer), error_note(exc))


def _listed(obj: Any, name: str) -> list:
    with harmless():
        return list(getattr(obj, name))


def _title(obj: Any) -> str:
    """``Dense 'dense'``; the class alone where reading the name fails (a ``tf.Module``
    subclass whose ``__init__`` never called ``super().__init__()`` has no ``_name``)."""
    try:
        return f"{type(obj).__name__} {obj.name!r}"
    except Exception:
        return type(obj).__name__


def _weights(layer: Any) -> list:
    """``layer.weights`` that are variables: Keras 2's lookup layers list their table's
    handler (``VocabWeightHandler``: no name, no shape) among them; the ``weights``
    attribute row still shows the whole list."""
    return [w for w in layer.weights if _is_weight(w)]


_WEIGHT_TYPES: dict[type, bool] = {}


def _is_weight(w: Any) -> bool:
    """Whether ``w`` has a shape and a name: a class that defines both is answered once
    (a 2,000-layer model holds 4,000 variables of one or two classes), anything else per
    instance."""
    kind = type(w)
    by_class = _WEIGHT_TYPES.get(kind)
    if by_class is None:
        by_class = _WEIGHT_TYPES[kind] = hasattr(kind, "shape") and hasattr(kind, "name")
    return by_class or (hasattr(w, "shape") and hasattr(w, "name"))


def _untracked_variables(
    layer: Any, weights: list, tracked: frozenset[int] | None = None
) -> list[tuple[str, Any]]:
    """Variables the layer holds in attributes that are not among its weights: raw
    ``tf.Variable``s in a Keras 3 layer (TF's guide ``MyDense``), which Keras neither
    counts nor trains. ``tracked``: the weights' ids, where they are kept."""
    if tracked is None:
        tracked = frozenset(map(id, weights))
    return [
        (name, value)
        for name, value in attribute_views.own_values(layer)
        if kind_of(value) in _VARIABLE_KINDS
        and id(value) not in tracked
        and name not in _KERAS2_COUNTERS
    ]


# Keras 2's Model keeps its step counters (and, once compiled, steps_per_execution) as
# plain variables: bookkeeping, not the layer's.
_KERAS2_COUNTERS = frozenset(
    {"_train_counter", "_test_counter", "_predict_counter", "_steps_per_execution"}
)


def _state_text(layer: Any) -> str:
    try:
        return preprocessing.state_text(layer)
    except Exception as exc:  # the layer's own query failed: the line says so
        return f"state {error_note(exc)}"


# --------------------------------------------------------------------------- structure


@dataclass
class _Structure:
    """What a training step cannot change in a layer: its sublayers, its weights (the
    list, names, shapes, dtypes), and the texts made of them. Kept per layer while its
    ``signature`` holds (told by its ``watch`` where Keras's own lists can tell it);
    values, gradients and attributes are read at every stop."""

    signature: tuple
    subs: list
    attribute: str
    weights: list
    params: int
    params_text: str
    output_text: str
    weights_text: str
    nested: frozenset[int]
    watch: _Watch | None = None
    weight_ids: frozenset[int] = frozenset()
    nodes: tuple = ()  # _nodes when output_text was read: a symbolic call adds one
    trainable: list | None = None  # the weights whose flag is on (Keras 3's own layers)


def _nodes(layer: Any, subs: list) -> tuple:
    """How many times the layer (and a Sequential model's last layer) was called
    symbolically: Keras's inbound-node lists, which a symbolic call appends to (a
    subclassed model's output shape first becomes known at such a call, with no change of
    its weights or sublayers). Read as the lists' lengths, nothing computed."""
    found = []
    for candidate in [layer, *subs[-1:]]:
        try:
            found.append(len(candidate._inbound_nodes))
        except Exception:  # no node list (not a Keras layer): nothing to tell
            found.append(-1)
    return tuple(found)


_structures: weakref.WeakKeyDictionary[Any, _Structure] = weakref.WeakKeyDictionary()
_structures_lock = threading.Lock()


def _trainable_flags(weights: list) -> tuple:
    return tuple(bool(getattr(w, "trainable", False)) for w in weights)


def _signature(layer: Any, weights: list) -> tuple:
    """What a change of structure changes: the layer's class, whether it is built, its own
    sublayer list, the identity of each of its weights (a layer added, removed or replaced,
    a model built or rebuilt, a weight added by a later ``build``) and whether each is
    trainable (a layer frozen: the non-trainable count)."""
    own = getattr(layer, "_layers", None) or []
    return (
        type(layer),
        bool(getattr(layer, "built", True)),
        tuple(id(sub) for sub in own),
        tuple(id(w) for w in weights),
        _trainable_flags(weights),
    )


# --------------------------------------------------------------------------- watch

# Keras 3's ``Layer.weights`` is its own ``_trainable_variables + _non_trainable_variables``
# (each once), then each of its ``_layers``' ``weights``: plain lists on each layer, which
# every change of structure changes (Keras's tracker appends to and removes from them; a
# Sequential model's build assigns a new ``_layers``).
_TRACKED = ("_layers", "_trainable_variables", "_non_trainable_variables")
_tracked_lists = operator.attrgetter(*_TRACKED)
_MIRRORED: dict[type, bool] = {}


def _keras3(module: str, name: str, attribute: str) -> Any:
    found = getattr(sys.modules.get(module), name, None)
    return vars(found).get(attribute) if isinstance(found, type) else None


def _defines(kind: type, attribute: str, own: Any, plain: tuple[str, ...]) -> bool:
    """Whether ``kind`` gets ``attribute`` from Keras's own ``own`` and defines none of
    ``plain`` in a class (they are instance attributes)."""
    defining = next((c for c in kind.__mro__ if attribute in vars(c)), None)
    return (
        own is not None
        and defining is not None
        and vars(defining)[attribute] is own
        and not any(name in vars(c) for c in kind.__mro__ for name in plain)
    )


def _mirrors_keras3(kind: type) -> bool:
    """Whether a layer of this class gets its ``weights`` from Keras 3's own property, and
    the three lists that property reads are instance attributes (no class of the program's
    defines them): then its weights are what those lists say. Answered once per class."""
    found = _MIRRORED.get(kind)
    if found is None:
        own = _keras3("keras.src.layers.layer", "Layer", "weights")
        found = _MIRRORED[kind] = _defines(kind, "weights", own, _TRACKED)
    return found


_PLAIN_FLAG: dict[type, bool] = {}


def _flag_getter(variables: list) -> Any:
    """How to read each variable's trainable flag: Keras 3's ``trainable`` property
    returns its ``_trainable``, read as that where every variable's class has Keras's own
    property (a third of the time); through ``trainable`` otherwise."""
    own = _keras3("keras.src.backend.common.variables", "Variable", "trainable")
    for kind in set(map(type, variables)):
        plain = _PLAIN_FLAG.get(kind)
        if plain is None:
            plain = _PLAIN_FLAG[kind] = _defines(kind, "trainable", own, ("_trainable",))
        if not plain:
            return operator.attrgetter("trainable")
    return operator.attrgetter("_trainable")


class _Watch:
    """What tells, without Keras's walk of ``weights`` (a list built and deduplicated per
    layer: ~5 ms on a 2,000-layer model), that a Keras 3 layer's structure is the one its
    ``_Structure`` was made from: the items of the three lists of every layer under it (by
    identity, in order), the trainable flag of each variable in them and the layer's own
    built flag.

    The lists are held and read again where they are, not looked up on every layer: Keras
    3 makes a layer's lists once (``_initialize_tracker``) and changes them in place (its
    tracker appends and removes), except a model's ``_layers``, which Sequential's build
    replaces; so the lists of the layer itself, of every model and of every layer that had
    sublayers are looked up again and must be the same lists. The items are held too, so
    that no object compared by identity is freed and its id reused; the layer itself is
    not (the watch is kept in a weak-keyed table)."""

    __slots__ = (
        "built",
        "empty",
        "flag",
        "flags",
        "items",
        "kind",
        "others",
        "plain",
        "rechecked",
        "variables",
    )

    def __init__(self, layer: Any) -> None:
        self.kind = type(layer)
        self.built = bool(getattr(layer, "built", True))
        model = getattr(sys.modules.get("keras.src.models.model"), "Model", None)
        rechecked: list[tuple[Any, tuple]] = []
        variables: list[Any] = []
        lists: list[Any] = []
        stack = [layer]
        seen: set[int] = set()
        while stack:  # depth first, in Keras's order; a layer listed twice is walked once
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            if not _mirrors_keras3(type(current)):
                raise TypeError(f"{type(current).__name__}: weights not Keras 3's own")
            found = _tracked_lists(current)
            if not all(isinstance(each, list) for each in found):
                raise TypeError("Keras's lists are not lists")
            subs, trainable, fixed = found
            replaceable = model is not None and isinstance(current, model)
            if current is layer or subs or replaceable:
                rechecked.append((current, found))
            lists += found
            variables += trainable
            variables += fixed
            stack.extend(reversed(subs))
        self.rechecked = rechecked
        self.empty = [each for each in lists if not each]  # most: a Dense has no sublayers
        # the plain lists' referents are their items (read in one pass); a list of a
        # subclass (Keras's TrackedList: a Sequential model's _layers) is iterated
        self.plain = [each for each in lists if each and type(each) is list]
        self.others = [each for each in lists if each and type(each) is not list]
        self.items = self._items()
        self.variables = variables
        self.flag = _flag_getter(variables)
        self.flags = list(map(self.flag, variables))

    def _items(self) -> list:
        return gc.get_referents(*self.plain) + list(chain.from_iterable(self.others))

    def holds(self, layer: Any) -> bool:
        """Whether ``layer`` is as it was: the same lists where they can be replaced, the
        same items in them (an empty list still empty), every variable's trainable flag
        the same, built or not the same."""
        if type(layer) is not self.kind or bool(getattr(layer, "built", True)) != self.built:
            return False
        for each, found in self.rechecked:
            if not all(map(operator.is_, _tracked_lists(each), found)):
                return False
        if any(self.empty):
            return False
        items = self._items()
        return (
            len(items) == len(self.items)
            and all(map(operator.is_, items, self.items))
            and list(map(self.flag, self.variables)) == self.flags
        )


def _watch(layer: Any) -> _Watch | None:
    """A watch of the layer where Keras 3's own lists tell its weights, else None (Keras 2,
    a class that defines ``weights`` or one of the lists itself): its weights are walked."""
    try:
        return _Watch(layer) if _mirrors_keras3(type(layer)) else None
    except Exception:
        return None


def _watched(kept: _Structure | None, layer: Any) -> bool:
    if kept is None or kept.watch is None:
        return False
    try:
        return kept.watch.holds(layer)
    except Exception:  # a list gone or not a list: walked as before
        return False


def _structure(layer: Any) -> tuple[_Structure | None, Note | None]:
    """The layer's structure, computed at the first look and after a change of its
    signature only (told by its watch where there is one, else by walking its weights);
    (None, the note) when reading ``layers`` hung (not kept)."""
    try:
        with _structures_lock:
            kept = _structures.get(layer)
    except TypeError:  # not weakly referenceable, or unhashable: computed every time
        kept = None
    if kept is not None and _watched(kept, layer):
        return _outputs_current(kept, layer), None
    weights = _weights(layer)
    signature = _signature(layer, weights)
    if kept is not None and kept.signature == signature:
        kept.watch = _watch(layer)
        return _outputs_current(kept, layer), None
    subs, attribute, hung = _sublayers_or_hang(layer)
    if hung is not None:
        return None, hung
    structure = _Structure(
        signature=signature,
        subs=subs,
        attribute=attribute,
        weights=weights,
        params=sum(_size(w) for w in weights),
        params_text=_params_text(weights),
        output_text=_output_text(layer, subs),
        nodes=_nodes(layer, subs),
        weights_text=" ".join(
            f"{variable_views.weight_name(w)}{fmt.shape_text(w.shape)}" for w in weights[:4]
        ),
        nested=frozenset(id(w) for sub in subs for w in sub.weights),
        watch=_watch(layer),
        weight_ids=frozenset(map(id, weights)),
    )
    try:
        with _structures_lock:
            _structures[layer] = structure
    except TypeError:
        pass
    return structure, None


def _trainable_weights(layer: Any, structure: _Structure | None) -> list:
    """``layer.trainable_weights``: from the kept structure where the layer's class has
    Keras 3's own property and its weights are watched (each weight's flag is part of what
    the watch compares), whose walk of every sublayer's weights a 320-weight model paid at
    every expansion; else the property."""
    if structure is not None and structure.watch is not None and _own_trainable(type(layer)):
        if structure.trainable is None:
            flag = structure.watch.flag
            structure.trainable = [w for w in structure.weights if flag(w)]
        return list(structure.trainable) if layer.trainable else []
    return list(layer.trainable_weights)


_OWN_TRAINABLE: dict[type, bool] = {}


def _own_trainable(kind: type) -> bool:
    found = _OWN_TRAINABLE.get(kind)
    if found is None:
        own = _keras3("keras.src.layers.layer", "Layer", "trainable_weights")
        found = _OWN_TRAINABLE[kind] = _defines(kind, "trainable_weights", own, ())
    return found


def _outputs_current(kept: _Structure, layer: Any) -> _Structure:
    """A kept structure whose ``→ shape`` is read again after a symbolic call of the layer
    (its structure unchanged, its output shape known from then on)."""
    nodes = _nodes(layer, kept.subs)
    if nodes != kept.nodes:
        kept.output_text = _output_text(layer, kept.subs)
        kept.nodes = nodes
    return kept


def forget_structures() -> None:
    """Drop every kept structure (tests)."""
    with _structures_lock:
        _structures.clear()


def summary_key(layer: Any) -> tuple | None:
    """What ``layer_summary``'s line depends on, for a host that keeps the line between
    looks (the notebook's Variable Inspector, refreshed after every cell): its structure's
    signature, the variables it holds outside its weights, and the gradient records'
    generation (its global norm and label). None where that cannot be told cheaply (a
    preprocessing layer's state: a vocabulary adapted in place, or a ``layers`` that hung).
    A Keras 3 model's structure is told by its watch: no walk of its ``weights``."""
    if _state_text(layer):
        return None
    structure, hung = _structure(layer)
    if structure is None:
        return None
    found = _untracked_variables(layer, structure.weights, structure.weight_ids)
    return (
        structure.signature,
        structure.nodes,
        tuple(id(v) for _, v in found),
        capture.generation(),
    )


def layer_summary(layer: Any) -> str:
    """``81,937 params → [None, 28, 28, 1], 5 layers, Sequential 'generator'``: what it
    holds and returns first, its class and name (the pane's row often has them) last."""
    name = _title(layer)
    structure, hung = _structure(layer)
    if structure is None:  # ``layers`` hung: Keras's own list, said so, nothing kept
        subs, _ = _own_sublayers(layer)
        weights = _weights(layer)
        params_text, output_text = _params_text(weights), _output_text(layer, subs)
        weights_text = " ".join(
            f"{variable_views.weight_name(w)}{fmt.shape_text(w.shape)}" for w in weights[:4]
        )
        tracked = None
    else:
        subs, weights = structure.subs, structure.weights
        params_text, output_text = structure.params_text, structure.output_text
        weights_text, tracked = structure.weights_text, structure.weight_ids
    untracked = _untracked_variables(layer, weights, tracked)
    state = _state_text(layer)
    if not getattr(layer, "built", True) and not (weights or untracked or state):
        return f"not built yet (no weights), {name}"
    text = fmt.join([params_text, output_text])
    if subs:
        text += f", {fmt.counted(len(subs), 'layer')}"
    elif weights:
        text += ": " + weights_text
    if untracked:
        listed = " ".join(f"{n}{fmt.shape_text(v.shape)}" for n, v in untracked[:4])
        text += f"; variables outside weights: {listed}"
    if state:
        text += f", {state}"
    if hung is not None:
        text += f", layers {hung}"
    mark = _global_norm(weights)
    return f"{text}{', ' + mark if mark else ''}, {name}"


def layer_children(layer: Any, extra: list[Child] | None = None) -> list[Child]:
    """The structured rows, ``extra`` rows (features such as ``Δ since last stop``), then
    every attribute those rows do not show."""
    attributes = attribute_views.read_attributes(layer)
    holders = attribute_views.holders(attributes)
    shown: dict[int, str] = {}
    held: list[Child] = []

    def part(value: Any, label: str, fallback: str) -> Child:
        """A sublayer or weight held by a public attribute is that attribute's row, by its
        name (``encoder``, as the program and stock debugpy name it) and expression; one
        only in Keras's lists by its own name (``dense (Dense)``) and place in the list."""
        name = holders.get(id(value))
        if name is None:
            return Child(label, value, fallback)
        shown[id(value)] = name
        held.append(Child(name, value, f".{name}"))
        return held[-1]

    structure, hung = _structure(layer)
    if structure is None:
        subs, attribute = _own_sublayers(layer)
        weights = _weights(layer)
        nested: frozenset[int] = frozenset(id(w) for sub in subs for w in sub.weights)
        params = sum(_size(w) for w in weights)
    else:
        subs, attribute, weights = structure.subs, structure.attribute, structure.weights
        nested, params = structure.nested, structure.params
    rows = [] if hung is None else [Child("layers", hung)]
    rows += [
        part(sub, f"{sub.name} ({type(sub).__name__})", f"{attribute}[{i}]")
        for i, sub in enumerate(subs[:LISTED])
    ]
    for k, weight in enumerate(weights):
        if id(weight) not in nested:
            rows.append(part(weight, variable_views.weight_name(weight), f".weights[{k}]"))
    for name, variable in _untracked_variables(layer, weights):
        plain = expressions.identifier(name)  # a setattr name may be any string
        if plain is not None and not plain.startswith("_"):
            rows.append(part(variable, plain, f".{plain}"))
    rows.extend(preprocessing.state_children(layer))
    rows.append(Child("params", params, call(f"{MODULE}.param_count({{}})")))
    if subs and weights:
        text = structure.params_text if structure is not None else None
        rows.append(Child("all weights", Weights(weights, text=text), ".weights"))
    trainable = _trainable_weights(layer, structure)
    if has_gradients(trainable):
        rows.append(
            Child("∇ gradients", GradientTable(trainable), call(f"{MODULE}.gradient_table({{}})"))
        )
    elif trainable and (untraced := _steps_without_capture(layer)):
        rows.append(Child("∇ gradients", Note(untraced)))
    rows.append(Child("trainable", bool(layer.trainable), ".trainable"))
    rows.extend(extra or [])
    covered = _LAYER_COVERED if len(subs) <= LISTED else _LAYER_COVERED - {"layers"}
    if len(weights) != len(layer.weights):  # a handler left out: the attribute shows it
        covered = covered - {"weights"}
    # an attribute's name is the program's: the plugin's own row of that name gives way
    # (an attribute ``memory`` holding a sublayer, beside the ``memory`` row)
    taken = {row.name for row in held}
    mine = {id(row) for row in held}  # by identity: a row's value may be a tensor
    rows = [
        attribute_views.renamed(row) if row.name in taken and id(row) not in mine else row
        for row in rows
    ]
    return attribute_views.distinct(
        rows, attribute_views.attribute_rows(layer, attributes, covered, shown)
    )


# Attributes a layer's structured rows show as a whole: its sublayers, weights, trainable.
_LAYER_COVERED = frozenset({"layers", "weights", "trainable"})


# --------------------------------------------------------------------------- tf.Module


def _module_members(module: Any) -> list[tuple[str, Any, Expression]]:
    """Public attributes that are modules or variables (one level into lists/dicts)."""
    members: list[tuple[str, Any, Expression]] = []
    for name, value in vars(module).items():
        attr = expressions.plain_str(name)  # a setattr name may be any string (or a subclass)
        if attr is None or attr.startswith("_"):
            continue
        own = expressions.attribute(attr)
        if _is_member(value):
            members.append((attr, value, own))
        elif isinstance(value, (list, tuple)):
            members.extend(
                (f"{attr}[{i}]", v, _then(own, f"[{i}]"))
                for i, v in enumerate(value)
                if _is_member(v)
            )
        elif isinstance(value, dict):
            for k, v in value.items():
                key = expressions.item(k)  # an exact copy's repr: no subclass __repr__ runs
                if _is_member(v) and key is not None:
                    members.append((f"{attr}{key}", v, _then(own, key)))
    return members[:LISTED]


def _then(first: Expression, suffix: str) -> Expression:
    """``first`` (a suffix or a function of the parent's expression) followed by ``suffix``."""
    if first is None:
        return None
    if callable(first):
        return lambda parent, first=first: first(parent) + suffix  # type: ignore[misc]
    return first + suffix


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
    mark = _global_norm(module_variables(module, trainable=True))
    text = f"{_params_text(variables)}, {len(variables)} variables"
    return f"{text}{', ' + mark if mark else ''}, {_title(module)}"


def module_children(module: Any) -> list[Child]:
    attributes = attribute_views.read_attributes(module)
    members = _module_members(module)
    rows = [Child(name, value, expression) for name, value, expression in members]
    variables = module_variables(module)
    rows.append(
        Child("params", sum(_size(v) for v in variables), call(f"{MODULE}.param_count({{}})"))
    )
    own = list(module.variables)
    plain = len(variables) == len(own)  # nothing added to tf.Module's own list
    every = ".variables" if plain else call(f"{MODULE}.module_variables({{}})")
    rows.append(Child("all variables", Weights(variables), every))
    trainable = module_variables(module, trainable=True)
    if has_gradients(trainable):
        rows.append(
            Child("∇ gradients", GradientTable(trainable), call(f"{MODULE}.gradient_table({{}})"))
        )
    shown = {id(value): name for name, value, _ in members}
    covered = {"variables"} if plain else set()
    return attribute_views.distinct(
        rows, attribute_views.attribute_rows(module, attributes, covered, shown)
    )


# --------------------------------------------------------------------------- nodes


class Weights(Node):
    """All weights of a model (or variables of an optimizer, a metric), by path."""

    def __init__(self, weights: list, noun: str = "weights", text: str | None = None) -> None:
        self.weights = weights
        self.noun = noun
        self.text = text  # the weights' params text, where a kept structure has it

    def summary(self) -> str:
        if self.noun != "weights":  # state, not parameters: no trainable/frozen split
            values = sum(_size(w) for w in self.weights)
            noun = self.noun[:-1] if len(self.weights) == 1 else self.noun
            return f"{len(self.weights)} {noun}, {fmt.count(values)} values"
        return f"{len(self.weights)} weights, {self.text or _params_text(self.weights)}"

    def children(self) -> list[Child]:
        return [
            Child(variable_views.label(w), w, f"[{i}]") for i, w in enumerate(self.weights[:LISTED])
        ]


class GradientTable(Node):
    """Every trainable weight's latest gradient on one screen: which layer vanishes?
    Rows are named by the weight's path; the figures are in the value."""

    def __init__(self, weights: list) -> None:
        self.weights = weights

    def info(self, index: int) -> GradientInfo | None:
        from .gradients import gradient_info

        return gradient_info(self.weights[index])

    def summary(self) -> str:
        return fmt.join([_global_norm(self.weights), _counts_text(self.weights)])

    def children(self) -> list[Child]:
        rows = []
        shown = self.weights[:LISTED]
        for i, (weight, source) in enumerate(zip(shown, capture.records_of(shown))):
            name = variable_views.label(weight)
            if source is None:
                rows.append(Child(name, Note("no gradient recorded")))
            else:
                rows.append(Child(name, self.info(i), call(f"{{}}.info({i})")))
        if len(self.weights) > LISTED:
            rows.append(Child("…", Note(f"{len(self.weights) - LISTED} more weights")))
        return rows


def _steps_without_capture(model: Any) -> str | None:
    """Why a model that has trained has no gradient at all: its compiled steps were traced
    before gradient capture was installed (the debugger attached later), or capture is
    off; and how to get them."""
    optimizer = getattr(model, "__dict__", {}).get("optimizer")
    iterations = getattr(optimizer, "iterations", None)
    if iterations is None:
        return None
    value = variable_views.read_value(iterations)
    if value is None:
        return None
    try:
        steps = int(value.numpy())
    except Exception:
        return None
    if steps <= 0:
        return None
    if not capture.enabled():
        return f"none kept: gradient capture is off ({steps:,} optimizer steps so far)"
    return (
        f"none kept: the optimizer has taken {steps:,} steps, in functions traced before "
        "the debugger attached (they keep no gradient). They are kept from the next trace "
        "on: run model.make_train_function(force=True) in the Debug Console before the "
        "next fit, or put a breakpoint in train_step (it then runs eagerly)"
    )


def _counts_text(weights: list) -> str:
    """``3 of 4 trainable weights recorded, 1 None``: only gradients with a value count as
    recorded; symbolic ones (traced inside a tf.function) and None ones are said apart."""
    have = symbolic = none = 0
    where = ""
    # a compiled step's weights whose records are not built yet: each has a value
    waiting = pending_flags(weights)
    have = sum(waiting)
    for source in capture.records_of([w for w, wait in zip(weights, waiting) if not wait]):
        if source is None:
            continue
        latest = source.latest
        if source.symbolic_now:
            symbolic += 1
            where = where or str(source.symbolic_in)
        elif latest is not None and latest.has_value:
            have += 1
        elif latest is not None:
            none += 1
    parts = [f"{have} of {len(weights)} trainable weights recorded"]
    if symbolic:
        parts.append(f"{symbolic} not available (symbolic, in tf.function {where!r})")
    if none:
        parts.append(f"{none} None")
    return ", ".join(parts)


# --------------------------------------------------------------------------- public


def param_count(obj: Any) -> int:
    weights = obj.weights if is_keras_layer(obj) else module_variables(obj)
    return sum(_size(w) for w in weights)


def gradient_table(obj: Any) -> GradientTable:
    weights = obj.trainable_weights if is_keras_layer(obj) else module_variables(obj, True)
    return GradientTable(list(weights))
