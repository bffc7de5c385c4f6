"""Tensors without a value: graph tensors met while ``tf.function`` traces, and Keras
symbolic tensors met while a functional model is built.

Only static facts are shown (name, op, shape, dtype, graph). Nothing here creates an
op: reading ``.op``, ``.graph`` or ``.shape`` only looks at what the graph has.
"""

from __future__ import annotations

import sys
from typing import Any

from ..core import formatting as fmt
from ..core import notebook_cells
from ..core.view_model import Child, Note, call, lazy


def tracing_hint() -> Note:
    return Note(
        "no value while tracing: put "
        + notebook_cells.setting("TF_DEBUG_REPR_EAGER=1")
        + " (or call tf.config.run_functions_eagerly(True)) to run functions as plain Python"
    )


KERAS_HINT = Note(
    "no value while the model is being built: inspect the layer's weights, or call the "
    "model on data and stop there to see real tensors"
)


BUILD_PASS_HINT = Note(
    "no value: Keras's build pass runs call() once on symbolic inputs (in a scratch graph) "
    "to infer shapes and create weights; continue to the next stop in call() for values"
)
EAGER_ALREADY_HINT = Note(
    "no value: this graph is built even though functions run eagerly (a tf.data function, "
    "or a graph the code builds itself); stop where its results are used"
)
_SCRATCH = "scratch_graph"  # the name Keras 3 gives its shape-inference graphs


def in_keras_build_pass(tensor: Any = None) -> bool:
    """Is the program inside Keras 3's build pass (``compute_output_spec``: a scratch
    FuncGraph under a SymbolicScope)? Looked up in ``sys.modules``: never imports Keras."""
    graph_name = str(getattr(getattr(tensor, "graph", None), "name", "") or "")
    if graph_name.startswith(_SCRATCH):
        return True
    scope = sys.modules.get("keras.src.backend.common.symbolic_scope")
    try:
        return bool(scope is not None and scope.in_symbolic_scope())
    except Exception:
        return False


def _functions_run_eagerly() -> bool:
    tf = sys.modules.get("tensorflow")
    try:
        return bool(tf is not None and tf.config.functions_run_eagerly())
    except Exception:
        return False


def hint_for(tensor: Any) -> Note:
    """Why this tensor has no value, and what helps: the eager switch only where it would."""
    if in_keras_build_pass(tensor):
        return BUILD_PASS_HINT
    if _functions_run_eagerly():
        return EAGER_ALREADY_HINT
    return tracing_hint()


def _graph_name(tensor: Any) -> str:
    graph = getattr(tensor, "graph", None)
    name = getattr(graph, "name", None)
    return f"{type(graph).__name__} {name!r}" if name else type(graph).__name__


def symbolic_summary(tensor: Any) -> str:
    op = getattr(tensor, "op", None)
    op_type = getattr(op, "type", "?")
    why = (
        "Keras build pass: values at a later stop"
        if in_keras_build_pass(tensor)
        else ("no value while tracing")
    )
    return fmt.render(
        [
            fmt.Part(f"symbolic {tensor.dtype.name}{fmt.shape_text(tensor.shape)}"),
            fmt.Part(repr(tensor.name), shrink=True),
            fmt.Part(f"← {op_type} in {_graph_name(tensor)}", shrink=True),
            fmt.Part(f"({why})"),
        ]
    )


def symbolic_children(tensor: Any) -> list[Child]:
    return [
        Child("hint", hint_for(tensor)),
        Child("name", Note(tensor.name), ".name"),
        lazy("op", lambda: Note(tensor.op.type), call("{}.op.type")),
        shape_row(tensor.shape),
        Child("dtype", Note(tensor.dtype.name), call("{}.dtype.name")),
        lazy("graph", lambda: Note(_graph_name(tensor)), None),
        lazy(
            "inputs",
            lambda: [t.name for t in tensor.op.inputs],
            call("[t.name for t in {}.op.inputs]"),
        ),
        # Unplaced, ``.device`` is '': the note says so (and is its own expression).
        lazy("device", lambda: Note(tensor.device or "(not placed yet)"), ".device")
        if tensor.device
        else Child("device", Note("(not placed yet)")),
    ]


def shape_row(shape: Any) -> Child:
    """``[None, 3]``, whose expression ``.shape.as_list()`` gives that list; ``[?]`` for an
    unknown rank, where ``as_list()`` raises: that line is its own expression."""
    text = Note(fmt.shape_text(shape))
    known = getattr(shape, "rank", None) is not None
    return Child("shape", text, call("{}.shape.as_list()") if known else None)


def _keras_origin(tensor: Any) -> Any:
    history = getattr(tensor, "_keras_history", None)
    return getattr(history, "operation", None)


def keras_tensor_summary(tensor: Any) -> str:
    origin = _keras_origin(tensor)
    source = (
        f" from {type(origin).__name__} {getattr(origin, 'name', '')!r}"
        if origin is not None
        else ""
    )
    dtype = getattr(tensor, "dtype", "?")
    dtype = getattr(dtype, "name", dtype)
    return fmt.clip(
        f"KerasTensor {dtype}{fmt.shape_text(tensor.shape)} {getattr(tensor, 'name', '')!r}{source} "
        "(symbolic: no value while building the model)"
    )


def keras_tensor_children(tensor: Any) -> list[Child]:
    dtype = getattr(tensor, "dtype", "?")
    children = [
        Child("hint", KERAS_HINT),
        Child("name", Note(str(getattr(tensor, "name", ""))), ".name"),
        Child("shape", Note(str(tuple(tensor.shape))), call("tuple({}.shape)")),
        Child("dtype", Note(str(getattr(dtype, "name", dtype))), ".dtype"),
    ]
    if getattr(tensor, "sparse", False):
        children.append(Child("sparse", True, ".sparse"))
    origin = _keras_origin(tensor)
    if origin is not None:
        children.append(Child("layer", origin, "._keras_history.operation"))
    return children


def brief(tensor: Any) -> str:
    """``symbolic float32[4]``: no value, so it must not read like a real tensor beside it."""
    return f"symbolic {tensor.dtype.name}{fmt.shape_text(tensor.shape)}"


def keras_tensor_brief(tensor: Any) -> str:
    dtype = getattr(tensor.dtype, "name", tensor.dtype)
    return f"symbolic {dtype}{fmt.shape_text(tensor.shape)}"
