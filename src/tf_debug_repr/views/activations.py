"""A layer's output in the last step (``→ output``) and a model's last train batch
(``last step``), as the debugger shows them.

A Keras layer whose output a step kept (``gradients/activations.py``) gets a
``→ output`` child: the tensor itself (a tensor row: figures, values, View Tensor), whose
summary also counts what goes wrong in activations: exact zeros and units dead for the
whole batch after a ReLU, saturated sigmoid/tanh outputs, exploding values. A model whose
compiled train step kept its batch gets a ``last step`` group: the inputs, targets and
sample weights the step was given, after Keras's data adapter. Under several replicas
each of them has a child per replica (``[0] CPU:0``: ``ReplicaOutputs``), each that
replica's own tensor. Each row's expression is a call of the public facade
(``activation(layer)``, ``last_step(model)``).
"""

from __future__ import annotations

import functools
import math
import threading
import weakref
from typing import Any, Optional

import numpy as np

from ..core import additions, notebook_cells
from ..core import formatting as fmt
from ..core.additions import Slot
from ..core.guards import harmless, host_view, is_on_host
from ..core.tf_types import Kind
from ..core.view_model import FACADE, Child, Node, Note, call
from ..gradients import activations as capture

LISTED = 32
EXPLODING = 1e4  # |x| past this counts as exploding
SATURATED = 0.99  # |tanh| or sigmoid past this (or sigmoid below 1 - this) counts
RELU_NAMES = frozenset({"relu", "relu6"})

_lock = threading.Lock()
# id(tensor) -> (weak ref, the activation's name, text or None): tensors handed out as a
# layer's output, so that their summary line carries the counts.
_marked: dict[int, tuple[weakref.ref, str, str | None]] = {}
# id(tensor) -> (weak ref, title): what each of them is, ``hidden → output (compiled step
# 'one_step_on_data')``, for a notebook's display of ``layer_output(layer)``.
_titles: dict[int, tuple[weakref.ref, str]] = {}


def activation_name(layer: Any) -> str:
    """``relu``, ``sigmoid``, ``tanh``, … of a layer that applies one (a ``Dense``'s
    ``activation``, an ``Activation`` or ``ReLU`` layer); "" otherwise."""
    if type(layer).__name__ == "ReLU":
        return "relu"
    function = getattr(layer, "activation", None)
    name = getattr(function, "__name__", "") if callable(function) else ""
    return str(name) if isinstance(name, str) else ""


def _remember(tensor: Any, name: str, title: str = "") -> None:
    try:
        ref = weakref.ref(tensor)
    except TypeError:
        return
    with _lock:
        entry = _marked.get(id(tensor))
        if entry is None or entry[0]() is not tensor:
            _marked[id(tensor)] = (ref, name, None)
        if title:
            _titles[id(tensor)] = (ref, title)
        if len(_marked) > 4096:
            for key, (r, _, _) in list(_marked.items()):
                if r() is None:
                    del _marked[key]
            for key, (r, _) in list(_titles.items()):
                if r() is None:
                    del _titles[key]


def output_title(layer: Any, output: capture.Output) -> str:
    """``hidden → output (compiled step 'one_step_on_data')``: the layer by its name."""
    try:
        name = str(layer.name)
    except Exception:  # a layer whose name cannot be read: its class
        name = type(layer).__name__
    detail = f", {output.detail}" if output.detail else ""
    return f"{name} → output{output.path} ({output.where}{detail})"


def _replica_name(output: capture.Output) -> str:
    """``[0] CPU:0``: a replica's row, named as views/distribute.py names replicas."""
    return f"[{output.replica}] {output.device or '?'}"


class ReplicaOutputs(Node):
    """A step's output under several replicas: each replica's part, as it produced it."""

    def __init__(self, output: capture.Output, name: str, title: str = "") -> None:
        self.output = output
        self.name = name
        self.title = title

    def value(self, replica: int) -> Any:
        for part in self.output.replicas:
            if part.replica == replica:
                title = f"{self.title[:-1]}, replica {replica})" if self.title else ""
                return output_value(part, self.name, title)
        ids = ", ".join(str(p.replica) for p in self.output.replicas)
        return Note(f"no replica {replica} in the last step (replicas {ids})")

    def summary(self) -> str:
        parts = self.output.replicas
        devices = ", ".join(p.device or "?" for p in parts[:8]) + (", …" if len(parts) > 8 else "")
        first = parts[0] if parts else None
        shape = fmt.shape_text(first.shape or []) if first is not None else ""
        return (
            f"{len(parts)} replicas ({devices}), each its part of the batch; "
            f"[{first.replica if first else 0}]{shape}"
        )

    def children(self) -> list[Child]:
        return [
            Child(
                _replica_name(part),
                expression=f".value({part.replica})",
                compute=functools.partial(self.value, int(part.replica or 0)),
            )
            for part in self.output.replicas[:LISTED]
        ]


def described(obj: Any) -> tuple[str, str] | None:
    """(title, counts) of a tensor handed out as a layer's output (``layer_output``, a
    ``→ output`` row), None for any other value. The counts are the summary's mark."""
    with _lock:
        entry = _titles.get(id(obj))
    if entry is None or entry[0]() is not obj:
        return None
    return entry[1], activation_mark(obj, Kind.EAGER)


def health(tensor: Any, name: str) -> str:
    """What goes wrong in an activation, counted: ``dead ReLU: 48% zeros, 3 of 64 units
    dead``, ``saturated 31% (|y|>0.99)``, ``‼ 5 exploding (|x|>1e+04)``; "" when none."""
    with harmless(getattr(tensor, "device", None)):
        if not (tensor.dtype.is_floating and tensor.shape.rank is not None):
            return ""
        size = int(math.prod(int(d) for d in tensor.shape))
        if size == 0:
            return ""
        counts = host_counts if is_on_host(tensor) else device_counts
        zeros, dead, saturated, exploding = counts(tensor, name)
    parts = []
    if zeros is not None:
        text = f"dead ReLU: {100 * zeros / size:.0f}% zeros"
        if dead is not None:
            text += f", {dead:,} of {int(tensor.shape[-1]):,} units dead for the whole batch"
        parts.append(text)
    elif saturated is not None and name in ("sigmoid", "hard_sigmoid"):
        low = 1.0 - SATURATED
        parts.append(f"saturated {100 * saturated / size:.0f}% (<{low:g} or >{SATURATED:g})")
    elif saturated is not None:
        parts.append(f"saturated {100 * saturated / size:.0f}% (|y|>{SATURATED:g})")
    if exploding:
        parts.append(f"{fmt.WARNING} {exploding:,} exploding (|x|>{EXPLODING:g})")
    return ", ".join(parts)


# Optional, not "int | None": a runtime alias, evaluated on Python 3.9 too
Counts = tuple[Optional[int], Optional[int], Optional[int], int]


def host_counts(tensor: Any, name: str) -> Counts:
    """``health``'s counts (zeros, units dead for the whole batch, saturated, exploding;
    None where the activation has no such count) of a CPU tensor, by numpy on its buffer:
    a few TF eager ops each took 10-40 ms under load where these take well under 1 ms for
    a layer's output. The same float32 compares as ``device_counts``."""
    x = np.asarray(host_view(tensor))
    if x.dtype != np.float32:
        x = x.astype(np.float32)
    zeros = dead = saturated = None
    if name in RELU_NAMES:
        is_zero = x == 0.0
        zeros = int(np.count_nonzero(is_zero))
        if x.ndim >= 2:
            dead = int(np.count_nonzero(is_zero.reshape(-1, x.shape[-1]).all(axis=0)))
    elif name in ("sigmoid", "hard_sigmoid"):
        low = np.float32(1.0 - SATURATED)
        saturated = int(np.count_nonzero((x < low) | (x > np.float32(SATURATED))))
    elif name in ("tanh", "hard_tanh"):
        saturated = int(np.count_nonzero(np.abs(x) > np.float32(SATURATED)))
    exploding = int(np.count_nonzero(np.abs(x) > np.float32(EXPLODING)))
    return zeros, dead, saturated, exploding


def device_counts(tensor: Any, name: str) -> Counts:
    """``health``'s counts by TF's ops on the tensor's own device (a GPU's output is not
    copied to the host)."""
    import tensorflow as tf

    x = tf.cast(tensor, tf.float32) if tensor.dtype != tf.float32 else tensor
    zeros = dead = saturated = None
    if name in RELU_NAMES:
        zeros = int(tf.math.count_nonzero(tf.equal(x, 0.0)))
        if tensor.shape.rank >= 2:
            axes = list(range(tensor.shape.rank - 1))
            dead = int(tf.math.count_nonzero(tf.reduce_all(tf.equal(x, 0.0), axis=axes)))
    elif name in ("sigmoid", "hard_sigmoid"):
        low = 1.0 - SATURATED
        saturated = int(tf.math.count_nonzero(tf.logical_or(x < low, x > SATURATED)))
    elif name in ("tanh", "hard_tanh"):
        saturated = int(tf.math.count_nonzero(tf.abs(x) > SATURATED))
    exploding = int(tf.math.count_nonzero(tf.abs(x) > EXPLODING))
    return zeros, dead, saturated, exploding


def activation_mark(obj: Any, kind: Kind) -> str:
    """The counts on the summary line of a tensor handed out as a layer's output."""
    if kind is not Kind.EAGER:
        return ""
    with _lock:
        entry = _marked.get(id(obj))
    if entry is None or entry[0]() is not obj:
        return ""
    if entry[2] is None:
        text = health(obj, entry[1])
        with _lock:
            _marked[id(obj)] = (entry[0], entry[1], text)
        return text
    return entry[2]


def _not_kept(output: capture.Output) -> Note:
    if output.reason:
        return Note(output.reason)
    shape = output.shape or []
    size = math.prod(shape) if shape else 0
    return Note(
        f"not kept: this output ({fmt.shape_text(shape)}, {size:,} elements) would take the "
        f"step's kept outputs past the {capture.budget_bytes() / (1 << 20):,.0f} MiB budget "
        "(raise it: put "
        + notebook_cells.setting(f"{capture.BUDGET_VARIABLE}=<MiB>")
        + " before the step is traced)"
    )


def output_value(output: capture.Output, name: str, title: str = "") -> Any:
    if output.replicas:
        return ReplicaOutputs(output, name, title)
    if output.value is None:
        return _not_kept(output)
    _remember(output.value, name, title)
    return output.value


def activation(layer: Any, index: int = 0, replica: int | None = None) -> Any:
    """The layer's ``index``-th output in the last step that ran it (a tensor), or a
    line saying why there is none; under several replicas each replica's (``replica``:
    that one's tensor)."""
    outputs = capture.outputs_of(layer)
    if not outputs:
        return Note(capture.skipped_reason(layer) or none_text())
    if not 0 <= index < len(outputs):
        return Note(f"the layer's last step gave {len(outputs)} outputs, not {index + 1}")
    output = outputs[index]
    found = output_value(output, activation_name(layer), output_title(layer, output))
    if replica is not None and isinstance(found, ReplicaOutputs):
        return found.value(replica)
    return found


def reached(
    model: Any, limit: int = 256
) -> tuple[list[tuple[Any, list[capture.Output]]], list[Any]]:
    """The layers under ``model`` (Keras's tracked sublayers, depth first, in the order
    the model holds them; at most ``limit``) with the outputs the last step that ran
    each kept, and those with none (not reached, or no step traced with capture on).
    ``model`` itself when it holds no sublayers."""
    found: list[tuple[Any, list[capture.Output]]] = []
    missing: list[Any] = []
    seen = {id(model)}
    pending = list(_sublayers(model)) or [model]
    while pending and len(found) + len(missing) < limit:
        layer = pending.pop(0)
        if id(layer) in seen and layer is not model:
            continue
        seen.add(id(layer))
        if type(layer).__name__ == "InputLayer":
            continue
        outputs = capture.outputs_of(layer)
        if outputs:
            found.append((layer, outputs))
        else:
            missing.append(layer)
        pending[:0] = [sub for sub in _sublayers(layer) if id(sub) not in seen]
    return found, missing


def _sublayers(layer: Any) -> list:
    """Keras's own list of a layer's tracked sublayers (read, never computed)."""
    try:
        return [sub for sub in list(getattr(layer, "_layers", None) or []) if sub is not layer]
    except Exception:
        return []


def none_text() -> str:
    if not capture.enabled():
        return "no output kept: activation capture is off (or no debugger client was attached)"
    return (
        "no output kept: no step that ran this layer was traced with the debugger attached "
        "(steps traced before it attached keep nothing)"
    )


def output_children(obj: Any, kind: Kind) -> list[Child]:
    """``→ output`` rows of a Keras layer (and a model's ``last step`` group)."""
    if kind is not Kind.KERAS_LAYER:
        return []
    rows: list[Child] = []
    outputs = capture.outputs_of(obj)
    if outputs:
        name = activation_name(obj)
        where = outputs[0].where
        calls = outputs[0].calls
        detail = f", {outputs[0].detail}" if outputs[0].detail else ""
        if outputs[0].replicas:
            detail += f", {len(outputs[0].replicas)} replicas"
        suffix = f" (in {where}{detail}" + (f", last of {calls} calls)" if calls > 1 else ")")
        for i, output in enumerate(outputs[:LISTED]):
            expression = call(
                f"{FACADE}.activation({{}})"
                if len(outputs) == 1
                else f"{FACADE}.activation({{}}, {i})"
            )
            rows.append(
                Child(
                    f"→ output{output.path}{suffix}",
                    expression=expression,
                    compute=functools.partial(
                        output_value, output, name, output_title(obj, output)
                    ),
                )
            )
    else:
        reason = capture.skipped_reason(obj)
        if reason is not None:  # a call the step could not keep: the row says why
            rows.append(
                Child("→ output (not kept)", Note(reason), call(f"{FACADE}.activation({{}})"))
            )
    batch = capture.batch_of(obj)
    if batch:
        rows.append(
            Child(
                "last step (the batch it was given)",
                LastStep(batch),
                call(f"{FACADE}.last_step({{}})"),
            )
        )
    return rows


_ROLES = {0: "inputs", 1: "targets", 2: "sample_weight"}


def _role(path: str) -> str:
    """``[0]`` -> ``inputs``, ``[0]['a']`` -> ``inputs['a']``, ``[1]`` -> ``targets``."""
    if not path:
        return "inputs"
    head, _, rest = path[1:].partition("]")
    try:
        role = _ROLES.get(int(head))
    except ValueError:
        role = None
    return f"{role}{rest}" if role else path


class LastStep(Node):
    """The tensors a model's last compiled train step was given (after Keras's data
    adapter: ``train_step(data)``)."""

    def __init__(self, outputs: list[capture.Output]) -> None:
        self.outputs = outputs

    def value(self, index: int) -> Any:
        return output_value(self.outputs[index], "")

    def summary(self) -> str:
        where = self.outputs[0].where if self.outputs else "?"
        names = ", ".join(
            f"{_role(o.path)}{fmt.shape_text(o.shape or [])}" for o in self.outputs[:6]
        )
        each = (
            f", each of its {len(self.outputs[0].replicas)} replicas its part"
            if self.outputs and self.outputs[0].replicas
            else ""
        )
        return f"{names} (the batch {where} was given{each}, after Keras's data adapter)"

    def children(self) -> list[Child]:
        return [
            Child(
                _role(o.path), expression=f".value({i})", compute=functools.partial(self.value, i)
            )
            for i, o in enumerate(self.outputs[:LISTED])
        ]


def last_step(model: Any) -> Any:
    batch = capture.batch_of(model)
    if not batch:
        return Note(
            "no batch kept: no compiled train step of this model ran, traced with the "
            "debugger attached"
        )
    return LastStep(batch)


MARK_ACTIVATION = 25
CHILD_ACTIVATION = 5


def register() -> None:
    additions.add(Slot.MARK, "activation", MARK_ACTIVATION, activation_mark)
    additions.add(Slot.CHILDREN, "activation", CHILD_ACTIVATION, output_children)
