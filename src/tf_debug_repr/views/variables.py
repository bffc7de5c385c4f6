"""Variables, ``tf.Variable`` and Keras 3 ``keras.Variable`` alike: one naming rule, the
current value read harmlessly, and what a variable holds before it has a value.

A variable can be met before it has a value: Keras 3 creates the weights of sublayers
during its build pass (a shape-inference run of ``call()`` in a scratch graph) with
their initialisation deferred, and a ``tf.Variable`` created inside a ``tf.function``
is uninitialised during the first trace (reading it then gives an empty tensor).
Those say so instead of showing a wrong value; nothing here runs an initializer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core import formatting as fmt
from ..core.guards import building_graph, eager_expression, harmless
from ..core.tf_types import Kind
from ..core.view_model import Child, Note, call, lazy
from . import symbolic as symbolic_views
from . import tensors as tensor_views

BUILD_PASS_NOTE = Note(
    "Keras's build pass (shape inference in a scratch graph): this weight's value is real, "
    "read outside that graph; tensors computed in call() are symbolic here, their values "
    "come at a later stop in call()"
)


def label(var: Any) -> str:
    """``'sequential/dense/kernel'`` for a Keras weight, ``'scale'`` for
    ``tf.Variable(…, name='scale')``: the path where there is one, else the name
    without TF's ``:0`` output suffix."""
    path = getattr(var, "path", None)
    if isinstance(path, str) and path:
        return path
    name = str(getattr(var, "name", "") or "")
    return name[:-2] if name.endswith(":0") else name


def weight_name(weight: Any) -> str:
    """A weight's name as its layer shows it: ``kernel``. Keras 3 names it so; Keras 2 names
    it by its scope, ``dense/kernel:0``, of which the last part is the same name."""
    name = str(weight.name)
    name = name[:-2] if name.endswith(":0") else name
    return name.rpartition("/")[2] or name


def dtype_name(var: Any) -> str:
    dtype = var.dtype
    return str(getattr(dtype, "name", dtype))  # Keras 3 dtypes are plain strings


def read_value(var: Any) -> Any:
    """The current value as an eager tensor (read harmlessly), or None before it has one."""
    value, _ = state(var)
    return value


def read_values(variables: Sequence[Any]) -> list[Any]:
    """``read_value`` of each variable, in one observer scope: a plain TF resource variable
    (a Keras 3 weight's storage) read by the raw op its ``value()`` runs, without that
    method's Python layers (a name scope, colocation, the tape's bookkeeping: most of a
    read's cost, 320 times over a ResNet-50's weights); any other kind by ``read_value``.
    The read is the same op on the same buffer: a version's address compare still holds."""
    found: list[Any] = []
    with harmless():
        plain = _plain_resource_variable()
        from tensorflow.python.ops import gen_resource_variable_ops as ops

        for var in variables:
            inner = _raw_readable(var, plain)
            if inner is not None:
                found.append(ops.read_variable_op(inner.handle, inner.dtype))
            else:
                found.append(read_value(var))
    return found


def _raw_readable(var: Any, plain: Any) -> Any:
    """The plain TF resource variable (``plain``, its class) that ``var`` is or that a Keras
    3 variable holds, where TF's raw read op reads what its ``value()`` reads (no caching
    device); else None."""
    inner: Any = getattr(var, "_value", None) if not hasattr(var, "read_value") else var
    if (
        plain is not None
        and type(inner) is plain
        and getattr(inner, "_caching_device", None) is None
    ):
        return inner
    return None


def host_array(value: Any) -> Any:
    """``np.asarray(value)``, for a plain TF resource variable (or a Keras 3 variable
    holding one) by the raw read its ``value()`` runs, under ``harmless``: numpy's
    conversion goes through ``read_value``, whose ``Identity`` op is one more kernel per
    dtype, made at its first run (~2 ms of the first stop's Locals for an optimizer's
    ``iterations``, 0.5 ms for its learning rate). The same op on the same buffer: the same
    number. Anything else (a tensor, a number, a distributed variable) through numpy."""
    import numpy as np

    inner = _raw_readable(value, _plain_resource_variable())
    if inner is not None:
        from tensorflow.python.ops import gen_resource_variable_ops as ops

        with harmless():
            return ops.read_variable_op(inner.handle, inner.dtype).numpy()
    with harmless():
        return np.asarray(value)


def _plain_resource_variable() -> Any:
    try:
        from tensorflow.python.ops.resource_variable_ops import ResourceVariable
    except ImportError:  # a TF without that module: every read takes ``read_value``
        return None
    return ResourceVariable


def _uninitialized_tf_variable(var: Any) -> bool:
    # Only variables of this family can be read before initialisation (tf.function's
    # lifted variables); asking others would cost an op per variable per stop.
    return any(c.__name__ == "UninitializedVariable" for c in type(var).__mro__)


def state(var: Any) -> tuple[Any, str]:
    """(current value, "") or (None, why there is none yet). Reading under ``harmless``
    neither records on an active tape nor adds an op to a graph being traced."""
    with harmless():
        inner = var
        if hasattr(var, "_value") and not hasattr(var, "read_value"):  # a Keras variable
            inner = var._value
            if inner is None:
                initializer = getattr(var, "_initializer", None)
                return None, (
                    "no value yet: created during Keras's build pass (shape inference in a "
                    "scratch graph), its initializer "
                    f"({type(initializer).__name__ if initializer is not None else '?'}) runs "
                    "when that pass ends; values come at a later stop"
                )
        if _uninitialized_tf_variable(inner) and not bool(inner.is_initialized()):
            return None, (
                "not initialized yet: created while a tf.function is traced; TF assigns its "
                "initial value when the traced function first runs (a later stop shows it)"
            )
        return (inner.value() if hasattr(inner, "read_value") else inner), ""


# The summary line's words for each reason (the note child has the whole sentence).
_SHORT = {
    "no value yet": "no value yet (Keras build pass: values come at a later stop)",
    "not initialized yet": "not initialized yet (tf.function's first trace: see its note)",
}


def _trainable(var: Any) -> str:
    # Not "frozen": a batch-norm moving statistic is not trainable yet changes every step.
    return "trainable" if getattr(var, "trainable", False) else "non-trainable"


def tail(var: Any) -> list[fmt.Part]:
    """What a summary line ends with: ``Variable 'dense/kernel'``, and ``non-trainable``
    where it is (trainable is what a variable usually is). Last: the pane's row name
    usually tells the variable already, and at 300 px the figures come first."""
    flag = "" if getattr(var, "trainable", False) else f" {_trainable(var)}"
    return [fmt.Part(f"Variable {label(var)!r}{flag}", shrink=True)]


def variable_summary(var: Any, kind: Kind, marks: Sequence[str] = ()) -> str:
    """``float32[4, 8] x∈[…] μ=… σ=… n=32 CPU:0 ∇‖g‖=…@… Variable 'dense/kernel'``:
    the value's summary, ``marks`` from other features (kept whole), the name last."""
    value, reason = state(var)
    end = [fmt.Part(m[:80]) for m in marks if m] + tail(var)
    if value is None:
        return fmt.render(
            [
                fmt.Part(f"{dtype_name(var)}{fmt.shape_text(var.shape)}"),
                fmt.Part(_SHORT[reason.split(":")[0]], fmt.KEEP),
                *end,
            ]
        )
    return tensor_views.summary(value, tail=end)


def variable_children(var: Any, kind: Kind) -> list[Child]:
    """Elements, numpy, facts and statistics of the current value (expressions on the
    variable itself: ``w[0]``, ``w.numpy()``), then its name or path, value, trainable."""
    value, reason = state(var)
    keras = kind is Kind.KERAS_VARIABLE
    if value is None:
        children = [
            Child("note", Note(reason)),
            Child("shape", Note(str(tuple(var.shape))), call("tuple({}.shape)")),
            _dtype_child(var, keras),
        ]
        if keras:
            children.append(
                lazy("initializer", lambda: Note(repr(var._initializer)), "._initializer")
            )
    else:
        children = []
        build_pass = symbolic_views.in_keras_build_pass()
        if build_pass:
            children.append(Child("note", BUILD_PASS_NOTE))
        # In any graph being built (the build pass, a tf.function trace), ``w[0]`` would be
        # an op of that graph: the expressions run outside it.
        outside = build_pass or building_graph()
        for child in tensor_views.tensor_children(value):
            if outside and child.name not in ("shape", "dtype", "device"):
                child = outside_graph(child)
            if child.name == "dtype":
                child = _dtype_child(var, keras)
            elif child.name == "device" and keras:
                # keras.Variable has no .device; the tf.Variable it wraps has.
                child = Child("device", child.value, ".value.device")
            children.append(child)
    if keras:
        children.append(Child("path", Note(str(var.path)), ".path"))
        if value is not None:
            children.append(lazy("value", lambda: var._value, ".value"))
    else:
        children.append(Child("name", Note(str(var.name)), ".name"))
        if value is not None:
            read = Child("value", value, call("{}.value()"))
            children.append(outside_graph(read) if outside else read)
    children.append(Child("trainable", bool(var.trainable), ".trainable"))
    return children


def outside_graph(child: Child) -> Child:
    """The child with an expression that evaluates outside any graph being built (Keras's
    scratch graph, a ``tf.function`` trace):
    ``eagerly(lambda v: v[0], w)`` (the lambda takes the parent as an argument: a lambda
    in evaluated code cannot see the frame's locals)."""
    inner = child.expression
    if inner is None:
        return child

    def expression(parent: str) -> str:
        if inner is tensor_views._same:  # stats, bad values: their figures build on it
            body = "__import__('tensorflow').convert_to_tensor(v)"
        else:
            body = inner("v") if callable(inner) else "v" + inner
        return eager_expression(body, parent)

    return Child(child.name, child.value, expression, child.compute)


def _dtype_child(var: Any, keras: bool) -> Child:
    # A Keras 3 dtype is already its name (a str); a tf.DType has .name.
    return Child("dtype", Note(dtype_name(var)), ".dtype" if keras else call("{}.dtype.name"))


def brief(var: Any) -> str:
    """``float32[3] Variable 'w'`` inside a list: what it holds first, as in its summary; a
    scalar by its value (``0.01 float32 Variable 'lr'``, as stock's repr shows it)."""
    head = f"{dtype_name(var)}{fmt.shape_text(var.shape)}"
    if var.shape.rank == 0:
        value, _ = state(var)
        if value is not None and tensor_views.has_values(value):
            head = tensor_views.eager_brief(value)
    return f"{head} Variable {label(var)!r}"
