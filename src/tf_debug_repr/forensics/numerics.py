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
DIVISIONS = frozenset({"RealDiv", "Div", "FloorDiv", "Reciprocal", "Inv", "Rsqrt", "Xdivy"})

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
                    super().__init__(*args[:3])
                    message = str(args[2]) if len(args) > 2 else ""
                    previous = last_error()
                    known = previous is not None and previous.message in message
                    facts = previous.facts if known else _NO_FACTS
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
    if division:
        lines.append(DIVISION_LINE)
    site, source = running_site()
    if site:  # the stop may be higher up: where the exception leaves the user's code
        lines.append(f"  ran at {site}: {source}")
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
            if op_bytes not in self._skip:
                try:
                    _instrument(
                        op_bytes.decode(), op_name, outputs, inputs, graph, self.stop_on_inf
                    )
                except Exception as exc:  # never break the user's tracing
                    _warn_once(f"a check was not added to a traced {op_type}: {exc!r}")
            return None  # outputs unchanged
        if op_bytes in self._skip or op_bytes == b"CheckNumericsV2" or not outputs:
            return None
        for slot, output in enumerate(outputs):
            if not _checked(output) or (op_bytes, slot) in _IGNORED or _finite(output):
                continue
            division = False
            if not self.stop_on_inf and not _has_nan(output):
                # ±Inf only: made on purpose as often as not, unless a division made it
                # from finite inputs (x / 0): its NaN would come later, on another line
                division = op_bytes.decode() in DIVISIONS and all(
                    _finite(tensor) for tensor in inputs or [] if _checked(tensor)
                )
                if not division:
                    continue
            try:
                message, facts = report(
                    op_bytes.decode(),
                    op_name,
                    slot,
                    list(outputs),
                    list(inputs or []),
                    self.stop_on_inf,
                    division,
                )
            except Exception as exc:  # the facts failed: the stop still comes, said plainly
                message = (
                    f"NaN/Inf first produced by op {op_bytes.decode()} (output {slot}); {exc!r}"
                )
                facts = _bare_facts(op_bytes.decode(), op_name, slot, outputs, inputs)
            error = error_class()(message, facts)
            _remember(error)
            raise error
        return None


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
        or f"{os.sep}keras{os.sep}" in path
        or f"{os.sep}site-packages{os.sep}" in path
        or path.startswith("<")
    )


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


def graph_message(
    op_type: str, op_name: str | None, slot: int, outputs: list, inputs: list, graph: Any
) -> str:
    output = outputs[slot]
    site, source = creation_site(getattr(output.op, "traceback", None))
    name = f" ({op_name})" if op_name and op_name != op_type else ""
    lines = [
        f"NaN/Inf produced by op {op_type}{name} in tf.function graph "
        f"{getattr(graph, 'name', '?')}: output {slot} of {len(outputs)}, "
        f"{output.dtype.name}{fmt.shape_text(output.shape)}",
    ]
    if site:
        lines.append(f"  created at {site}: {source}")
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
    automatic control dependencies; the outputs stay the user's. A failing check reports
    the counts and the first index as the eager check does. XLA has no op that raises
    (its CheckNumerics is a no-op, DebugNumericSummaryV2 fails to compile): functions
    compiled with XLA are left unchecked, said once."""
    from tensorflow.python.ops import control_flow_util

    if control_flow_util.GraphOrParentsInXlaContext(graph):
        _warn_once(
            "XLA: inside functions compiled with XLA (jit_compile=True) ops are not "
            "checked one by one (XLA has no op that can stop on NaN/Inf); their outputs "
            "are, when the call returns"
        )
        return
    outputs = list(outputs or [])
    for slot, output in enumerate(outputs):
        if not _checked(output) or (op_type.encode(), slot) in _IGNORED:
            continue
        message = graph_message(op_type, op_name, slot, outputs, list(inputs or []), graph)
        lines = [*message.split("\n"), mode_line(stop_on_inf)]
        divided = [t for t in inputs or [] if _checked(t)] if op_type in DIVISIONS else None
        _check_with_counts(output, slot, lines, stop_on_inf, divided)


def _check_with_counts(
    output: Any,
    slot: int,
    lines: list[str],
    stop_on_inf: bool,
    divided: list | None = None,
) -> None:
    """One reduction when all is finite; only a failing output pays for the counts and
    the first index, in the branch that raises. ``Assert`` prints each string escaped
    (quotes, newlines, non-ASCII): one plain-ASCII string per line of the message.
    ``divided``: a division's inputs; ±Inf it makes from finite ones fails too."""
    import tensorflow as tf

    rank = output.shape.rank

    def fail() -> Any:
        bad = tf.logical_not(tf.math.is_finite(output))
        inf = tf.math.is_inf(output)

        def count(mask: Any) -> Any:
            return tf.reduce_sum(tf.cast(mask, tf.int64))

        where = "[]"
        if rank != 0:
            flat = tf.where(tf.reshape(bad, [-1]))[0, 0]
            index = tf.unravel_index(flat, tf.shape(output, out_type=tf.int64))
            where = tf.strings.join(
                ["[", tf.strings.reduce_join(tf.strings.as_string(index), separator=", "), "]"]
            )
        figures = [
            count(tf.math.is_nan(output)),
            count(tf.logical_and(inf, output > 0)),
            count(tf.logical_and(inf, output < 0)),
            tf.size(output, out_type=tf.int64),
        ]
        text = [tf.strings.as_string(figure) for figure in figures]
        facts = tf.strings.join(
            [f"output {slot} holds NaN: ", text[0], ", +Inf: ", text[1], ", -Inf: ", text[2]]
            + [" of ", text[3], " elements, first at ", where]
        )
        shown = (
            [line.strip() for line in lines[:1]] + [facts] + [line.strip() for line in lines[1:]]
        )
        check = tf.debugging.Assert(False, shown, summarize=1)
        with tf.control_dependencies([check]):
            return tf.constant(False)

    if stop_on_inf:
        fine = tf.reduce_all(tf.math.is_finite(output))
    else:
        fine = tf.logical_not(tf.reduce_any(tf.math.is_nan(output)))
        if divided is not None:  # a division's ±Inf from finite inputs fails too
            born = [tf.reduce_all(tf.math.is_finite(output))]
            born += [tf.logical_not(tf.reduce_all(tf.math.is_finite(t))) for t in divided]
            fine = tf.logical_and(fine, tf.reduce_any(tf.stack(born)))
    tf.cond(fine, lambda: tf.constant(True), fail)


def _finite(output: Any) -> bool:
    """One CheckNumericsV2 on the output's device; True when it holds no NaN/Inf."""
    import tensorflow as tf
    from tensorflow.python.eager import record
    from tensorflow.python.ops import array_ops

    try:
        # off the user's tape (the check op has a gradient), on the output's device
        with record.stop_recording(), tf.device(output.device):
            array_ops.check_numerics_v2(output, "")
    except tf.errors.InvalidArgumentError:
        return False
    except Exception:  # no kernel here, or the like: not ours to stop the program for
        return True
    return True


def _has_nan(output: Any) -> bool:
    """Asked only of an output the check found not finite: NaN, or only ±Inf?"""
    import tensorflow as tf
    from tensorflow.python.eager import record

    try:
        with record.stop_recording(), tf.device(output.device):
            return bool(tf.reduce_any(tf.math.is_nan(output)))
    except Exception:  # cannot tell: stop, as the check found something
        return True


def _own_files_are_library() -> None:
    """Tell the debugger that this package's files are library code, as they are for any
    pip install (site-packages): the exception is raised in our callback, and with
    "justMyCode" the stop must show the user's line, not ours. Matters for an editable
    install (a source checkout), whose files would otherwise count as the user's."""
    import os

    debugger.count_as_library(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
