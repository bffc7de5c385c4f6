"""``TF_DEBUG_REPR_CHECK_NUMERICS=1``: stop where the first NaN is born (``nan,inf``: or ±Inf).

±Inf is often made on purpose (attention masks, ``log(0)`` of a padded probability), so by
default only NaN stops, and ±Inf that a division makes from finite inputs (``h / scale`` with
``scale`` 0, ``rsqrt(0)``): never deliberate, and its NaN comes lines later (``inf - inf``,
``0 * inf``, a softmax), where the stop would show the wrong line and the wrong values.
``enable(stop_on_inf=True)`` stops at every ±Inf.

An op callback (TF's ``op_callbacks``, the mechanism behind
``tf.debugging.enable_check_numerics``) checks every floating output:

- eagerly, right after the op ran: one ``CheckNumericsV2`` op per output, on the
  output's device (nothing copied); only an output it finds not finite is asked whether it
  holds a NaN (when ±Inf does not stop). Then the callback raises
  ``NumericsError`` (an ``InvalidArgumentError``) from inside the op's Python call, so
  the exception goes up through the user's line that ran the op. VS Code's default
  exception breakpoint ("Uncaught Exceptions") stops there, in the user's frame (the
  deepest frame of the user's code, with "justMyCode"), with its locals inspectable. The
  message says which op, on which device, how many NaN/+Inf/-Inf of how many and where
  the first is, summarises the op's inputs, and gives the expression that reaches the
  exception at any stop (``tf_debug_repr.numerics_stop()``) and so its ``.inputs`` and
  ``.output``.
- inside ``tf.function`` (a graph being built): TF's own instrumentation
  (``CheckNumericsCallback``): a check op after each floating output whose message
  names the op and the Python lines that created it; it raises when the graph runs,
  at the user's call of the function.

Outputs are returned unchanged: with no NaN/Inf, results are bit-identical. The
callback is installed on the thread that imports TensorFlow (TF's op callbacks are per
thread), once, when the switch is set; without it this module is never imported.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

from ..core import debugger, notebook_cells
from ..core import formatting as fmt

# Outputs that are NaN by design (empty batch statistics), as TF's own check skips them.
_IGNORED = {
    (op, slot)
    for op in (b"FusedBatchNorm", b"FusedBatchNormV2", b"FusedBatchNormV3")
    for slot in (1, 2, 3, 4, 5)
}
_INPUTS_SHOWN = 8
# Ops that divide: ±Inf from finite inputs is a division by zero (or an overflow of one),
# never an infinity made on purpose; it stops under ``1`` as NaN does.
DIVISIONS = frozenset(
    {"RealDiv", "Div", "FloorDiv", "Reciprocal", "Inv", "Rsqrt", "Xdivy", "SqrtGrad"}
)

_installed: list = []  # the callbacks installed (one per thread that asked)
_error_class: type | None = None
# The latest NumericsError, held weakly: it lives as long as the program's exception does
# (the stop, its traceback), and looking keeps no tensor alive after it.
_last: Callable[[], Any] = lambda: None  # noqa: E731

# The facts of an error made without them (re-raised by code that copies TF's errors).
_NO_FACTS: dict = {
    "op_type": "?",
    "op_name": None,
    "device": "?",
    "slot": -1,
    "nan": -1,
    "pos_inf": -1,
    "neg_inf": -1,
    "first_bad": None,
    "inputs": [],
    "output": None,
}

# What the message tells users to type (public API only: never an internal module path).
STOP_EXPRESSION = "__import__('tf_debug_repr').numerics_stop()"


def last_error() -> Any:
    """The latest ``NumericsError`` raised, while it is alive; else None."""
    return _last()


def _remember(error: BaseException) -> None:
    global _last
    try:
        _last = weakref.ref(error)
    except TypeError:  # not weakly referable: keep it (one error's tensors at most)
        _last = lambda: error  # noqa: E731


def error_class() -> type:
    """``NumericsError``: a ``tf.errors.InvalidArgumentError`` (code that catches TF's
    errors, or expects ``enable_check_numerics``'s, keeps working) with the facts."""
    global _error_class
    if _error_class is None:
        import tensorflow as tf

        class NumericsError(tf.errors.InvalidArgumentError):
            """NaN/Inf first produced by one op (raised under TF_DEBUG_REPR_CHECK_NUMERICS)."""

            def __init__(self, *args: Any) -> None:
                # (message, facts) from the check; (node_def, op, message, error_code) where
                # code re-raises it as TF's errors are (Keras adds a layer's arguments to
                # the message): then the facts are the original's, still on its way up.
                if len(args) == 2 and isinstance(args[1], dict):
                    message, facts = args
                    super().__init__(None, None, message)
                else:
                    message = str(args[2]) if len(args) > 2 else ""
                    previous = last_error()
                    known = previous is not None and previous.message in message
                    facts = previous.facts if known else _NO_FACTS
                    if known:  # the check's sentence first, the re-raiser's words after
                        message = _check_first(previous.message, message)
                    super().__init__(*args[:2], message)
                self.facts = facts
                self.op_type: str = facts["op_type"]
                self.op_name: str | None = facts["op_name"]
                self.device: str = facts["device"]
                self.slot: int = facts["slot"]
                self.nan: int = facts["nan"]
                self.pos_inf: int = facts["pos_inf"]
                self.neg_inf: int = facts["neg_inf"]
                self.first_bad: tuple[int, ...] | None = facts["first_bad"]
                self.inputs: list = facts["inputs"]
                self.output: Any = facts["output"]

            def __reduce__(self):  # picklable like TF's own errors
                return (Exception, (self.message,))

            def __repr__(self) -> str:  # TF's errors repr as "NumericsError()"
                first = (self.message or "").split("\n", 1)[0]
                return f"NumericsError({first!r})"

        NumericsError.__module__ = __name__
        NumericsError.__qualname__ = "NumericsError"
        _error_class = NumericsError
    return _error_class


def _check_first(check: str, message: str) -> str:
    """A message that holds the check's (Keras's ``Exception encountered when calling
    Standardize.call().`` before it, bold): the check's first, then what the re-raiser
    added, each of its lines indented."""
    import re

    rest = message.replace(check, "")
    rest = re.sub(r"\x1b\[[0-9;]*m", "", rest)
    added = [line.strip() for line in rest.splitlines() if line.strip()]
    if not added:
        return check
    return "\n".join(
        [check, "  (re-raised by the code that called it, which added:)"]
        + [f"    {line}" for line in added]
    )


def _bad_figures(output: Any) -> tuple[int, int, int, tuple[int, ...] | None]:
    """(NaN, +Inf, -Inf, index of the first bad element), reduced on the output's device."""
    import tensorflow as tf

    from ..core.guards import harmless

    with harmless(output.device):
        nan = tf.math.is_nan(output)
        inf = tf.math.is_inf(output)
        counts = tf.stack(
            [
                tf.reduce_sum(tf.cast(nan, tf.int64)),
                tf.reduce_sum(tf.cast(tf.logical_and(inf, output > 0), tf.int64)),
                tf.reduce_sum(tf.cast(tf.logical_and(inf, output < 0), tf.int64)),
            ]
        ).numpy()
        first = None
        bad = tf.logical_not(tf.math.is_finite(output))
        if output.shape.rank:
            where = tf.where(tf.reshape(bad, [-1]))
            if int(tf.size(where)):
                flat = int(where[0, 0].numpy())
                import numpy as np

                first = tuple(int(i) for i in np.unravel_index(flat, tuple(output.shape)))
        else:
            first = ()
    return int(counts[0]), int(counts[1]), int(counts[2]), first


def _input_line(tensor: Any) -> str:
    from ..views import dispatch

    try:
        return dispatch.summary(tensor)
    except Exception as exc:
        return f"{type(tensor).__name__} <error: {exc!r}>"


def report(
    op_type: str,
    op_name: str | None,
    slot: int,
    outputs: list,
    inputs: list,
    stop_on_inf: bool = False,
    division: bool = False,
) -> tuple[str, dict]:
    """The message and facts about the first bad output of an eagerly run op (``division``:
    ±Inf that a division made from finite inputs)."""
    output = outputs[slot]
    nan, pos_inf, neg_inf, first = _bad_figures(output)
    device = fmt.device_text(getattr(output, "device", "")) or "?"
    size = int(output.shape.num_elements() or 0)
    counts = ", ".join(
        f"{label}×{n}" for label, n in (("NaN", nan), ("+Inf", pos_inf), ("-Inf", neg_inf)) if n
    )
    where = "" if first is None else " at [" + ", ".join(str(i) for i in first) + "]"
    name = f" ({op_name})" if op_name else ""
    lines = [
        f"NaN/Inf first produced by op {op_type}{name} on {device}: "
        f"output {slot} of {len(outputs)}, {output.dtype.name}{fmt.shape_text(output.shape)} "
        f"has {counts} of {fmt.count(size)}, first{where}",
    ]
    forward = forward_of_gradient()
    if forward is not None and isinstance(forward[1], tuple):
        path, line, function = forward[1]
        import linecache

        forward_source = linecache.getline(path, line).strip()
        where_ = notebook_cells.site_text(path, line, full_path=True)
        lines.insert(
            0,
            f"NaN/Inf made in the gradient of {forward[0]} at {where_} in {function}: "
            f"{forward_source}",
        )
        lines[1] = "  by " + lines[1]
    if division:
        lines.append(DIVISION_LINE)
    site, source = running_site()
    if site:  # the stop may be higher up: where the exception leaves the user's code
        lines.append(f"  ran at {site}: {source}")
    replica = replica_text()
    if replica:
        lines.append(f"  {replica}")
    lines.append(f"  inputs ({len(inputs)}):")
    for i, tensor in enumerate(inputs[:_INPUTS_SHOWN]):
        lines.append(f"    {i}: {_input_line(tensor)}")
    if len(inputs) > _INPUTS_SHOWN:
        lines.append(f"    … {len(inputs) - _INPUTS_SHOWN} more")
    lines.append(f"  output {slot}: {_input_line(output)}")
    lines += [*tensors_lines(), mode_line(stop_on_inf)]
    facts = {
        "op_type": op_type,
        "op_name": op_name,
        "device": device,
        "slot": slot,
        "nan": nan,
        "pos_inf": pos_inf,
        "neg_inf": neg_inf,
        "first_bad": first,
        "inputs": list(inputs),
        "output": output,
    }
    return "\n".join(lines), facts


def replica_text() -> str:
    """``in replica 1 of 2 (MirroredStrategy)`` while a strategy of several replicas runs
    a replica's step on this thread; "" otherwise (or when it cannot tell)."""
    try:
        import tensorflow as tf

        if not tf.distribute.has_strategy():
            return ""
        context = tf.distribute.get_replica_context()
        if context is None or context.num_replicas_in_sync <= 1:
            return ""
        replica = int(context.replica_id_in_sync_group)
        strategy = type(tf.distribute.get_strategy()).__name__
        return f"in replica {replica} of {context.num_replicas_in_sync} ({strategy})"
    except Exception:
        return ""


def tensors_lines() -> list[str]:
    """Where the op's tensors are, as expressions to paste into the Debug Console or Watch."""
    return [
        "  the op's tensors, in the Debug Console or Watch:",
        f"    {STOP_EXPRESSION}.inputs",
        f"    {STOP_EXPRESSION}.output",
    ]


DIVISION_LINE = (
    "  a division by zero: Inf made from finite inputs stops here (the NaN it leads to, "
    "inf - inf or 0 * inf, would come on a later line)"
)


def mode_line(stop_on_inf: bool) -> str:
    """What stops, in plain ASCII (TF's ``Assert`` escapes anything else)."""
    if stop_on_inf:
        return "  (TF_DEBUG_REPR_CHECK_NUMERICS=nan,inf: NaN, Inf and -Inf stop)"
    return (
        "  (TF_DEBUG_REPR_CHECK_NUMERICS=1: NaN and a division's Inf stop, other Inf and -Inf "
        "pass; =nan,inf stops there too)"
    )


class NumericsCallback:
    """The op callback: eager outputs checked here, graphs instrumented by TF's callback."""

    def __init__(self, stop_on_inf: bool = False) -> None:
        from tensorflow.python.debug.lib import check_numerics_callback, op_callbacks_common

        self.stop_on_inf = stop_on_inf

        self._graph = check_numerics_callback.CheckNumericsCallback(30, 80)
        self._skip = set(op_callbacks_common.OP_CALLBACK_SKIP_OPS) | set(
            check_numerics_callback.SAFE_OPS
        )

    def __call__(
        self,
        op_type: str,
        inputs: Any,
        attrs: Any,
        outputs: Any,
        op_name: str | None = None,
        graph: Any = None,
    ) -> Any:
        op_bytes = op_type.encode() if isinstance(op_type, str) else op_type
        if graph is not None:
            if not _graph_v2():
                return self._graph.callback(op_type, inputs, attrs, outputs, op_name, graph)
            try:
                _met_in_trace(op_name, inputs, graph)  # a variable's value before the call
            except Exception as exc:
                _warn_once(f"re-run: a variable was not read: {exc!r}")
            if op_bytes not in self._skip:
                try:
                    _instrument(
                        op_bytes.decode(), op_name, outputs, inputs, graph, self.stop_on_inf
                    )
                except Exception as exc:  # never break the user's tracing
                    _warn_once(f"a check was not added to a traced {op_type}: {exc!r}")
            return None  # outputs unchanged
        if op_bytes in self._skip or op_bytes in _OWN_OPS or not outputs:
            return None
        if getattr(_local, "busy", False):
            return None  # the check's own ops (the report's figures, its summaries)
        if _taping():
            _record_site(op_bytes, outputs, inputs)
        _local.busy = True
        try:
            error = self._eager(op_bytes.decode(), op_name, inputs, outputs)
        finally:
            _local.busy = False
        if error is not None:
            _remember(error)
            raise error
        return None

    def _eager(self, op_type: str, op_name: str | None, inputs: Any, outputs: Any) -> Any:
        """The error for the first bad output of an eagerly run op, or None."""
        for slot, output in enumerate(outputs):
            if not _checked(output) or (op_type.encode(), slot) in _IGNORED:
                continue
            health = _health(output)
            if health is None:
                continue
            division = False
            if not self.stop_on_inf and not health[0]:
                # ±Inf only: made on purpose as often as not, unless a division made it
                # from finite inputs (x / 0): its NaN would come later, on another line
                division = op_type in DIVISIONS and all(
                    _finite(tensor) for tensor in inputs or [] if _checked(tensor)
                )
                if not division:
                    continue
            if _is_function(op_type):
                return None  # a tf.function's call: its traced checks say where (_call)
            if observing():
                # An op the debugger runs while the program is stopped (the plugin's views,
                # gradient capture's sync, an expression in the Debug Console): looking
                # never raises, as under stock debugpy. Asked only of a bad output.
                return None
            try:
                message, facts = report(
                    op_type,
                    op_name,
                    slot,
                    list(outputs),
                    list(inputs or []),
                    self.stop_on_inf,
                    division,
                )
            except Exception as exc:  # the facts failed: the stop still comes, said plainly
                message = f"NaN/Inf first produced by op {op_type} (output {slot}); {exc!r}"
                facts = _bare_facts(op_type, op_name, slot, outputs, inputs)
            return error_class()(message, facts)
        return None


# Where eager ops recorded on a tape ran, for a NaN made later in their gradient (the
# tape keeps no Python line): key -> (weak reference to the tensor, (file, line, function)).
_sites: dict[Any, tuple[Any, tuple[str, int, str]]] = {}
_SITES_KEPT = 1 << 16
_library_files: dict[str, bool] = {}


def _taping() -> bool:
    from tensorflow.python import pywrap_tfe

    return not pywrap_tfe.TFE_Py_TapeSetIsEmpty()


def _user_site() -> tuple[str, int, str] | None:
    import sys

    frame: Any = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        library = _library_files.get(path)
        if library is None:
            library = _library_files[path] = _is_library(path)
        if not library:
            return path, frame.f_lineno, frame.f_code.co_name
        frame = frame.f_back
    return None


def _record_site(op_type: bytes, outputs: Any, inputs: Any) -> None:
    """While a tape records: the user's line that ran this eager op, under its first
    output and under (its type, its first input) (the tape may keep neither output)."""
    try:
        site = _user_site()
        if site is None:
            return
        if len(_sites) > _SITES_KEPT:
            for key in list(_sites)[: _SITES_KEPT // 2]:
                del _sites[key]
        keys: list[tuple[Any, Any]] = []
        if outputs:
            keys.append((id(outputs[0]), outputs[0]))
        if inputs:
            keys.append(((op_type.decode(), id(inputs[0])), inputs[0]))
        for key, tensor in keys:
            _sites[key] = (weakref.ref(tensor), site)
    except Exception:  # never in the program's way (a tensor not weakly referable)
        pass


def _forward_site(op_type: str, outputs: list, inputs: list) -> tuple[str, int, str] | None:
    keys = [(id(t), t) for t in outputs[:1]] + [((op_type, id(t)), t) for t in inputs[:1]]
    for key, tensor in keys:
        found = _sites.get(key)
        if found is not None and found[0]() is tensor:
            return found[1]
    return None


def _is_function(op_type: str) -> bool:
    """Is this "op" a call of a traced function (``__inference_step_123``)?"""
    if op_type.startswith("__inference_"):
        return True
    try:
        from tensorflow.python.eager import context

        return bool(context.context().has_function(op_type))
    except Exception:
        return False


def observing() -> bool:
    """Is this op run by the debugger rather than by the program: inside the plugin's
    observer guard (``core.guards.harmless``), or on a thread that pydevd holds suspended
    (it answers requests there: variables, evaluate)?"""
    import sys

    from ..core import guards

    if guards.observing():
        return True
    frame: Any = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name in _SUSPEND_FUNCTIONS and "pydevd" in code.co_filename:
            return True
        frame = frame.f_back
    return False


# pydevd's functions that hold a thread suspended while it serves the client's requests.
_SUSPEND_FUNCTIONS = frozenset({"do_wait_suspend", "_do_wait_suspend"})
# The check's own ops: never checked.
_OWN_OPS = frozenset({b"CheckNumericsV2", b"DebugNumericSummaryV2"})
_local = threading.local()  # .busy: the check is running ops of its own on this thread


# The dtypes CheckNumericsV2 has kernels for; float8 and the like are not checked.
_CHECKED_DTYPES = ("float16", "bfloat16", "float32", "float64")
_warned: set[str] = set()


def _checked(output: Any) -> bool:
    return getattr(output.dtype, "name", "") in _CHECKED_DTYPES


def _warn_once(message: str) -> None:
    import sys

    kind = message.split(":", 1)[0]
    if kind not in _warned:
        _warned.add(kind)
        sys.stderr.write(f"tf-debug-repr: {message}\n")


def _bare_facts(op_type: str, op_name: Any, slot: int, outputs: Any, inputs: Any) -> dict:
    return {
        "op_type": op_type,
        "op_name": op_name,
        "device": fmt.device_text(getattr(outputs[slot], "device", "")) or "?",
        "slot": slot,
        "nan": -1,
        "pos_inf": -1,
        "neg_inf": -1,
        "first_bad": None,
        "inputs": list(inputs or []),
        "output": outputs[slot],
    }


def _graph_v2() -> bool:
    from tensorflow.python.framework import ops

    return ops.executing_eagerly_outside_functions()


def _is_library(path: str) -> bool:
    import os

    from tensorflow.python.debug.lib import source_utils

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the package
    return (
        source_utils.guess_is_tensorflow_py_library(path)
        or path.startswith(here)
        or path.startswith(_STDLIB)  # threading.py: a strategy's replica threads
        or f"{os.sep}keras{os.sep}" in path
        or f"{os.sep}site-packages{os.sep}" in path
        or path.startswith("<")
    )


_STDLIB = __import__("sysconfig").get_paths()["stdlib"] + __import__("os").sep


def creation_site(traceback: Any) -> tuple[str, str]:
    """(``file:line in function``, the source line) of the innermost frame of the user's
    own code in an op's creation stack; ("", "") when there is none."""
    for frame in reversed(list(traceback or [])):
        path, line, function, source = tuple(frame)[:4]
        if not _is_library(path):
            if not source:
                import linecache

                source = linecache.getline(path, line)
            where = notebook_cells.site_text(path, line, full_path=True)
            return f"{where} in {function}", (source or "").strip()
    return "", ""


def running_site() -> tuple[str, str]:
    """(``file:line in function``, the source line) of the innermost frame of the user's
    own code on the stack of the op running now; ("", "") when there is none."""
    import linecache
    import sys

    frame = sys._getframe(1)
    probe: Any = frame
    while probe is not None and _is_library(probe.f_code.co_filename):
        probe = probe.f_back
    if probe is None:
        return "", ""
    path, line = probe.f_code.co_filename, probe.f_lineno
    source = linecache.getline(path, line).strip()
    return f"{path}:{line} in {probe.f_code.co_name}", source


def forward_of_gradient() -> tuple[str, Any] | None:
    """While a gradient function runs (``tape.gradient``, eager or traced): the forward
    op's type and, in a traced function, the forward op itself (None eagerly), from TF's
    ``_gradient_function`` frame (the tape keeps the forward outputs only where the
    gradient needs them; the op is found from its inputs then)."""
    import sys

    frame: Any = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_gradient_function" and code.co_filename.endswith("backprop.py"):
            local = frame.f_locals
            op_type = str(local.get("op_name") or "?")
            for output in local.get("outputs") or ():
                if output is not None and hasattr(output, "op") and hasattr(output, "graph"):
                    return op_type, output.op
            inputs = [t for t in local.get("inputs") or () if t is not None]
            if inputs and hasattr(inputs[0], "consumers"):
                for op in inputs[0].consumers():
                    if op.type == op_type and list(op.inputs) == inputs:
                        return op_type, op
                return op_type, None
            # eagerly: where the forward op ran, as recorded when it ran under a tape
            outputs = [t for t in local.get("outputs") or () if t is not None]
            return op_type, _forward_site(op_type, outputs, inputs)
        frame = frame.f_back
    return None


def graph_message(
    op_type: str, op_name: str | None, slot: int, outputs: list, inputs: list, graph: Any
) -> str:
    """The message of a check in a traced function, first the sentence that says where:
    the user's line that created the op, or for an op of a gradient the forward line
    whose gradient it computes (as PyTorch's anomaly mode names the forward op)."""
    output = outputs[slot]
    site, source = creation_site(getattr(output.op, "traceback", None))
    name = f" ({op_name})" if op_name and op_name != op_type else ""
    function = getattr(graph, "name", "?")
    head = f"NaN/Inf produced by op {op_type}{name} in tf.function graph {function}"
    if site:
        head += f", created at {site}: {source}"
    forward = forward_of_gradient()
    lines = []
    if forward is not None and forward[1] is not None:
        forward_site, forward_source = creation_site(getattr(forward[1], "traceback", None))
        if forward_site:
            lines.append(
                f"NaN/Inf made in the gradient of {forward[0]} at {forward_site}: {forward_source}"
            )
            lines.append(f"  by {head}")
    if not lines:
        lines.append(head)
    lines.append(
        f"  output {slot} of {len(outputs)}: {output.dtype.name}{fmt.shape_text(output.shape)}"
    )
    lines.append(f"  inputs ({len(inputs)}):")
    for i, tensor in enumerate(list(inputs)[:_INPUTS_SHOWN]):
        producer = getattr(getattr(tensor, "op", None), "type", "?")
        lines.append(
            f"    {i}: {getattr(tensor, 'name', '?')} {tensor.dtype.name}"
            f"{fmt.shape_text(tensor.shape)} (from op {producer})"
        )
    lines.append(
        "  (to stop at that line with values: put a breakpoint in the function; while one "
        "lies there it runs eagerly)"
    )
    return "\n".join(lines)


def _instrument(
    op_type: str,
    op_name: str | None,
    outputs: Any,
    inputs: Any,
    graph: Any,
    stop_on_inf: bool = False,
) -> None:
    """A check after each floating output of an op being traced, run by tf.function's
    automatic control dependencies; the outputs stay the user's. A check that finds a
    NaN (or ±Inf where it stops) writes its number, the counts and the first index into
    a variable of the check's (``_Flags``) and raises nothing: the call ends as it would
    without the check, and ``Function._call`` (wrapped by ``enable``) reads the variable
    when it returns and raises ``NumericsError`` there, its message made here, now. No
    op fails, so TF prints nothing (a failing ``Assert`` made TF log ``local_rendezvous …
    aborting`` on stderr), and the same ops compile with XLA (``Assert`` and
    ``CheckNumerics`` do nothing there)."""
    outputs = list(outputs or [])
    if op_name and (op_name.startswith(_OWN_SCOPE) or f"/{_OWN_SCOPE}" in op_name):
        return  # gradient capture's own ops
    for slot, output in enumerate(outputs):
        if not _checked(output) or (op_type.encode(), slot) in _IGNORED:
            continue
        message = graph_message(op_type, op_name, slot, outputs, list(inputs or []), graph)
        owner = _inner_owner(graph)
        with _inner_lock:
            number = len(_graph_checks) + 1
            _graph_checks[number] = (
                op_type,
                op_name,
                slot,
                [*message.split("\n"), mode_line(stop_on_inf)],
            )
            if owner is not None:
                _check_inner[number] = owner
        divided = [t for t in inputs or [] if _checked(t)] if op_type in DIVISIONS else None
        _check_with_counts(output, number, stop_on_inf, divided)


_OWN_SCOPE = "tf_debug_repr/"  # gradient capture's ops in a traced step (compiled.py)
# check number -> the lines of its message, made when the op was traced
_graph_checks: dict[int, tuple[str, str | None, int, list[str]]] = {}
# check number -> (weakly) the tf.function traced into an outer one's graph that holds it
_check_inner: dict[int, Any] = {}
# The tf.functions being traced into an outer one's graph, now, on any thread: (weakly) the
# function, the graph its call is traced into, the thread tracing it. Not a stack per thread:
# a strategy's replica threads trace into the graph of a call made on another thread.
_inner: list[tuple[Any, Any, int]] = []
_inner_lock = threading.Lock()


def _inner_owner(graph: Any) -> Any:
    """(Weakly) the tf.function whose trace holds an op made in ``graph``: the innermost
    call being traced into a graph that strictly encloses it (``graph``'s chain of outer
    graphs), the calling thread's first where two are as deep; None when the op lies in
    no such call (another thread's outer function, traced meanwhile, is not one)."""
    with _inner_lock:
        entries = list(_inner)
    if not entries:
        return None
    chain: list[Any] = []
    while graph is not None and len(chain) < 256:
        chain.append(graph)
        graph = getattr(graph, "outer_graph", None)
    thread = threading.get_ident()
    best: tuple[tuple[int, bool], Any] | None = None
    for ref, outer, tracer in entries:
        for depth in range(1, len(chain)):
            if chain[depth] is outer:
                key = (depth, tracer != thread)
                if best is None or key < best[0]:
                    best = (key, ref)
                break
    return best[1] if best is not None else None


_RANK_KEPT = 8  # dimensions of a failing output's shape written (to place its first index)
# [check, NaN, +Inf, -Inf, size, first flat index, rank, shape…]: what a failing check writes
_FLAG_SIZE = 7 + _RANK_KEPT


class _Flags:
    """The variables failing checks write, one per device (a compiled step reads and
    writes variables on its own device): made eagerly, held here, never tracked by a
    model or a checkpoint. Made as plain ``ResourceVariable``s, past any variable creator:
    under a ``tf.distribute`` strategy's scope ``tf.Variable`` makes a mirrored variable,
    which a replica may not assign."""

    def __init__(self) -> None:
        self.by_device: dict[str, Any] = {}
        self.lock = threading.Lock()

    def on(self, device: str) -> Any:
        import tensorflow as tf
        from tensorflow.python.ops import resource_variable_ops

        with self.lock:
            flag = self.by_device.get(device)
            if flag is None:
                with tf.init_scope(), tf.device(device or None):
                    flag = resource_variable_ops.ResourceVariable(
                        tf.zeros([_FLAG_SIZE], tf.int64),
                        trainable=False,
                        name="tf_debug_repr_numerics",
                    )
                self.by_device[device] = flag
            return flag

    def raised(self) -> list:
        """[(device, the values written)] of the flags a check wrote, each reset to 0."""
        import numpy as np

        found = []
        with self.lock:
            flags = list(self.by_device.items())
        for device, flag in flags:
            values = flag.numpy()
            if values[0]:
                flag.assign(np.zeros_like(values))
                found.append((device, values))
        return found


_flags = _Flags()


def _check_with_counts(
    output: Any,
    number: int,
    stop_on_inf: bool,
    divided: list | None = None,
) -> None:
    """One reduction when all is finite; only a failing output pays for the counts and
    the first index, in the branch that writes them (once per call: the first failing
    check's are kept). ``divided``: a division's inputs; ±Inf it makes from finite ones
    fails too."""
    import tensorflow as tf
    from tensorflow.core.framework import attr_value_pb2

    rank = output.shape.rank
    flag = _flags.on(getattr(output, "device", "") or "")

    def fail() -> Any:
        bad = tf.reshape(tf.logical_not(tf.math.is_finite(output)), [-1])
        inf = tf.math.is_inf(output)

        def count(mask: Any) -> Any:
            return tf.reduce_sum(tf.cast(mask, tf.int64))

        # the first bad element (XLA has no tf.where; the 1 after them: never empty)
        marks = tf.concat([tf.cast(bad, tf.int32), tf.ones([1], tf.int32)], 0)
        first = tf.argmax(marks, output_type=tf.int64)
        if rank is not None and rank <= _RANK_KEPT:
            shape = tf.pad(tf.shape(output, out_type=tf.int64), [[0, _RANK_KEPT - rank]])
            known = tf.constant(rank, tf.int64)
        else:
            shape = tf.zeros([_RANK_KEPT], tf.int64)
            known = tf.constant(-1, tf.int64)
        figures = tf.stack(
            [
                tf.constant(number, tf.int64),
                count(tf.math.is_nan(output)),
                count(tf.logical_and(inf, output > 0)),
                count(tf.logical_and(inf, output < 0)),
                tf.size(output, out_type=tf.int64),
                first,
                known,
            ]
        )
        values = tf.concat([figures, shape], 0)
        first_to_fail = tf.equal(flag[0], 0)
        kept = tf.where(first_to_fail, values, flag.read_value())
        with tf.control_dependencies([flag.assign(kept)]):
            return tf.constant(False)

    fine = _traced_fine(tf, output, divided, stop_on_inf)
    result = tf.cond(fine, lambda: tf.constant(True), fail)
    # Run as one functional If, not lowered to Switch/Merge: Grappler's loop optimizer
    # warns on stderr about every lowered Merge with a control input.
    op = getattr(result, "op", None)
    for _ in range(3):  # the If, under the Identity ops cond_v2 puts on its outputs
        if op is None or op.type in ("If", "StatelessIf"):
            break
        op = op.inputs[0].op if op.inputs else None
    if op is not None and op.type in ("If", "StatelessIf"):
        op._set_attr("_lower_using_switch_merge", attr_value_pb2.AttrValue(b=False))


def graph_error(device: str, values: Any) -> Any:
    """The ``NumericsError`` of a failing graph check, from what it wrote."""
    import numpy as np

    number, nan, pos, neg, size, first, rank = (int(v) for v in values[:7])
    op_type, op_name, slot, known = _graph_checks.get(number) or (
        "?",
        None,
        0,
        ["NaN/Inf produced by an op in a tf.function"],
    )
    lines = list(known)
    where = ""
    if rank == 0:
        index: tuple[int, ...] | None = ()
    elif rank > 0:
        shape = tuple(int(d) for d in values[7 : 7 + rank])
        index = tuple(int(i) for i in np.unravel_index(first, shape)) if size else None
    else:
        index = None
    if index is not None:
        where = ", first at [" + ", ".join(str(i) for i in index) + "]"
    lines.insert(
        2 if len(lines) > 1 and lines[1].startswith("  by ") else 1,
        f"  output {slot} holds NaN: {nan}, +Inf: {pos}, -Inf: {neg} of {size} elements{where}",
    )
    facts = dict(_NO_FACTS, op_type=op_type, op_name=op_name, slot=slot, nan=nan)
    facts.update(pos_inf=pos, neg_inf=neg, first_bad=index)
    facts["device"] = fmt.device_text(device) or "?"
    facts["check"] = number
    return error_class()("\n".join(lines), facts)


def _health(output: Any) -> tuple[int, int, int] | None:
    """(NaN, +Inf, -Inf) counts of an output, by one ``DebugNumericSummaryV2`` on its own
    device, off the user's tape; None when all is finite or it cannot tell. The op never
    fails (a failing ``CheckNumerics`` made TF log ``local_rendezvous … Tensor had NaN
    values`` on stderr, a line the plain run never prints)."""
    import tensorflow as tf
    from tensorflow.python.eager import record

    try:
        with record.stop_recording(), tf.device(output.device):
            _, _, neg, pos, nan = _summary_op()(output, tensor_debug_mode=3, tensor_id=-1).numpy()
    except Exception:  # no kernel here, or the like: not ours to stop the program for
        return None
    if not (neg or pos or nan):
        return None
    return int(nan), int(pos), int(neg)


def _finite(output: Any) -> bool:
    """True when the output holds no NaN/Inf (or it cannot be told)."""
    return _health(output) is None


_summary: list = []


def _summary_op() -> Any:
    """``DebugNumericSummaryV2`` (mode 3, CONCISE_HEALTH: id, size, -Inf, +Inf, NaN)."""
    if not _summary:
        from tensorflow.python.ops import gen_debug_ops

        _summary.append(gen_debug_ops.debug_numeric_summary_v2)
    return _summary[0]


def _own_files_are_library() -> None:
    """Tell the debugger that this package's files are library code, as they are for any
    pip install (site-packages): the exception is raised in our callback, and with
    "justMyCode" the stop must show the user's line, not ours. Matters for an editable
    install (a source checkout), whose files would otherwise count as the user's."""
    import os

    debugger.count_as_library(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _checked_call(original: Callable) -> Callable:
    """``Function._call``: when a call run eagerly returns (or fails), a traced check that
    found a NaN raises its ``NumericsError`` here, at the user's call of the function, its
    message first saying where (no traceback of TF's before it). Before that, the call is
    re-run eagerly, op by op, from the variables' values before it (as JAX's
    ``jax_debug_nans`` re-runs a jitted call): the eager check stops on the line that made
    the NaN, with its values; the variables are then put back as the compiled call left them."""

    def _call(self: Any, *args: Any, **kwds: Any) -> Any:
        from tensorflow.python.eager import context

        if getattr(_local, "replaying", False):
            return original(self, *args, **kwds)
        if not context.executing_eagerly():  # traced into an outer function's graph
            try:
                _stash_arguments(self, args, kwds)
            except Exception as exc:  # never in the way of the user's trace
                _warn_once(f"re-run: the arguments of {_name(self)} are not kept: {exc!r}")
            from tensorflow.python.framework import ops

            entry = (weakref.ref(self), ops.get_default_graph(), threading.get_ident())
            with _inner_lock:
                _inner.append(entry)
            try:
                return original(self, *args, **kwds)
            finally:
                with _inner_lock:
                    for i in range(len(_inner) - 1, -1, -1):
                        if _inner[i] is entry:
                            del _inner[i]
                            break
        outer = getattr(_local, "before", None)
        before = _State(_handles.get(self, ()))
        _local.before = before
        try:
            try:
                result = original(self, *args, **kwds)
            except Exception:
                error = _graph_failure()
                if error is None:
                    raise
            else:
                error = _graph_failure()
                if error is None:
                    return result
        finally:
            _local.before = outer
            try:
                _handles[self] = before.handles()
            except TypeError:  # not weakly referable
                pass
        _replay(self, before, args, kwds, error)
        raise error from None

    return _call


# tf.function -> the handles of the variables its traces read or wrote (weakly)
_handles: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _State:
    """Variables' values at one moment, by their handles: read before a call (the ones
    known from earlier traces), or while the call's first trace meets them (no op of the
    call has run yet). A read shares the variable's buffer until the next write copies it."""

    def __init__(self, handles: Any) -> None:
        self.values: dict[int, tuple[Any, Any]] = {}
        for ref in handles:
            handle = ref()
            if handle is not None:
                self.add(handle)

    def add(self, handle: Any) -> None:
        if id(handle) in self.values:
            return
        try:
            import tensorflow as tf
            from tensorflow.python.ops import gen_resource_variable_ops, resource_variable_ops

            from ..core.guards import harmless

            data = resource_variable_ops.get_eager_safe_handle_data(handle)
            dtype = tf.as_dtype(data.shape_and_type[0].dtype)
            with harmless():  # the check's own read: a NaN there is not a stop
                value = gen_resource_variable_ops.read_variable_op(handle, dtype)
            self.values[id(handle)] = (handle, value)
        except Exception:  # not initialised yet (made in this call), or not a variable
            pass

    def handles(self) -> list:
        return [weakref.ref(handle) for handle, _ in self.values.values()]

    def restore(self) -> None:
        from tensorflow.python.ops import gen_resource_variable_ops

        from ..core.guards import harmless

        with harmless():
            for handle, value in self.values.values():
                gen_resource_variable_ops.assign_variable_op(handle, value)


def _met_in_trace(op_name: str | None, inputs: Any, graph: Any) -> None:
    """While a call's trace runs: the variables its ops use, read now, before they run
    (not the plugin's own: gradient capture's, the checks' flags)."""
    before = getattr(_local, "before", None)
    if before is None or (
        op_name and (op_name.startswith(_OWN_SCOPE) or f"/{_OWN_SCOPE}" in op_name)
    ):
        return
    import tensorflow as tf

    own = {id(flag.handle) for flag in list(_flags.by_device.values())}
    own |= _stash_handles

    for tensor in inputs or ():
        if getattr(tensor, "dtype", None) != tf.resource:
            continue
        for external, internal in graph.captures:
            if internal is tensor:
                if hasattr(external, "numpy") and id(external) not in own:
                    before.add(external)
                break


def _consumes(args: tuple, kwds: dict) -> bool:
    """Does the call take something a re-run would advance (a tf.data iterator, as Keras's
    compiled fit functions do, a Python generator)? Then it is not re-run."""
    import tensorflow as tf

    try:
        leaves = tf.nest.flatten((args, kwds))
    except Exception:
        return True
    return any(
        hasattr(leaf, "get_next") or hasattr(leaf, "__next__") or isinstance(leaf, tf.data.Dataset)
        for leaf in leaves
    )


def _replay(function: Any, before: _State, args: tuple, kwds: dict, error: Any) -> None:
    """Re-run the call eagerly from ``before``; its NumericsError (at the line, with the
    line's values) is raised once the variables are as the compiled call left them. A call
    that takes an iterator (Keras's compiled fit functions) is not re-run: where the check
    that fired is in a ``tf.function`` it calls (fit's one step on one batch), that one is,
    from the arguments it was given (kept when its call was traced, ``_stash_arguments``)."""
    outer = function
    if _consumes(args, kwds):
        found = _inner_call(error)
        if found is None:
            return
        function, args, kwds = found
    if not before.values:
        return
    import logging

    import tensorflow as tf

    after = _State([weakref.ref(handle) for handle, _ in before.values.values()])
    stop: Any = None
    _local.replaying = True
    eager_before = tf.config.functions_run_eagerly()
    # TF's own warnings about what the re-run does (a strategy run eagerly is slow) are
    # not the program's: the plain run never prints them
    quiet = _Quiet()
    tf_logger = logging.getLogger("tensorflow")
    tf_logger.addFilter(quiet)
    try:
        before.restore()
        tf.config.run_functions_eagerly(True)
        function._python_function(*args, **kwds)
    except tf.errors.InvalidArgumentError as exc:
        if isinstance(exc, error_class()):
            stop = exc
    except Exception:
        pass
    finally:
        tf.config.run_functions_eagerly(eager_before)
        tf_logger.removeFilter(quiet)
        _local.replaying = False
        try:
            after.restore()
        except Exception as exc:
            _warn_once(f"re-run: variables not put back: {exc!r}")
    if stop is None:
        return
    if function is outer:
        what = "from its variables' values before it"
    else:
        what = (
            f"from the arguments it was given in the call of {_name(outer)} (which takes an "
            "iterator: not re-run) and the variables' values before that call"
        )
    note = (
        f"  (stopped here by re-running this call of {_name(function)} eagerly {what}; the "
        "variables are back as the compiled call left them. The compiled call said: "
        f"{str(error.message).split(chr(10), 1)[0]})"
    )
    try:
        stop._message = f"{stop.message}\n{note}"
    except Exception:
        pass
    _remember(stop)
    raise stop


def _name(function: Any) -> str:
    return str(getattr(function, "__name__", None) or getattr(function, "name", "?"))


class _Quiet:
    """A logging filter that drops every record (TF's logger, while a call is re-run)."""

    def filter(self, record: Any) -> bool:
        return False


# tf.function (traced into an outer function) -> its _Stash: the arguments of its latest call
_stashes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_stash_handles: set[int] = set()  # ids of the stashes' variables' handles (never restored)


class _Stash:
    """Where a ``tf.function`` traced into another's graph (Keras's one step on one batch,
    inside fit's function of the iterator) keeps the arguments of its latest call: a
    variable per tensor, assigned in the outer graph before the call (one copy of the
    batch per call); the rest of the arguments as they were at the trace. ``reason``:
    why they are not kept (a call in a loop, an XLA-compiled outer function, a resource or
    variant argument), said when a re-run would have needed them."""

    def __init__(self) -> None:
        self.structure: Any = None
        self.leaves: list[Any] = []  # the arguments' leaves, _TENSOR where one is kept
        self.variables: list[Any] = []
        self.reason = ""

    def arguments(self) -> tuple[tuple, dict]:
        import tensorflow as tf

        values = iter([variable.read_value() for variable in self.variables])
        leaves = [next(values) if leaf is _TENSOR else leaf for leaf in self.leaves]
        args, kwds = tf.nest.pack_sequence_as(self.structure, leaves, expand_composites=True)
        return tuple(args), dict(kwds)


_TENSOR = object()  # a stashed argument's place among the leaves


def _stash_arguments(function: Any, args: tuple, kwds: dict) -> None:
    """While an outer function is traced and calls ``function`` (another ``tf.function``):
    add to the outer graph the ops that keep this call's arguments (``_Stash``)."""
    import tensorflow as tf
    from tensorflow.python.framework import composite_tensor, ops
    from tensorflow.python.ops import resource_variable_ops

    stash = _stashes.get(function)
    if stash is None:
        stash = _stashes[function] = _Stash()
    structure = (list(args), dict(kwds))
    tensors = [
        leaf
        for leaf in tf.nest.flatten(structure, expand_composites=True)
        if isinstance(leaf, tf.Tensor)
    ]
    # the structure as type specs: no graph tensor kept (it would hold the outer graph)
    specs = tf.nest.map_structure(
        lambda leaf: (
            tf.type_spec_from_value(leaf)
            if isinstance(leaf, (tf.Tensor, composite_tensor.CompositeTensor))
            else leaf
        ),
        structure,
    )
    leaves = tf.nest.flatten(specs, expand_composites=True)
    graph = ops.get_default_graph()
    reason = ""
    if _xla_contexts(graph) > (1 if getattr(function, "_jit_compile", False) else 0):
        reason = "the function that calls it is compiled with XLA"
    elif _in_loop(graph):
        reason = "it is called in a loop (Keras: steps_per_execution > 1)"
    elif any(t.dtype in (tf.resource, tf.variant) for t in tensors):
        reason = "it is given a variable, an iterator or a dataset"
    stash.reason = reason
    stash.structure = specs
    stash.leaves = [_TENSOR if isinstance(leaf, tf.TypeSpec) else leaf for leaf in leaves]
    if not reason and stash.leaves.count(_TENSOR) != len(tensors):
        reason = "its arguments' structure could not be kept"
    stash.reason = reason
    if reason:
        stash.variables = []
        return
    kept = [v for v in stash.variables if v is not None]
    if len(kept) != len(tensors) or any(v.dtype != t.dtype for v, t in zip(kept, tensors)):
        for old in kept:
            _stash_handles.discard(id(old.handle))
        kept = []
        with tf.init_scope():
            for tensor in tensors:
                with tf.device(tensor.device or None):
                    variable = resource_variable_ops.ResourceVariable(
                        tf.zeros([0], tensor.dtype),
                        shape=tf.TensorShape(None),
                        trainable=False,
                        name="tf_debug_repr_arguments",
                    )
                kept.append(variable)
                _stash_handles.add(id(variable.handle))
        stash.variables = kept
    from ..core import tf_compat

    with tf_compat.tape_recording().stop_recording(), tf.name_scope(_OWN_SCOPE):
        for variable, tensor in zip(kept, tensors):
            variable.assign(tensor, read_value=False)


def _xla_contexts(graph: Any) -> int:
    """How many XLA contexts are open on ``graph`` and the graphs it is traced in: a
    ``tf.function(jit_compile=True)``'s call opens one, on the graph that calls it."""
    count = 0
    while graph is not None:
        context = graph._get_control_flow_context()
        while context is not None:
            count += bool(context.IsXLAContext())
            context = context.outer_context
        graph = getattr(graph, "outer_graph", None)
    return count


def _in_loop(graph: Any) -> bool:
    """Is ``graph`` a loop's body or condition, or a branch inside one?"""
    from tensorflow.python.ops import control_flow_util_v2

    while graph is not None:
        if control_flow_util_v2.in_while_loop_defun(graph):
            return True
        if not getattr(graph, "is_control_flow_graph", False):
            return False
        graph = getattr(graph, "outer_graph", None)
    return False


def _inner_call(error: Any) -> tuple[Any, tuple, dict] | None:
    """The function traced into the outer one whose check fired, with the arguments of its
    latest call, for a re-run; None (said once on stderr) where they are not kept."""
    number = getattr(error, "facts", {}).get("check")
    ref = _check_inner.get(number) if number is not None else None
    function = ref() if ref is not None else None
    if function is None:
        _warn_once(
            "re-run: the NaN was made in a call that takes an iterator, not re-run to stop "
            "on its line (a re-run would take the next batch); the error comes at the call"
        )
        return None
    stash = _stashes.get(function)
    if stash is None or not stash.variables:
        why = stash.reason if stash is not None else "its arguments were not kept"
        _warn_once(
            f"re-run: the NaN was made in {_name(function)}, not re-run to stop on its "
            f"line because {why}; the error comes at the call"
        )
        return None
    args, kwds = stash.arguments()
    return function, args, kwds


def _read_of_variable(number: int) -> bool:
    known = _graph_checks.get(number)
    return known is not None and known[0] == "ReadVariableOp"


def _graph_failure() -> Any:
    """The error of the first check that failed in the call that just returned, or None."""
    if not _flags.by_device:
        return None
    from tensorflow.python.eager import context

    if not context.executing_eagerly():
        return None  # a call traced into an outer function: that one's call reads them
    try:
        found = _flags.raised()
    except Exception as exc:  # never in the program's way
        _warn_once(f"graph checks: could not be read: {exc!r}")
        return None
    if not found:
        return None
    # several devices' checks fired (a strategy's replicas, the merge after them): a
    # variable's read holds a NaN made elsewhere, not where it was made
    found.sort(key=lambda item: _read_of_variable(int(item[1][0])))
    error = graph_error(*found[0])
    _remember(error)
    return error


def enable(stop_on_inf: bool = False) -> None:
    """Install the callback on the calling thread (idempotent per thread): NaN stops;
    ±Inf too with ``stop_on_inf``."""
    import threading

    from tensorflow.python.framework import op_callbacks

    thread = threading.get_ident()
    if any(t == thread for t, _ in _installed):
        return
    callback = NumericsCallback(stop_on_inf)
    op_callbacks.add_op_callback(callback)
    _installed.append((thread, callback))
    try:
        from ..core.patching import patch_once
        from ..core.tf_compat import function_class

        patch_once(function_class(), "_call", _checked_call)
    except Exception as exc:  # TF moved it: traced checks find, and say nothing
        _warn_once(f"graph checks: not read at calls: {exc!r}")
    try:
        _own_files_are_library()
    except Exception:  # pydevd's internals moved: the stop shows our frame on top
        pass


def disable() -> None:
    """Remove the callback from the calling thread."""
    import threading

    from tensorflow.python.framework import op_callbacks

    thread = threading.get_ident()
    for entry in [e for e in _installed if e[0] == thread]:
        try:
            op_callbacks.remove_op_callback(entry[1])
        except KeyError:
            pass
        _installed.remove(entry)


def _traced_fine(tf: Any, output: Any, divided: Any, stop_on_inf: bool) -> Any:
    """A traced check's verdict on ``output``: no NaN (no ±Inf either under ``nan,inf``); under
    ``1``, a division's ±Inf from finite inputs (``divided``) fails too."""
    if stop_on_inf:
        return tf.reduce_all(tf.math.is_finite(output))
    fine = tf.logical_not(tf.reduce_any(tf.math.is_nan(output)))
    if divided is not None:
        born = [tf.reduce_all(tf.math.is_finite(output))]
        born += [tf.logical_not(tf.reduce_all(tf.math.is_finite(t))) for t in divided]
        fine = tf.logical_and(fine, tf.reduce_any(tf.stack(born)))
    return fine
