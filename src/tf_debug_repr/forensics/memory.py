"""Where memory went: ``tf_debug_repr.memory()`` in the Watch pane or the Debug Console.

The report holds, for the frame it is evaluated in: device memory in use and peak per
device (what TF's allocator counts; on the CPU TF keeps no such counters, so the host
process's resident size stands in and says so), the largest tensors and variables
reachable from the frame's locals (containers two levels deep, objects' attributes,
Keras models' weights and optimizer variables) with their bytes and share, and each
model's parameter and optimizer-slot bytes.

Sizes come from static shapes and dtypes: no TF op runs, nothing is copied to the
host, nothing is recorded. The values found are the program's own objects, each under
the expression that reaches it from the frame.
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from types import FrameType, FunctionType, ModuleType
from typing import Any

from ..core import bounded, expressions
from ..core import formatting as fmt
from ..core.formatting import bytes_text
from ..core.tf_types import Kind, kind_of
from ..core.view_model import FACADE, Child, Node, Note, call
from ..views import dispatch
from ..views import models as model_views
from ..views import variables as variable_views
from ..views.dispatch import Memory

LISTED = 25  # tensors listed by name; the rest are summed up
_MAX_VISITS = 20_000  # objects looked at in one walk, whatever the frame holds
_CONTAINER_ITEMS = 1_000  # items looked at per list/dict
_DEPTH = 2  # containers and attributes followed below a local
_DEBUGGER_FILES = ("pydevd", "debugpy", f"{os.sep}_pydev")


# --------------------------------------------------------------------------- the frame


def caller_frame(depth: int = 1) -> FrameType:
    """The user's frame that called us. Evaluated by pydevd (Watch, hover, Debug
    Console), the caller is ``<string>`` code run by ``evaluate_expression(py_db, frame,
    …)``: its ``frame`` argument is the frame the user selected in the Call Stack.
    Called from the program itself, the caller is that frame."""
    frame = sys._getframe(depth + 1)
    probe: FrameType | None = frame
    while probe is not None:
        code = probe.f_code
        if code.co_name == "evaluate_expression" and _is_debugger_file(code.co_filename):
            selected = probe.f_locals.get("frame")
            if isinstance(selected, FrameType):
                return selected
        probe = probe.f_back
    # No pydevd evaluation on the stack: the first frame that is neither eval'd text nor
    # the debugger's own.
    probe = frame
    while probe is not None and (
        probe.f_code.co_filename.startswith("<") or _is_debugger_file(probe.f_code.co_filename)
    ):
        probe = probe.f_back
    return probe or frame


def _is_debugger_file(filename: str) -> bool:
    return any(part in filename for part in _DEBUGGER_FILES)


# --------------------------------------------------------------------------- sizes


def _dtype_size(obj: Any) -> int:
    dtype = obj.dtype
    size = getattr(dtype, "size", None)
    if size is None:  # Keras 3 dtypes are strings
        import tensorflow as tf

        size = tf.as_dtype(variable_views.dtype_name(obj)).size
    return int(size)


def nbytes(obj: Any) -> int:
    """Bytes of a tensor's or variable's elements (strings count their pointers only)."""
    elements = math.prod(int(d) for d in obj.shape)
    return elements * _dtype_size(obj)


def _storage(obj: Any) -> Any:
    """The object that owns the memory: a Keras variable's tf.Variable, else itself."""
    if kind_of(obj) is Kind.KERAS_VARIABLE:
        inner = getattr(obj, "_value", None)
        return obj if inner is None else inner
    return obj


def _device(obj: Any) -> str:
    try:
        device = getattr(_storage(obj), "device", "") or ""
    except Exception:
        device = ""
    return fmt.device_text(device) or "?"


@dataclass
class Found:
    """One tensor or variable reachable from the frame, under the expression reaching it."""

    expression: str
    value: Any
    nbytes: int
    device: str


@dataclass
class ModelBytes:
    expression: str
    name: str
    params: int
    param_bytes: int
    trainable_bytes: int
    optimizer: str
    slot_bytes: int
    slot_count: int


@dataclass
class _Walk:
    found: dict[int, Found] = field(default_factory=dict)
    models: list[ModelBytes] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)
    visits: int = 0


def _key_expression(key: Any) -> str | None:
    """A str or int key quoted from an exact copy (a subclass's ``__repr__`` is code)."""
    return expressions.literal(key)


def _variables_of(owner: Any, attribute: str) -> list:
    """``owner.<attribute>`` as a list: a property, which a class of the program's may
    override (its code), read bounded; [] where it raises or hangs."""
    try:
        return bounded.call(_listed, owner, attribute, what=f"reading .{attribute}")
    except Exception:
        return []


def _listed(owner: Any, attribute: str) -> list:
    return list(getattr(owner, attribute, None) or [])


def _add(walk: _Walk, expression: str, value: Any) -> None:
    storage = _storage(value)
    if id(storage) in walk.found:
        # The shortest expression names it (``w`` over ``model.weights[0]``).
        if len(expression) < len(walk.found[id(storage)].expression):
            walk.found[id(storage)].expression = expression
            walk.found[id(storage)].value = value
        return
    try:
        size = nbytes(value)
    except Exception:
        return  # unknown shape (not built yet): nothing allocated to count
    walk.found[id(storage)] = Found(expression, value, size, _device(value))


def _visit(walk: _Walk, expression: str, value: Any, depth: int) -> None:
    walk.visits += 1
    if walk.visits > _MAX_VISITS or id(value) in walk.seen:
        return
    if isinstance(value, (ModuleType, type, FunctionType, str, bytes, int, float, complex)):
        return
    walk.seen.add(id(value))
    kind = kind_of(value)
    counted = _counted(kind)  # what the kind's catalog row says
    if counted is Memory.TENSOR:
        _add(walk, expression, value)
        return
    if counted in (Memory.MODEL, Memory.OWNER):
        _visit_owner(walk, expression, value, counted)
        return
    if counted is Memory.REPLICAS:  # one component per replica, each on its device
        for i, component in enumerate(_variables_of(value, "values")):
            _visit(walk, f"{expression}.values[{i}]", component, depth)
        return
    if kind is not None or depth <= 0:
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value[:_CONTAINER_ITEMS]):
            _visit(walk, f"{expression}[{i}]", item, depth - 1)
    elif isinstance(value, dict):
        for n, (key, item) in enumerate(value.items()):
            if n >= _CONTAINER_ITEMS:
                break
            key_text = _key_expression(key)
            if key_text is not None:
                _visit(walk, f"{expression}[{key_text}]", item, depth - 1)
    else:
        attributes = getattr(value, "__dict__", None)
        if isinstance(attributes, dict):
            for name, item in list(attributes.items())[:_CONTAINER_ITEMS]:
                reached = expressions.attribute_of(expression, name)
                if reached is not None:
                    _visit(walk, reached, item, depth - 1)


def _visit_owner(walk: _Walk, expression: str, owner: Any, counted: Memory) -> None:
    """A model, layer, module or optimizer: its variables, and a model's byte counts."""
    attribute = "weights" if counted is Memory.MODEL else "variables"
    weights = _variables_of(owner, attribute)
    for i, var in enumerate(weights):
        _add(walk, f"{expression}.{attribute}[{i}]", var)
    if kind_of(owner) is Kind.TF_MODULE:  # Keras 3 weights, which tf.Module does not collect
        _add_module_weights(walk, expression, owner, len(weights))
    if counted is not Memory.MODEL:
        return
    optimizer = getattr(owner, "optimizer", None)
    slots = []
    if kind_of(optimizer) is Kind.OPTIMIZER:
        slots = _variables_of(optimizer, "variables")
        for i, var in enumerate(slots):
            _add(walk, f"{expression}.optimizer.variables[{i}]", var)
        walk.seen.add(id(optimizer))
    if not weights:
        return
    sizes = [_safe_nbytes(v) for v in weights]
    trainable = {id(_storage(v)) for v in _variables_of(owner, "trainable_weights")}
    walk.models.append(
        ModelBytes(
            expression=expression,
            name=str(getattr(owner, "name", "") or type(owner).__name__),
            params=sum(_safe_count(v) for v in weights),
            param_bytes=sum(sizes),
            trainable_bytes=sum(s for v, s in zip(weights, sizes) if id(_storage(v)) in trainable),
            optimizer=type(optimizer).__name__ if slots else "",
            slot_bytes=sum(_safe_nbytes(v) for v in slots),
            slot_count=len(slots),
        )
    )


def _add_module_weights(walk: _Walk, expression: str, module: Any, known: int) -> None:
    """The variables ``module_variables`` adds after ``module.variables`` (Keras 3 layers'
    weights and variables a module holds), each by its index in that list."""
    try:
        every = bounded.call(model_views.module_variables, module, what="the module's variables")
    except Exception:
        return
    for i, var in enumerate(every[known:], start=known):
        _add(walk, f"{_MODULE_VARIABLES}({expression})[{i}]", var)


_MODULE_VARIABLES = f"{FACADE}.module_variables"


def _counted(kind: Kind | None) -> Memory | None:
    row = dispatch.row(kind)
    return None if row is None else row.memory


def _safe_nbytes(var: Any) -> int:
    try:
        return nbytes(var)
    except Exception:
        return 0


def _safe_count(var: Any) -> int:
    try:
        return math.prod(int(d) for d in var.shape)
    except Exception:
        return 0


def reachable(frame: FrameType) -> tuple[list[Found], list[ModelBytes]]:
    """The tensors and variables reachable from the frame's locals and its module's
    globals, largest first, and the Keras models among them."""
    walk = _Walk()
    local_names = frame.f_locals
    # Locals first, then the module's globals that no local hides (a script's model and
    # data usually live there); a value met under several expressions keeps the shortest.
    names = list(local_names.items())
    if frame.f_globals is not local_names:
        names += [(n, v) for n, v in frame.f_globals.items() if n not in local_names]
    for name, value in names:
        plain = expressions.identifier(name)  # a frame's names are code: checked
        if plain is not None and not plain.startswith("__"):
            _visit(walk, plain, value, _DEPTH)
    found = sorted(walk.found.values(), key=lambda f: (-f.nbytes, f.expression))
    return found, walk.models


# --------------------------------------------------------------------------- devices


@dataclass
class DeviceMemory:
    device: str
    current: int | None
    peak: int | None
    note: str = ""


def _host_memory() -> tuple[int | None, int | None]:
    """(resident, peak resident) bytes of this process, from /proc where there is one."""
    current = peak = None
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    current = int(line.split()[1]) * 1024
                elif line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) * 1024
    except OSError:
        try:
            import resource

            scale = 1 if sys.platform == "darwin" else 1024  # macOS reports bytes
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
        except Exception:
            pass
    return current, peak


def device_memory() -> list[DeviceMemory]:
    """In use and peak per logical device, where TF's allocator counts them (GPU, TPU);
    the host process for CPUs, which TF does not count."""
    import tensorflow as tf

    if not _runtime_started():
        return _before_runtime(tf)
    rows: list[DeviceMemory] = []
    host_done = False
    for device in tf.config.list_logical_devices():
        name = fmt.device_text(device.name)
        if device.device_type == "CPU":
            if not host_done:
                current, peak = _host_memory()
                rows.append(
                    DeviceMemory(
                        "host",
                        current,
                        peak,
                        "CPU: TF keeps no allocator counters; this is the whole process's "
                        "resident memory (Python, TF, your data)",
                    )
                )
                host_done = True
            continue
        try:
            info = tf.config.experimental.get_memory_info(name)
            rows.append(DeviceMemory(name, int(info["current"]), int(info["peak"])))
        except Exception as exc:  # not supported on this device type
            rows.append(DeviceMemory(name, None, None, f"not counted: {type(exc).__name__}"))
    return rows


def _runtime_started() -> bool:
    """Has TF's runtime started? Listing logical devices or reading their counters would
    start it, and the program's own later ``tf.config`` calls (virtual devices, memory
    growth) would then raise."""
    try:
        from tensorflow.python.eager import context

        return bool(context.context()._initialized)
    except Exception:  # another TF layout: assume it has (the old behaviour)
        return True


def _before_runtime(tf: Any) -> list[DeviceMemory]:
    current, peak = _host_memory()
    rows = [DeviceMemory("host", current, peak, "CPU: the whole process's resident memory")]
    for device in tf.config.list_physical_devices():  # reads no runtime state
        if device.device_type != "CPU":
            name = device.name.replace("/physical_device:", "")
            rows.append(DeviceMemory(name, None, None, _NOT_STARTED))
    return rows


_NOT_STARTED = (
    "not read: TF's runtime has not started (reading it would start it, and the "
    "program's later tf.config calls would fail)"
)


# --------------------------------------------------------------------------- the report


def _share(part: int, whole: int) -> str:
    if not whole:
        return "–"
    percent = 100 * part / whole
    return f"{percent:.1f}%" if percent >= 0.1 or not part else "<0.1%"


class DeviceRow(Node):
    def __init__(self, row: DeviceMemory) -> None:
        self.row = row

    def summary(self) -> str:
        r = self.row
        if r.current is None and r.peak is None:
            return r.note or "not counted"
        text = f"in use {bytes_text(r.current or 0)}, peak {bytes_text(r.peak or 0)}"
        return f"{text} ({r.note})" if r.note else text

    def children(self) -> list[Child]:
        r = self.row
        rows = [Child("in use (bytes)", r.current), Child("peak (bytes)", r.peak)]
        if r.note:
            rows.append(Child("note", Note(r.note)))
        return rows


class Devices(Node):
    def __init__(self, rows: list[DeviceMemory]) -> None:
        self.rows = rows

    def summary(self) -> str:
        return "; ".join(f"{r.device}: {DeviceRow(r).summary()}" for r in self.rows)

    def children(self) -> list[Child]:
        return [Child(r.device, DeviceRow(r)) for r in self.rows]


class ModelRow(Node):
    def __init__(self, model: ModelBytes) -> None:
        self.model = model

    def summary(self) -> str:
        m = self.model
        text = (
            f"{fmt.count(m.params)} params {bytes_text(m.param_bytes)} "
            f"({bytes_text(m.trainable_bytes)} trainable)"
        )
        if m.optimizer:
            text += (
                f", {m.optimizer} {m.slot_count} variables {bytes_text(m.slot_bytes)}"
                f" (×{m.slot_bytes / m.param_bytes:.2g} the params)"
                if m.param_bytes
                else f", {m.optimizer} {bytes_text(m.slot_bytes)}"
            )
        return text

    def children(self) -> list[Child]:
        m = self.model
        return [
            Child("params", m.params, ".model.params"),
            Child("param bytes", m.param_bytes, ".model.param_bytes"),
            Child("trainable bytes", m.trainable_bytes, ".model.trainable_bytes"),
            Child("optimizer", Note(m.optimizer or "none")),
            Child("optimizer bytes", m.slot_bytes, ".model.slot_bytes"),
        ]


class Others(Node):
    def __init__(self, rest: list[Found], total: int) -> None:
        self.rest, self.total = rest, total

    def summary(self) -> str:
        size = sum(f.nbytes for f in self.rest)
        return f"{len(self.rest)} smaller, {bytes_text(size)} ({_share(size, self.total)})"

    def children(self) -> list[Child]:
        return [_found_child(f, self.total) for f in self.rest[:100]]


def _found_child(found: Found, total: int) -> Child:
    name = f"{found.expression}  {bytes_text(found.nbytes)} {_share(found.nbytes, total)}"
    return Child(name, found.value, lambda _parent, e=found.expression: e)  # type: ignore[misc]


class MemoryReport(Node):
    """What ``memory()`` returns: shown by the plugin as a tree, by ``print`` as text."""

    def __init__(
        self,
        where: str,
        found: list[Found],
        models: list[ModelBytes],
        devices: list[DeviceMemory],
    ) -> None:
        self.where = where
        self.found = found
        self.models = models
        self.devices = devices
        self.total = sum(f.nbytes for f in found)

    @property
    def largest(self) -> list[Found]:
        return self.found[:LISTED]

    def by_device(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for f in self.found:
            totals[f.device] = totals.get(f.device, 0) + f.nbytes
        return totals

    def summary(self) -> str:
        parts = [f"{len(self.found)} tensors/variables {bytes_text(self.total)} in {self.where}"]
        if self.found:
            top = self.found[0]
            parts.append(
                f"largest {top.expression} {bytes_text(top.nbytes)} "
                f"{_share(top.nbytes, self.total)}"
            )
        for row in self.devices:
            if row.current is not None:
                parts.append(f"{row.device} in use {bytes_text(row.current)}")
        return ", ".join(parts)

    def children(self) -> list[Child]:
        rows = [_found_child(f, self.total) for f in self.largest]
        if len(self.found) > LISTED:
            rows.append(Child("… smaller", Others(self.found[LISTED:], self.total)))
        rows.append(Child("devices", Devices(self.devices)))
        by_device = self.by_device()
        if by_device:
            rows.append(
                Child(
                    "reachable by device",
                    Note(", ".join(f"{d}: {bytes_text(n)}" for d, n in sorted(by_device.items()))),
                )
            )
        for model in self.models:
            rows.append(Child(f"model {model.expression}", ModelRow(model)))
        return rows

    def console_text(self) -> str:
        lines = [f"memory in {self.where}"]
        for row in self.devices:
            lines.append(f"  {row.device}: {DeviceRow(row).summary()}")
        lines.append(
            f"  reachable from the frame: {len(self.found)} tensors/variables, "
            f"{bytes_text(self.total)}"
        )
        width = max((len(f.expression) for f in self.largest), default=0)
        for f in self.largest:
            lines.append(
                f"    {f.expression:<{width}}  {bytes_text(f.nbytes):>10}  "
                f"{_share(f.nbytes, self.total):>6}  {f.device}  {_brief(f.value)}"
            )
        if len(self.found) > LISTED:
            lines.append(f"    … {Others(self.found[LISTED:], self.total).summary()}")
        for m in self.models:
            lines.append(f"  model {m.expression}: {ModelRow(m).summary()}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.console_text()


def _brief(value: Any) -> str:
    try:
        return dispatch.brief(value)
    except Exception:
        return type(value).__name__


def report(frame: FrameType) -> MemoryReport:
    found, models = reachable(frame)
    where = f"{frame.f_code.co_name}() line {frame.f_lineno}"
    try:
        devices = device_memory()
    except Exception as exc:
        devices = [DeviceMemory("devices", None, None, f"unknown: {exc!r}")]
    return MemoryReport(where, found, models, devices)


def model_bytes(model: Any) -> ModelRow | None:
    """A Keras model's parameter and optimizer bytes (None for anything else)."""
    if _counted(kind_of(model)) is not Memory.MODEL:
        return None
    walk = _Walk()
    _visit_owner(walk, "model", model, Memory.MODEL)
    return ModelRow(walk.models[0]) if walk.models else None


MEMORY = "__import__('tf_debug_repr').memory({})"


def model_memory(obj: Any, kind: Kind | None) -> list[Child]:
    """A ``memory`` row on Keras models (layers that hold an optimizer or sublayers)."""
    if _counted(kind) is not Memory.MODEL:
        return []
    if not hasattr(obj, "optimizer") and not _variables_of(obj, "layers"):
        return []
    row = model_bytes(obj)
    return [] if row is None else [Child("memory", row, call(MEMORY))]
