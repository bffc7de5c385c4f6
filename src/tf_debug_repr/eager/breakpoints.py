"""Breakpoints inside compiled code: a ``tf.function`` holding one runs eagerly, only it.

A breakpoint in a ``@tf.function`` (or in a Keras ``train_step``/``call`` under compiled
``fit``) is never hit with values: AutoGraph traces a converted copy from a generated file,
then the graph runs without Python. With a debugger client attached and
``TF_DEBUG_REPR_EAGER`` unset or ``auto``, a ``tf.function`` called eagerly runs its own
Python function, as plain Python, while a line breakpoint lies in code it runs; every other
function stays compiled, and once the breakpoint goes the function runs its compiled graph
again at its next call (the traces are kept).

One mechanism, "trace, then decide": "code it runs" is learned when the function is traced:
the Python functions that ran during the trace (the ones AutoGraph converted included, and
those run on the threads a trace starts: ``strategy.run``'s replicas) are recorded, by a
profiler that is on only while a trace runs (``_Recorder``). A function's first call traces it anyway;
while a breakpoint is set, that call decides once the trace is done and before the graph
runs: a breakpoint in code the trace ran makes the call run as Python, so a breakpoint in a
helper at any depth, a module's method, a ``tf.cond``/``tf.while_loop``/``tf.map_fn`` body or
a replica function stops from the first call on. A function called from one that runs
eagerly is decided the same way at its own first call; one traced only inside another's
trace runs eagerly with it (its code path may lead to the breakpoint).

The same decision for ``tf.data`` functions (``Dataset.map``/``filter``/``flat_map``/
``interleave``): the dataset's trace records what it ran, and a breakpoint there makes the
dataset run its function as Python, element by element, in order (``datasets``).

Never run as Python: restored SavedModel functions (they have no Python function).
Nothing here runs without a client: ``install`` is called once one is looking.
"""

from __future__ import annotations

import dis
import os
import re
import sys
import threading
import types
import weakref
from collections.abc import Callable
from typing import Any

from ..core.patching import patch_once
from ..hosts.pydevd import client as debugger_client
from ..hosts.pydevd import quiet_import

ENV = "TF_DEBUG_REPR_EAGER"
# Stops while a function is traced for its first call, or in Keras's symbolic build pass,
# have no values; where the code then runs as Python they are passed by default.
TRACE_STOPS_ENV = "TF_DEBUG_REPR_TRACE_STOPS"

# What an eager run can change in the program's results (measured: docs/compiled-code.md,
# tests/e2e/test_compiled_random.py). One constant, so the wording stays in one place.
EAGER_DIFFERENCES = (
    "What differs from its compiled run: random ops without state of their own "
    "(tf.random.normal, tf.random.uniform, tf.random.categorical, keras.random without a "
    "SeedGenerator) draw other "
    "numbers eagerly, even under tf.random.set_seed, and shift the program's later eager "
    "draws; a tf.random.Generator, stateless ops and Keras SeedGenerators (Dropout, "
    "keras-io's Sampling) draw the same numbers, except in a jit_compile=True function "
    "(XLA draws others); floats differ by rounding (fused kernels, ~1 ulp); Python code in "
    "it (print, numpy.random) runs at every call, not once per trace, and Python state it "
    "keeps (self.x = a tensor it made) holds the last call's value, not the trace's "
    "symbolic tensor: a shape's None is a number."
)
# Frames of these are never where a user's breakpoint is: skipped when recording a trace.
_LIBRARY = re.compile(r"[/\\](tensorflow|keras|tf_keras|tf_debug_repr)[/\\]|__autograph_generated")


def mode() -> str:
    """``TF_DEBUG_REPR_EAGER``: "auto" (unset, the default: functions holding a breakpoint
    run eagerly), "all" (``1``: every function, see ``eager_switch``), "off" (``0``)."""
    value = os.environ.get(ENV, "").strip().lower()
    if value in ("1", "true", "yes", "on", "all"):
        return "all"
    if value in ("0", "false", "no", "off", "never"):
        return "off"
    return "auto"


def trace_stops() -> bool:
    """``TF_DEBUG_REPR_TRACE_STOPS=1``: also stop while tracing and building (no values)."""
    return os.environ.get(TRACE_STOPS_ENV, "").strip().lower() in ("1", "true", "yes", "on")


class _Passing:
    """Whether this thread's stops are passed (``pass_through``): the innermost of nested
    regions decides. Passed: a decision trace, Keras's build pass; stopping again inside
    them: a Keras ``build()``, which a layer runs once, in the pass, never with values."""

    def __init__(self) -> None:
        self.stack: list[bool] = []
        self.token: Any = None

    def push(self, passing: bool) -> None:
        self.stack.append(passing)
        self._apply()

    def pop(self) -> None:
        self.stack.pop()
        self._apply()

    def _apply(self) -> None:
        want = bool(self.stack) and self.stack[-1]
        if want and self.token is None:
            self.token = debugger_client.pass_through()
        elif not want and self.token is not None:
            debugger_client.resume_stops(self.token)
            self.token = None


def _passing() -> _Passing:
    passing = getattr(_local, "passing", None)
    if passing is None:
        passing = _local.passing = _Passing()
    return passing


class _Regions:
    """The lines a function runs: canonical file name -> [(first line, last line)]."""

    __slots__ = ("spans", "traced", "told")

    def __init__(self) -> None:
        self.spans: dict[str, list[tuple[int, int]]] = {}
        self.traced = False  # a trace of it was recorded (else only its own lines are known)
        self.told = False  # the Debug Console was told it runs eagerly

    def add(self, code: Any) -> None:
        span = _span_of(code)
        if span is not None:
            spans = self.spans.setdefault(span[0], [])
            if span[1:] not in spans:
                spans.append(span[1:])

    def breakpoint_in(self, table: dict) -> tuple[str, int] | None:
        for filename, spans in self.spans.items():
            lines = table.get(filename)
            if not lines:
                continue
            for line in list(lines):
                for first, last in spans:
                    if first <= line <= last:
                        return filename, line
        return None


_regions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Function -> _Regions
_spans: dict[Any, tuple[str, int, int] | None] = {}  # code object -> its file and lines
_local = threading.local()  # .outer: the Function called eagerly; .eager: depth of eager runs
_installed = False


def _span_of(code: Any) -> tuple[str, int, int] | None:
    """The canonical file and first/last line of a code object and the code nested in it."""
    if code in _spans:
        return _spans[code]
    span = None
    filename = getattr(code, "co_filename", "")
    if filename and not filename.startswith("<") and not _LIBRARY.search(filename):
        # dis.findlinestarts, not co_lines (Python 3.10+): the same lines on Python 3.9
        lines = [line for code_ in _nested(code) for _, line in dis.findlinestarts(code_) if line]
        if lines:
            span = (debugger_client.canonical_path(filename), min(lines), max(lines))
    _spans[code] = span
    return span


def _nested(code: Any) -> list:
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found.extend(_nested(const))
    return found


def _python_function(function: Any) -> Callable:
    """The Python function a ``tf.function`` wraps, as written: past AutoGraph's converted
    copy (a trace swaps it into a bound method's wrapper) and the bound-method wrapper."""
    from tensorflow.python.util import tf_decorator

    _, target = tf_decorator.unwrap(function._python_function)
    return target


def _runnable(function: Any) -> Callable:
    """What runs the function as Python. A method's ``tf.function`` (``@tf.function`` on a
    ``tf.Module`` or Keras method, or decorated after the class was made) wraps a method
    bound to TF's ``TfMethodTarget``, a weak stand-in for the instance: the method is bound
    to the instance itself, as TF's own call does."""
    target: Any = _python_function(function)
    stand_in: Any = getattr(target, "__self__", None)
    if type(stand_in).__name__ == "TfMethodTarget":
        instance = stand_in.target
        if instance is None:
            raise ReferenceError("the instance of this tf.function's method is gone")
        return types.MethodType(target.__func__, instance)
    return target


def _code_of(fn: Any) -> Any:
    fn = getattr(fn, "__func__", fn)
    try:
        import inspect

        fn = inspect.unwrap(fn)
    except Exception:
        pass
    fn = getattr(fn, "__func__", fn)
    return getattr(fn, "__code__", None)


# A Keras model's own code that its compiled step functions run: known before their
# first trace, so a breakpoint in ``train_step`` stops with values from the first step.
KERAS_STEP_METHODS = (
    "train_step",
    "test_step",
    "predict_step",
    "compute_loss",
    "compute_metrics",
    "call",
)


def _keras_owners(fn: Any) -> list:
    """Keras layers and models a function closes over (Keras's ``one_step_on_data``
    and ``multi_step_on_iterator`` close over the model)."""
    from ..core.tf_types import Kind, kind_of

    owners = []
    for cell in getattr(getattr(fn, "__wrapped__", fn), "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if kind_of(value) is Kind.KERAS_LAYER:
            owners.append(value)
    return owners


def _step_methods(owner: Any) -> list:
    """The user's own step methods of a Keras model's class (not Keras's)."""
    codes = []
    for cls in type(owner).__mro__:
        for name in KERAS_STEP_METHODS:
            code = _code_of(cls.__dict__.get(name))
            if code is not None and _span_of(code) is not None:
                codes.append(code)
    return codes


def _regions_of(function: Any) -> _Regions:
    regions = _regions.get(function)
    if regions is None:
        regions = _Regions()
        fn = _python_function(function)
        for code in [_code_of(fn)] + [
            code for owner in _keras_owners(fn) for code in _step_methods(owner)
        ]:
            if code is not None:
                regions.add(code)
        _regions[function] = regions
    return regions


# TF's own functions that must be traced: pfor's (``tf.vectorized_map``). Not all of TF's
# package: a tf.function's Python function is often TF's wrapper around the user's
# (``do_not_convert``, a method's), which runs as Python as the user's does.
_TF_OWN = re.compile(r"[/\\]tensorflow[/\\]python[/\\]ops[/\\]parallel_for[/\\]")


def _restored(function: Any) -> bool:
    """A function that stays compiled: restored from a SavedModel (no Python), or one TF
    makes of its own code that needs a graph (``tf.vectorized_map``'s pfor asserts that it
    is traced: run as Python it failed)."""
    if type(function).__name__ == "RestoredFunction":
        return True
    code = getattr(getattr(function, "_python_function", None), "__code__", None)
    return code is not None and bool(_TF_OWN.search(code.co_filename))


def _initialized(function: Any) -> bool:
    """Has the function made its first trace (TF 2.14+: ``_variable_creation_config``;
    TF 2.10-2.13: ``_variable_creation_fn``; TF 2.9: ``_stateful_fn``)? True on an unknown
    layout: nothing is decided after a trace there, as before."""
    for name in ("_variable_creation_config", "_variable_creation_fn", "_stateful_fn"):
        if hasattr(function, name):
            return getattr(function, name) is not None
    return True


class _RunAsPython(Exception):
    """Raised out of TF's first call once its trace is done and shows a breakpoint in code
    it ran, before the graph runs: the call runs as Python instead."""

    def __init__(self, where: tuple[str, int]) -> None:
        super().__init__(where)
        self.where = where


def _decide_after_trace(function: Any) -> None:
    """Called when a first call's trace (and its variables' initialization) is done: raise
    ``_RunAsPython`` if the call should run as Python. Only for the call that asked."""
    if getattr(_local, "deciding", None) is not function:
        return
    _local.deciding = None
    try:
        table = debugger_client.line_breakpoints()
        where = _regions_of(function).breakpoint_in(table) if table else None
    except Exception as exc:
        _report(exc)
        return
    if where is not None:
        raise _RunAsPython(where)


def _to_decide(function: Any) -> bool:
    """Will this call trace first, with a breakpoint set: then decide after the trace."""
    if _restored(function) or _initialized(function):
        return False
    from tensorflow.python.eager import context

    return context.executing_eagerly() and bool(debugger_client.line_breakpoints())


def _eagerly(function: Any) -> tuple[str, int] | None:
    """Why this call should run as Python: (file, line) of the breakpoint, or
    ("", 0) when a function running eagerly for a breakpoint called it. None: compiled."""
    if _restored(function) or not debugger_client.connected():
        return None
    from tensorflow.python.eager import context

    if not context.executing_eagerly():
        return None  # called while a graph is built: traced into it, as always
    table = debugger_client.line_breakpoints()
    if not table:
        return None
    regions = _regions_of(function)
    found = regions.breakpoint_in(table)
    if (
        found is None
        and not regions.traced
        and getattr(_local, "eager", 0) > 0
        and _initialized(function)  # traced inside another's trace only
    ):
        return ("", 0)
    return found


def _tell(function: Any, regions: _Regions, where: tuple[str, int]) -> None:
    if regions.told:
        return
    regions.told = True
    name = getattr(function, "__name__", None) or type(function).__name__
    text = (
        f"tf-debug-repr: tf.function {name!r} now runs eagerly, as Python (with the "
        f"tf.functions it calls), because a breakpoint at {os.path.basename(where[0])}:"
        f"{where[1]} lies in code it runs; "
        "the other tf.functions stay compiled, and it runs compiled again once no "
        f"breakpoint lies in it. {EAGER_DIFFERENCES} "
        f"{ENV}=0 keeps every function compiled, {ENV}=1 runs all eagerly."
    )
    if not trace_stops():
        text += (
            " Its first call was traced without stopping (a stop while tracing has no "
            f"values; Keras build() methods still stop): {TRACE_STOPS_ENV}=1 stops there too."
        )
    text += "\n"
    _console(text)


def _console(text: str) -> None:
    if not debugger_client.console_message(text):
        try:
            sys.stderr.write(text)
        except Exception:
            pass


def _run_as_python(function: Any, where: tuple[str, int], args: tuple, kwds: dict) -> Any:
    if not getattr(_local, "eager", 0):  # the functions it calls need no word of their own
        _tell(function, _regions_of(function), where)
    target = _runnable(function)
    _local.eager = getattr(_local, "eager", 0) + 1
    try:
        return target(*args, **kwds)
    finally:
        _local.eager -= 1


# --------------------------------------------------------------------------- tracing


class _Recorder:
    """The code objects that ran while a trace runs, and the functions AutoGraph converted
    (their converted copies run from generated files).

    On the tracing thread, Python's C profiler (``cProfile``, without its per-builtin and
    per-caller tables): a Python profile hook is called for every call, return and C call
    of the trace and doubled the CPU a trace takes (a two-block transformer's train step,
    1.1 s: 2.3 s with the hook, 1.6 s with the C profiler). It is paused while TF makes an
    op and adds the trace's control dependencies (``_unrecorded_op_making``: 72% of the
    calls of a Keras ``fit``'s trace). Its table is read once the trace is done;
    AutoGraph's ``converted_call`` notes what it converts (``_note_converted``).
    Threads started while the trace runs (MirroredStrategy's replicas) get the Python hook
    (``on_thread``), which reads ``converted_call``'s argument from its frame."""

    def __init__(self, converted_call: Any) -> None:
        self.codes: set = set()
        self.converted: list = []
        self._converted_call = converted_call
        self.active = True
        self._profile: Any = None

    def start(self) -> None:
        """Record this thread from now on (the C profiler, else the Python hook)."""
        try:
            import cProfile

            profile = cProfile.Profile(subcalls=False, builtins=False)
            profile.enable()
            self._profile = profile
        except Exception:  # no C profiler here: the Python hook
            self._profile = None
            sys.setprofile(self)

    def stop(self) -> None:
        """Stop recording this thread; the codes the C profiler saw join ``codes``."""
        profile, self._profile = self._profile, None
        if profile is None:
            sys.setprofile(None)
            return
        profile.disable()
        for entry in profile.getstats():
            if isinstance(entry.code, types.CodeType):
                self.codes.add(entry.code)

    def on_thread(self, frame: Any, event: str, arg: Any) -> None:
        """The hook of threads started while the trace runs (MirroredStrategy traces each
        replica on a thread of its own); it removes itself once the trace is done."""
        if not self.active:
            sys.setprofile(None)
            return
        self(frame, event, arg)

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            self.codes.add(code)
            if code is self._converted_call:
                self.converted.append(frame.f_locals.get("f"))

    def regions_into(self, regions: _Regions) -> None:
        for code in self.codes:
            regions.add(code)
        for fn in self.converted:
            # A callable object (a Keras layer) converted: its __call__ is what ran.
            code = _code_of(fn) or _code_of(type(fn).__dict__.get("__call__"))
            if code is not None:
                regions.add(code)
        regions.traced = True


def _only_tf_code(graph: Any) -> bool:
    """Does making an op in ``graph`` run TF's code only? Not where a device function of
    the program's own (``tf.compat.v1.device(fn)``) is on the graph's device stack: TF
    calls it for each op."""
    try:
        specs = graph._device_function_stack.peek_objs()
    except Exception:
        return False
    return all(spec.function is None or spec.fast_string_merge for spec in specs)


# Types whose conversion to a tensor runs only their library's code (a subclass of the
# program's own is of its module, and is not).
_PLAIN_MODULES = frozenset({"builtins", "numpy", "tensorflow", "keras", "tf_keras"})


def _plain(value: Any, depth: int = 0) -> bool:
    """Does converting ``value`` (an op's input or attr) to a tensor run library code only?"""
    if type(value).__module__.partition(".")[0] not in _PLAIN_MODULES:
        return False
    if isinstance(value, (list, tuple)):
        return depth < 3 and all(_plain(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return depth < 3 and all(_plain(item, depth + 1) for item in value.values())
    return True


_profiler: Callable[[], Any] = sys.getprofile  # the C profiler's object, when it is on
_device_functions = False  # a device function was pushed on a graph's device stack


def _unrecorded_op_making() -> None:
    """The trace's recorder is paused while TF makes an op: the generated op functions'
    ``_apply_op_helper`` (its inputs converted, the node made, its shape inference, its
    device and control inputs) and ``Graph._create_op_internal`` (constants and other ops
    made without it), and while its automatic control dependencies are added: over half
    of the Python calls of a Keras ``fit``'s trace, each of which the C profiler saw
    (profiled, that trace took ~50% more CPU without a debugger).
    Not paused where the program's own code may run there: an input or attr of a type of
    the program's own (its conversion to a tensor), op callbacks, a device function
    (``Graph.device(fn)``: TF calls it for each op; ``_only_tf_code``). The pause leaves
    the profiler's own stack as it was: no call made while paused returns after it. The
    wrappers are one Python call each (a debugger's trace function sees each call).
    Under the same exceptions, inside a trace or Keras's build pass (``_quiet_region``),
    pydevd's trace function is lifted from the thread for the op where nothing could stop
    there (``quiet_import.lift_op``: no breakpoint in library code, the thread not
    stepping), whether or not the recorder is on, and put back when the op is made."""
    from tensorflow.python.eager import context
    from tensorflow.python.framework import op_def_library, ops

    def wrap_create(original: Any) -> Any:
        def _create_op_internal(self, *args, **kwargs):
            recorder = getattr(_local, "recorder", None)
            profile: Any = None if recorder is None else recorder._profile
            if profile is not None and _profiler() is not profile:
                profile = None
            quiet = getattr(_local, "quiet", 0)
            if (profile is None and not quiet) or (_device_functions and not _only_tf_code(self)):
                return original(self, *args, **kwargs)
            lifted = quiet_import.lift_op() if quiet else None
            if lifted is not None:
                _local.lifted = lifted
            if profile is not None:
                sys.setprofile(None)
            try:
                return original(self, *args, **kwargs)
            finally:
                quiet_import.put_back_op(lifted)
                if profile is not None:
                    profile.enable()

        return _create_op_internal

    def wrap_apply(original: Any) -> Any:
        def _apply_op_helper(op_type_name, name=None, **keywords):
            recorder = getattr(_local, "recorder", None)
            profile: Any = None if recorder is None else recorder._profile
            ctx = context._context
            plain = ctx is not None and not ctx._thread_local_data.op_callbacks
            for value in keywords.values():  # a loop, not a generator (a frame per op)
                if not plain:
                    break
                plain = type(value).__module__.partition(".")[0] in _PLAIN_MODULES and (
                    not isinstance(value, (list, tuple, dict)) or _plain(value)
                )
            if profile is not None and _profiler() is not profile:
                profile = None
            quiet = getattr(_local, "quiet", 0)
            if (
                (profile is None and not quiet)
                or not plain
                or (_device_functions and not _only_tf_code(ops.get_default_graph()))
            ):
                return original(op_type_name, name, **keywords)
            lifted = quiet_import.lift_op() if quiet else None
            if lifted is not None:
                _local.lifted = lifted
            if profile is not None:
                sys.setprofile(None)
            try:
                return original(op_type_name, name, **keywords)
            finally:
                quiet_import.put_back_op(lifted)
                if profile is not None:
                    profile.enable()

        return _apply_op_helper

    def wrap_device(original: Any) -> Any:
        def device(self, device_name_or_function):
            global _device_functions
            if callable(device_name_or_function):
                _device_functions = True
            return original(self, device_name_or_function)

        return device

    def wrap_exit(original: Any) -> Any:
        # the trace's automatic control dependencies, once the function returned: TF's
        # code over every op made
        def __exit__(self, *args):
            recorder = getattr(_local, "recorder", None)
            profile: Any = None if recorder is None else recorder._profile
            if profile is not None and _profiler() is not profile:
                profile = None
            quiet = getattr(_local, "quiet", 0)
            if profile is None and not quiet:
                return original(self, *args)
            lifted = quiet_import.lift_op() if quiet else None
            if lifted is not None:
                _local.lifted = lifted
            if profile is not None:
                sys.setprofile(None)
            try:
                return original(self, *args)
            finally:
                quiet_import.put_back_op(lifted)
                if profile is not None:
                    profile.enable()

        return __exit__

    from tensorflow.python.framework import auto_control_deps

    patch_once(auto_control_deps.AutomaticControlDependencies, "__exit__", wrap_exit)
    patch_once(ops.Graph, "device", wrap_device)
    patch_once(ops.Graph, "_create_op_internal", wrap_create)
    try:  # the op callbacks where this TF keeps them (else op making is paused in part)
        context.context()._thread_local_data.op_callbacks  # noqa: B018
    except Exception:
        return
    patch_once(op_def_library, "_apply_op_helper", wrap_apply)


def _quiet_region(run: Callable, original: Callable, args: tuple, kwargs: dict) -> Any:
    """``run(original, args, kwargs)`` with op making untraced by pydevd where nothing could
    stop in it (``hosts/pydevd/quiet_import.py``): a trace of a graph, Keras's build pass.
    Only inside such a region, whose end hands the thread back to pydevd's own ``SetTrace``
    (the per-op lift puts back CPython's trampoline, slower on frames with many locals):
    TF 1's graph building outside any is left traced, as under stock."""
    depth = getattr(_local, "quiet", 0)
    _local.quiet = depth + 1
    try:
        return run(original, args, kwargs)
    finally:
        _local.quiet = depth
        lifted = getattr(_local, "lifted", None) if depth == 0 else None
        if lifted is not None:
            _local.lifted = None
            quiet_import.retrampoline(lifted)


def _called(original: Callable, args: tuple, kwargs: dict) -> Any:
    return original(*args, **kwargs)


def _note_converted(f: Any) -> None:
    """AutoGraph converts ``f`` on this thread: noted by the trace recording here."""
    recorder = getattr(_local, "recorder", None)
    if recorder is not None and recorder._profile is not None:
        recorder.converted.append(f)


def _converted_call_code() -> Any:
    try:
        import inspect

        from tensorflow.python.autograph.impl import api

        return inspect.unwrap(api.converted_call).__code__
    except Exception:
        return None


def _traced(original: Callable, args: tuple, kwargs: dict) -> Any:
    """Run one trace (``func_graph_from_py_func``) with the recorder on, unless another
    profiler is running. A trace that no eagerly called function asked for (tf.data
    tracing a ``Dataset.map`` function, an export) can never run as Python: a breakpoint
    in the code it ran is said to stop only while tracing, if at all. A tf.data function's
    trace is recorded for its dataset, which decides (``datasets``)."""
    owner = getattr(_local, "outer", None)
    dataset = getattr(_local, "dataset", None)  # a tf.data function being made (datasets)
    if getattr(_local, "recording", False) or sys.getprofile() is not None:
        return original(*args, **kwargs)
    recorder = _Recorder(_converted_call_code())
    _local.recording = True
    _local.recorder = recorder
    threads_hook = getattr(threading, "getprofile", lambda: None)()
    recorder.start()
    if threads_hook is None:
        threading.setprofile(recorder.on_thread)
    try:
        return original(*args, **kwargs)
    finally:
        recorder.stop()
        _local.recorder = None
        recorder.active = False
        if threads_hook is None:
            threading.setprofile(None)
        _local.recording = False
        try:
            if dataset is not None:
                recorder.regions_into(dataset.regions)
            elif owner is not None:
                recorder.regions_into(_regions_of(owner))
            else:
                _tell_traced_only(recorder, str(args[0]) if args else "a function")
        except Exception as exc:
            _report(exc)


_told_traced_only: set[tuple[str, int]] = set()


def _tell_traced_only(recorder: _Recorder, name: str) -> None:
    table = debugger_client.line_breakpoints()
    if not table:
        return
    regions = _Regions()
    recorder.regions_into(regions)
    where = regions.breakpoint_in(table)
    if where is None or where in _told_traced_only:
        return
    _told_traced_only.add(where)
    _console(
        f"tf-debug-repr: the breakpoint at {os.path.basename(where[0])}:{where[1]} lies in "
        f"code TensorFlow traced into a graph outside any tf.function call ({name!r}: an "
        "export, or a graph TensorFlow made for itself): that graph never runs as Python, so "
        "the breakpoint stops only while such code is traced, and not at all where AutoGraph "
        f"converted it. {ENV}=1 runs every function eagerly.\n"
    )


# --------------------------------------------------------------------------- install


def _report(exc: BaseException) -> None:
    try:
        sys.stderr.write(f"tf-debug-repr: breakpoints in tf.functions: {exc!r}\n")
    except Exception:
        pass


def install(tf: Any = None) -> bool:
    """Wrap ``Function.__call__`` and the tracer once. Only in "auto" mode: "all" is the
    global switch (``eager_switch``), "off" leaves every function compiled. Once this is
    installed, ``datasets.install`` extends it to tf.data functions."""
    global _installed
    if _installed or mode() != "auto":
        return _installed
    from tensorflow.python.framework import func_graph

    from ..core.tf_compat import function_class

    def wrap_call(original_call: Any) -> Any:
        def __call__(self, *args, **kwds):
            deciding = False
            try:
                where = _eagerly(self)
                deciding = where is None and _to_decide(self)
            except Exception as exc:  # never in the way of the program: run it compiled
                _report(exc)
                where = None
            if where is not None:
                return _run_as_python(self, where, args, kwds)
            if getattr(_local, "outer", None) is not None:
                return original_call(self, *args, **kwds)
            _local.outer = self  # a trace in this call is this function's
            _local.deciding = self if deciding else None
            # The trace that decides: a breakpoint it reaches lies in code it ran, so the
            # call then runs as Python and stops there with values; the trace's own stops
            # (symbolic, nothing to read) are passed. Not where no profile hook can record
            # the trace (another profiler), nor with TF_DEBUG_REPR_TRACE_STOPS=1.
            passing = deciding and sys.getprofile() is None and not trace_stops()
            if passing:
                _passing().push(True)
            try:
                return original_call(self, *args, **kwds)
            except _RunAsPython as decided:  # traced, and nothing ran: run it as Python
                where = decided.where
            finally:
                if passing:
                    _passing().pop()
                _local.outer = None
                _local.deciding = None
            return _run_as_python(self, where, args, kwds)

        return __call__

    def wrap_initialize(original: Any) -> Any:
        def _initialize(self, args, kwds, add_initializers_to=None):
            result = original(self, args, kwds, add_initializers_to=add_initializers_to)
            if not self._created_variables:  # else once they are initialized (below)
                _decide_after_trace(self)
            return result

        return _initialize

    def wrap_initialize_variables(original: Any) -> Any:
        def _initialize_uninitialized_variables(self, initializers):
            result = original(self, initializers)
            _decide_after_trace(self)
            return result

        return _initialize_uninitialized_variables

    def wrap_trace(original_trace: Any) -> Any:
        def func_graph_from_py_func(*args, **kwargs):
            return _quiet_region(_traced, original_trace, args, kwargs)

        return func_graph_from_py_func

    cls = function_class()
    patch_once(cls, "__call__", wrap_call)
    if hasattr(cls, "_initialize") and hasattr(cls, "_initialize_uninitialized_variables"):
        patch_once(cls, "_initialize", wrap_initialize)
        patch_once(cls, "_initialize_uninitialized_variables", wrap_initialize_variables)
    patch_once(func_graph, "func_graph_from_py_func", wrap_trace)
    _run_user_lines_eagerly()
    _unrecorded_op_making()
    _vectorized_bodies_per_element()
    _name_replica_threads()
    _installed = True
    install_keras()
    return True


_keras_done = False


def install_keras() -> None:
    """Once Keras 3 is imported (before or after ``install``): its build pass passes its
    stops, unless ``TF_DEBUG_REPR_TRACE_STOPS=1``. In "auto" mode (once ``install`` ran)
    and in "all" (``TF_DEBUG_REPR_EAGER=1``: every function runs eagerly, and the same
    ``call`` runs later with values there too); not in "off", where the build pass may be
    the only place a layer's ``call`` stops."""
    global _keras_done
    if _keras_done or not (_installed or mode() == "all") or trace_stops():
        return
    try:
        _keras_done = _pass_keras_build_pass()
    except Exception as exc:  # Keras moved: its build pass stops, as before
        _keras_done = True
        _report(exc)


_told_build_pass = False


def _pass_keras_build_pass() -> bool:
    """Keras 3's build pass (``compute_output_spec``: a layer's ``call`` on symbolic
    tensors, when a functional model is made or before ``fit``'s first step) stops with
    nothing to read; the same ``call`` runs later with values, eagerly or in a compiled
    step that a breakpoint in it runs as Python. So its stops are passed (said once in the
    console), except in ``build()``, which a layer runs once, in this pass. Keras is looked
    up in ``sys.modules``: installed when the program imported it, never imported here."""
    backend = sys.modules.get("keras.src.backend")
    core = sys.modules.get("keras.src.backend.tensorflow.core")
    layer_module = sys.modules.get("keras.src.layers.layer")
    if backend is None or core is None or layer_module is None:
        return False
    original = core.compute_output_spec

    def wrap_pass(original: Any) -> Any:
        def compute_output_spec(fn, *args, **kwargs):
            passing = _passing()
            passing.push(True)
            try:
                return _quiet_region(_called, original, (fn, *args), kwargs)
            finally:
                passing.pop()
                if not passing.stack:
                    _tell_build_pass()

        return compute_output_spec

    # Layers call it as ``backend.compute_output_spec``: every module that holds it.
    for module in (core, backend, sys.modules.get("keras.src.backend.tensorflow")):
        if module is not None and getattr(module, "compute_output_spec", None) is original:
            patch_once(module, "compute_output_spec", wrap_pass)

    def wrap_build(original_build: Any) -> Any:
        def _maybe_build(self, call_spec):
            passing = _passing()
            if not passing.stack:
                return original_build(self, call_spec)
            passing.push(False)  # build() stops
            try:
                return original_build(self, call_spec)
            finally:
                passing.pop()

        return _maybe_build

    patch_once(layer_module.Layer, "_maybe_build", wrap_build)
    return True


def _tell_build_pass() -> None:
    global _told_build_pass
    if _told_build_pass or not debugger_client.line_breakpoints():
        return
    _told_build_pass = True
    _console(
        "tf-debug-repr: Keras's build pass ran layers' call() on symbolic tensors without "
        "stopping (nothing to read there; build() still stops): the values come when the "
        "layer runs (fit, predict, a call; a compiled step holding a breakpoint runs as "
        f"Python). {TRACE_STOPS_ENV}=1 stops there too.\n"
    )


def _name_replica_threads() -> None:
    """MirroredStrategy's ``strategy.run`` called eagerly (in a function run as Python for
    a breakpoint) runs each replica on a thread of its own: named for its replica, so a
    stop there says which one (debuggers list threads by name)."""
    try:
        from tensorflow.python.distribute import mirrored_run
    except Exception:
        return
    cls = getattr(mirrored_run, "_MirroredReplicaThread", None)
    if cls is None:
        return

    def wrap(original: Any) -> Any:
        def __init__(self, *args, **kwargs):
            original(self, *args, **kwargs)
            # Made inside a trace whose stops are passed (the decision trace): the
            # replica's trace, on this thread, is passed too (it has nothing to read).
            stack = _passing().stack
            self._tf_debug_repr_passing = bool(stack) and stack[-1]
            if getattr(_local, "eager", 0) > 0:
                try:
                    device = str(self.devices[self.replica_id]).rpartition("device:")[2]
                    count = len(self.devices)
                    self.name = f"replica {self.replica_id_in_sync_group} of {count} ({device})"
                except Exception:
                    pass

        return __init__

    def wrap_run(original: Any) -> Any:
        def run(self):
            if not getattr(self, "_tf_debug_repr_passing", False):
                return original(self)
            passing = _passing()
            passing.push(True)
            try:
                return original(self)
            finally:
                passing.pop()

        return run

    patch_once(cls, "__init__", wrap)
    if "run" in cls.__dict__:
        patch_once(cls, "run", wrap_run)


def _run_user_lines_eagerly() -> None:
    """Inside a function run as Python for a breakpoint, an eager call that goes through
    AutoGraph (``tf.map_fn``'s function, anything given to ``tf_convert``) runs the user's
    own function, not a converted copy from a generated file: eagerly the two compute the
    same, and only the user's lines hold breakpoints. Traces (graph mode) convert as ever."""
    try:
        from tensorflow.python.autograph.impl import api
        from tensorflow.python.eager import context
    except Exception:
        return
    unconverted = getattr(api, "_call_unconverted", None)

    def wrap(original: Any) -> Any:
        def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
            if getattr(_local, "recorder", None) is not None:
                _note_converted(f)
            if getattr(_local, "eager", 0) > 0 and context.executing_eagerly():
                if unconverted is not None:
                    return unconverted(f, args, kwargs, options, False)
                return f(*args, **(kwargs or {}))
            return original(f, args, kwargs, caller_fn_scope, options)

        return converted_call

    patch_once(api, "converted_call", wrap)
    # Generated code calls ``ag__.converted_call``: a module AutoGraph fills from ``api``'s
    # names at its first conversion, which may have come before this patch.
    extra = getattr(getattr(api, "_TRANSPILER", None), "_extra_locals", None)
    ag_module = extra.get("ag__") if isinstance(extra, dict) else None
    if ag_module is not None and hasattr(ag_module, "converted_call"):
        patch_once(ag_module, "converted_call", wrap)


VECTORIZED_DIFFERENCES = (
    "the same results, stacked as pfor stacks them; floats may differ by rounding (pfor's "
    "batched kernels against one element's), and it is slower"
)
_vectorized_told: set[Any] = set()


def _vectorized_body(loop_fn: Any) -> tuple[str, int] | None:
    """Where a breakpoint lies in what ``pfor`` runs per element: the loop function's own
    code, and for ``tf.vectorized_map``'s loop function the ``fn`` it closes over."""
    table = debugger_client.line_breakpoints()
    if not table:
        return None
    regions = _Regions()
    code = _code_of(loop_fn)
    if code is None:
        return None
    regions.add(code)
    cells = dict(zip(code.co_freevars, getattr(loop_fn, "__closure__", None) or ()))
    if "fn" in cells:
        try:
            inner = _code_of(cells["fn"].cell_contents)
        except ValueError:  # an empty cell
            inner = None
        if inner is not None:
            regions.add(inner)
    return regions.breakpoint_in(table)


def _vectorized_bodies_per_element() -> None:
    """An eager ``tf.vectorized_map`` (in a function run as Python, or in eager code) whose
    body holds a breakpoint runs the body once per element, eagerly, and stacks the results:
    pfor never runs the body per element (it traces it once into a graph of its own), so
    its stops had no values. Elsewhere pfor runs as ever. Said once per breakpoint."""
    try:
        from tensorflow.python.eager import context
        from tensorflow.python.ops import array_ops
        from tensorflow.python.ops.parallel_for import control_flow_ops as pfor_ops
        from tensorflow.python.util import nest
    except Exception:
        return
    try:  # tf.stack's home: array_ops_stack (TF 2.13+), array_ops before
        from tensorflow.python.ops.array_ops_stack import stack
    except ImportError:
        stack = array_ops.stack

    def per_element(loop_fn: Any, count: int) -> Any:
        outputs = [loop_fn(array_ops.constant(i)) for i in range(count)]
        return nest.map_structure(lambda *parts: stack(parts), *outputs)

    def wrap(original: Any) -> Any:
        # vectorized_map calls the module's ``pfor`` by name, so its calls come here too
        def pfor(loop_fn, iters, fallback_to_while_loop=True, parallel_iterations=None, warn=False):
            where = None
            try:
                # the breakpoint table first: without one, nothing else is asked of a call
                if context.executing_eagerly() and not getattr(_local, "in_pfor", False):
                    where = _vectorized_body(loop_fn)
                if where is not None:
                    count = int(iters)
                    if count <= 0 or pfor_ops._loop_fn_has_config(loop_fn):
                        where = None
            except Exception as exc:  # never in the way of the program: pfor as ever
                _report(exc)
                where = None
            if where is None:
                return original(loop_fn, iters, fallback_to_while_loop, parallel_iterations, warn)
            key = (where, getattr(loop_fn, "__code__", None))
            if key not in _vectorized_told:
                _vectorized_told.add(key)
                _console(
                    f"tf-debug-repr: a tf.vectorized_map body runs once per element, eagerly, "
                    f"because a breakpoint at {os.path.basename(where[0])}:{where[1]} lies in "
                    f"it: {VECTORIZED_DIFFERENCES}. It is vectorized again once no breakpoint "
                    f"lies in it; {ENV}=0 keeps it so.\n"
                )
            _local.in_pfor = True
            try:
                return per_element(loop_fn, count)
            finally:
                _local.in_pfor = False

        return pfor

    patch_once(pfor_ops, "pfor", wrap)
