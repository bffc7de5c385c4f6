"""Breakpoints in ``tf.data`` functions: a dataset whose function holds one runs it as Python.

tf.data traces a ``Dataset.map``/``filter``/``flat_map``/``interleave`` function into a graph
when the dataset is made, and its own threads run that graph: a breakpoint there never
stops (tensorflow/tensorflow#48429). The same mechanism as for ``tf.function``s, trace then
decide (``breakpoints``): while a breakpoint is set, the dataset's trace, which tf.data makes
anyway, records the Python code it ran, with its stops passed; if a breakpoint lies in that
code, the dataset's function becomes a ``tf.py_function`` that runs the user's function as
Python, on that element's eager values, and a parallel ``map``/``interleave`` is made
sequential (as ``tf.data.experimental.enable_debug_mode`` does), so the calls come one
element at a time, in order. The dataset keeps its element spec; its elements are the same.
Every other dataset is made as ever (compiled), and a dataset function with no breakpoint
costs nothing more than the trace's recording.

Where tf.data cannot run the function as Python, the Debug Console says which dataset and
why, once: a dataset made while a graph is built (outside any function the debugger runs
as Python), and one made before the breakpoint was set (its graph is made).
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

from ..core.patching import patch_once
from ..core.tf_compat import function_class
from ..hosts.pydevd import client as debugger_client
from . import breakpoints as bp

# tf.data's module and its function behind each Dataset method with ``num_parallel_calls``
# (made sequential where its function runs as Python), TF 2.12 on.
PARALLEL_TRANSFORMATIONS = (("map_op", "_map_v2"), ("interleave_op", "_interleave"))

DATASET_DIFFERENCES = (
    "Its elements are made by Python on tf.data's threads (slower), the same elements in the "
    "same order; a parallel map or interleave is made sequential (num_parallel_calls set "
    "aside; an interleave keeps the cycle length the parallel one had), so the calls come "
    "one element at a time, in order; the "
    "dataset holds a tf.py_function then, so it cannot be saved, snapshotted or sent to the "
    "tf.data service."
)

_local = threading.local()  # .decided: the last wrapper made to run as Python; .reuse
_told: set[tuple[Any, ...]] = set()
_MAX_KEPT = 256


class _Plan:
    """One dataset function being made: what its trace ran, and where it was asked for."""

    def __init__(self, func: Any, transformation: str, eager: bool) -> None:
        self.func = func
        self.transformation = transformation.rstrip("()") or "a tf.data transformation"
        self.eager = eager
        self.regions = bp._Regions()
        code = bp._code_of(func) or bp._code_of(type(func).__dict__.get("__call__"))
        self.code = code
        if code is not None:
            self.regions.add(code)
        self.site = _user_site()

    @property
    def name(self) -> str:
        name = getattr(self.func, "__name__", None) or type(self.func).__name__
        return f"{self.transformation}({name})"

    def where_made(self) -> str:
        return f" (the dataset made at {self.site})" if self.site else ""

    def key(self) -> tuple[Any, ...]:
        return (self.transformation, self.code if self.code is not None else id(self.func))


def _user_site() -> str:
    """``file:line`` of the user's frame that asked for the dataset, or ""."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith("<") and not bp._LIBRARY.search(filename):
            return f"{os.path.basename(filename)}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]
    return ""


def _plan_for(func: Any, transformation: str) -> _Plan | None:
    """A plan when this dataset function is to be decided here: a client is looking, and no
    trace is being recorded already (a dataset made inside a tf.function's or another
    dataset's trace belongs to that trace's decision)."""
    if not debugger_client.connected() or getattr(bp._local, "recording", False):
        return None
    if getattr(bp._local, "dataset", None) is not None:  # made inside another's trace
        return None
    from tensorflow.python.eager import context

    eager = context.executing_eagerly()
    if not eager and getattr(bp._local, "outer", None) is not None:  # in a tf.function's trace
        return None
    return _Plan(func, transformation, eager)


def _decide(plan: _Plan, wrapper: Any) -> None:
    table = debugger_client.line_breakpoints()
    where = plan.regions.breakpoint_in(table) if table else None
    if where is None:
        graph_only = _graph_only(plan.func) if table else None
        if graph_only is not None:
            name, what = graph_only
            _tell_once(
                ("graph only", plan.transformation, name),
                f"tf-debug-repr: the {plan.transformation}({name}) function"
                f"{plan.where_made()} is {what}, with no Python to run: its elements are "
                "made by that graph, so no breakpoint stops in it (a breakpoint in the code "
                "it was made from stops where the dataset is given that Python function).\n",
            )
        if plan.eager:
            _keep_compiled(plan, wrapper)
        return
    if not plan.eager:
        _tell_once(
            ("graph", plan.key(), where),
            f"tf-debug-repr: the breakpoint at {_at(where)} lies in the {plan.name} function"
            f"{plan.where_made()}, made while a graph was built (outside any function the "
            "debugger runs as Python: tf.compat.v1 graph code, or a function traced for an "
            "export): its elements are made by that graph, never by Python, so it stops only "
            "while the function is traced, if at all.\n",
        )
        return
    as_python(wrapper, plan.name)
    _local.decided = wrapper
    _tell_once(
        ("eager", plan.key(), where),
        f"tf-debug-repr: the {plan.name} function{plan.where_made()} now runs as Python for "
        f"each element, because a breakpoint at {_at(where)} lies in code it runs; the other "
        f"datasets stay compiled. {DATASET_DIFFERENCES} {bp.EAGER_DIFFERENCES}\n",
    )


def _graph_only(func: Any) -> tuple[str, str] | None:
    """(its name, what it is) for a dataset function that is only a graph: a function
    restored from a SavedModel, a concrete function (traced already); None otherwise."""
    import re

    kind = type(func)
    names = {c.__name__ for c in kind.__mro__}
    if "RestoredFunction" in names:
        concrete = getattr(func, "concrete_functions", None) or []
        raw: Any = getattr(concrete[0], "name", b"") if concrete else b""
        if isinstance(raw, bytes):
            raw = raw.decode(errors="replace")
        match = re.match(r"__inference_(.+?)_\d+$", str(raw))
        name = match.group(1) if match else "a restored function"
        return name, "a function restored from a SavedModel (a graph)"
    if "ConcreteFunction" in names:
        raw = getattr(func, "name", b"")
        if isinstance(raw, bytes):
            raw = raw.decode(errors="replace")
        match = re.match(r"__inference_(.+?)_\d+$", str(raw))
        name = match.group(1) if match else str(raw) or "a concrete function"
        return name, "a concrete function (a graph traced already)"
    return None


def _at(where: tuple[str, int]) -> str:
    return f"{os.path.basename(where[0])}:{where[1]}"


def _tell_once(key: tuple[Any, ...], text: str) -> None:
    if key in _told:
        return
    _told.add(key)
    bp._console(text)


# --------------------------------------------------------------------------- as Python


def as_python(wrapper: Any, name: str = "") -> None:
    """Make a ``StructuredFunctionWrapper`` (traced: its output structure is known) run its
    Python function for each element: its graph becomes one ``tf.py_function`` call, as in
    tf.data's debug mode, with the same input and output structure."""
    from tensorflow.python.data.ops import structured_function
    from tensorflow.python.data.util import structure
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import script_ops

    func = wrapper._func
    thread_name = f"tf.data {name}" if name else ""
    input_structure = wrapper._input_structure
    output_structure = wrapper._output_structure
    unpack = getattr(structured_function, "_should_unpack", lambda a: type(a) is tuple)
    pack = getattr(structured_function, "_should_pack", lambda a: type(a) is list)
    as_tensors = _variables_to_tensors()

    def element(*flat: Any) -> list:
        debugger_client.trace_this_thread()
        _name_thread(thread_name)
        args = structure.from_compatible_tensor_list(input_structure, flat)
        if not unpack(args):
            args = (args,)
        # tf.functions it calls and that were traced only inside its trace run as Python
        # with it (their code path may lead to the breakpoint), as in a tf.function.
        bp._local.eager = getattr(bp._local, "eager", 0) + 1
        try:
            result = func(*args)
        finally:
            bp._local.eager -= 1
        result = as_tensors(result)
        if pack(result):
            result = tuple(result)
        flat_result = structure.to_tensor_list(output_structure, result)
        return [ops.convert_to_tensor(t) for t in flat_result]

    types = structure.get_flat_tensor_types(output_structure)

    def run_element(*flat: Any) -> Any:
        return script_ops.eager_py_func(element, flat, types)

    graph_name: Any = getattr(wrapper._function, "name", "dataset_function")
    if isinstance(graph_name, bytes):
        graph_name = graph_name.decode(errors="replace")
    wrapper._function = _dataset_function(
        run_element, f"{graph_name}_as_python", structure.get_flat_tensor_specs(input_structure)
    )
    wrapper._tf_debug_repr_as_python = True
    wrapper._tf_debug_repr_name = name


def _dataset_function(python_function: Callable, name: str, signature: Any) -> Any:
    """The concrete function of ``python_function`` marked as tf.data's own, as
    ``StructuredFunctionWrapper`` makes it: through ``tf.function``'s attributes (TF 2.10+),
    or TF 2.9's ``defun_with_attributes``."""
    attributes: dict[str, Any] = {"_tf_data_function": True}
    try:
        function = function_class()(
            python_function=python_function,
            name=name,
            input_signature=signature,
            autograph=False,
            experimental_attributes=attributes,
        )
    except TypeError:  # TF 2.9: no experimental_attributes
        from tensorflow.python.eager import function as eager_function

        attributes["func_name"] = name
        function = eager_function.defun_with_attributes(
            python_function, input_signature=signature, attributes=attributes, autograph=False
        )
    return function.get_concrete_function()


def _variables_to_tensors() -> Callable[[Any], Any]:
    """TF's own conversion of the variables a dataset function returns into tensors (TF
    2.10+), or, before it (TF 2.9, its own Jupyter image), the same for plain variables."""
    try:
        from tensorflow.python.util import variable_utils
    except ImportError:
        import tensorflow as tf

        def convert(value: Any) -> Any:
            return tf.convert_to_tensor(value) if isinstance(value, tf.Variable) else value

        return lambda result: tf.nest.map_structure(convert, result)
    return variable_utils.convert_variables_to_tensors


def _name_thread(name: str) -> None:
    """A tf.data thread (Python knows it as ``Dummy-6``) is named for the dataset whose
    function it runs now, so a stop there says which (debuggers list threads by name).
    Threads Python started keep their names."""
    if not name:
        return
    thread = threading.current_thread()
    if isinstance(thread, threading._DummyThread) and thread.name != name:
        try:
            thread.name = name
        except Exception:
            pass


# --------------------------------------------------------------------------- made before


class _Compiled:
    __slots__ = ("plan", "wrapper")

    def __init__(self, plan: _Plan, wrapper: Any) -> None:
        self.plan = plan
        self.wrapper = weakref.ref(wrapper)


_compiled: dict[tuple[Any, ...], _Compiled] = {}
_watching = False


def _keep_compiled(plan: _Plan, wrapper: Any) -> None:
    """Remember a dataset made compiled while its dataset lives: a breakpoint set in its
    code later is said to never stop there."""
    global _watching
    if not plan.regions.spans:  # no code of the user's (a library's dataset)
        return
    plan.func = _name_only(plan.func)  # the plan must not keep the user's function alive
    key = (*plan.key(), plan.site)
    kept = _compiled.get(key)
    if kept is not None and kept.wrapper() is not None:
        return
    if len(_compiled) >= _MAX_KEPT:
        for stale in [k for k, v in _compiled.items() if v.wrapper() is None]:
            del _compiled[stale]
        if len(_compiled) >= _MAX_KEPT:
            return
    _compiled[key] = _Compiled(plan, wrapper)
    if not _watching:
        _watching = debugger_client.when_breakpoints_change(_breakpoints_changed)


class _Named:
    __slots__ = ("__name__",)

    def __init__(self, name: str) -> None:
        self.__name__ = name


def _name_only(func: Any) -> Any:
    return _Named(getattr(func, "__name__", None) or type(func).__name__)


def _breakpoints_changed() -> None:
    table = debugger_client.line_breakpoints()
    if not table:
        return
    for kept in list(_compiled.values()):
        if kept.wrapper() is None or getattr(kept.wrapper(), "_tf_debug_repr_as_python", False):
            continue
        plan = kept.plan
        where = plan.regions.breakpoint_in(table)
        if where is None:
            continue
        _tell_once(
            ("made before", plan.key(), plan.site, where),
            f"tf-debug-repr: the breakpoint at {_at(where)} lies in the {plan.name} function"
            f"{plan.where_made()}, made before the breakpoint was set: tf.data made it into "
            "a graph then, so that dataset runs it compiled and never stops there. A "
            "dataset made after the breakpoint is set (run the line that makes it again) "
            "runs it as Python and stops at each element.\n",
        )


# --------------------------------------------------------------------------- install


def install() -> bool:
    """Wrap tf.data's function wrapper (trace, then decide) and the parallel transformations
    (made sequential when their function runs as Python)."""
    from tensorflow.python.data.ops import structured_function

    def wrap_init(original: Any) -> Any:
        def __init__(self, func, transformation_name, *args, **kwargs):
            reuse = getattr(_local, "reuse", None)
            if reuse is not None and reuse._func is func:
                _local.reuse = None
                self.__dict__.update(reuse.__dict__)  # decided already: no second trace
                return None
            try:
                plan = _plan_for(func, str(transformation_name))
            except Exception as exc:  # never in the way of the program: made as ever
                bp._report(exc)
                plan = None
            if plan is None:
                return original(self, func, transformation_name, *args, **kwargs)
            previous = getattr(bp._local, "dataset", None)
            bp._local.dataset = plan
            # The trace that decides: a breakpoint it reaches lies in code it ran, so the
            # function then runs as Python and stops there with values.
            passing = (
                plan.eager
                and bool(debugger_client.line_breakpoints())
                and sys.getprofile() is None
                and not bp.trace_stops()
            )
            if passing:
                bp._passing().push(True)
            try:
                original(self, func, transformation_name, *args, **kwargs)
            finally:
                if passing:
                    bp._passing().pop()
                bp._local.dataset = previous
            try:
                _decide(plan, self)
            except Exception as exc:  # it stays compiled
                bp._report(exc)
            return None

        return __init__

    # Where each parallel transformation is made, found before anything is patched, so
    # that a TF laid out otherwise changes nothing: its datasets stay as under stock, and
    # the caller says so.
    parallel = _parallel_transformations()
    patch_once(structured_function.StructuredFunctionWrapper, "__init__", wrap_init)
    for owner, function_name in parallel:
        patch_once(owner, function_name, _sequential_when_as_python)
    return True


def _parallel_transformations() -> list[tuple[Any, str]]:
    """(owner, name) of each transformation with ``num_parallel_calls``: TF 2.12+ makes
    them in a module each (``map_op._map_v2(input_dataset, map_func, ...)``); TF 2.9-2.11
    in the ``Dataset`` methods themselves (``DatasetV2.map(self, map_func, ...)``, the
    same parameters after the dataset), which TF 2.9's own Jupyter image runs. There only
    ``map`` is made sequential: a parallel interleave remade so stopped in another order
    than the one its elements come in under TF 2.9 (its function still runs as Python, its
    calls may overlap)."""
    import importlib

    try:
        modules = [
            (importlib.import_module(f"tensorflow.python.data.ops.{module_name}"), name)
            for module_name, name in PARALLEL_TRANSFORMATIONS
        ]
    except ImportError:
        from tensorflow.python.data.ops import dataset_ops

        return [(dataset_ops.DatasetV2, "map")]
    return [(module, name) for module, name in modules if hasattr(module, name)]


def _autotuned(cycle_length: Any) -> bool:
    if cycle_length is None:
        return True
    try:
        return int(cycle_length) < 0  # tf.data.AUTOTUNE
    except Exception:  # a tensor TF resolves later: keep what the program asked for
        return True


def _max_parallelism() -> int:
    """The CPUs this process may run on: TF's ``port::MaxParallelism()`` on Linux."""
    try:
        return len(os.sched_getaffinity(0))
    except Exception:
        return os.cpu_count() or 1


def _parallel_cycle_length(cycle_length: Any, num_parallel_calls: Any) -> tuple[Any, str]:
    """The cycle length a parallel interleave with an autotuned (default) ``cycle_length``
    uses (tf.data's ``ComputeCycleLength``): ``min(num_parallel_calls, CPUs)``, or with
    ``num_parallel_calls=AUTOTUNE`` the CPUs divided by 3, rounded up. (None, why) where it
    is not known here."""
    if cycle_length is not None:
        try:
            int(cycle_length)  # tf.data.AUTOTUNE, as the default
        except Exception:
            return None, "its cycle_length is a tensor only known when the dataset runs"
    try:
        calls = int(num_parallel_calls)
    except Exception:
        return None, "its num_parallel_calls is a tensor only known when the dataset runs"
    cpus = _max_parallelism()
    if calls < 0:  # tf.data.AUTOTUNE
        return -(-cpus // 3), ""
    if calls > cpus:
        # the parallel dataset fails when iterated (num_parallel_calls > its cycle
        # length, the CPUs): kept as it is, so it fails as in a plain run
        return None, (
            f"its num_parallel_calls ({calls}) is more than the {cpus} CPUs its cycle length "
            "follows (tf.data refuses it when the dataset runs, as in a plain run)"
        )
    return calls, ""


def _sequential_when_as_python(original: Callable) -> Callable:
    signature = inspect.signature(original)

    def transformation(input_dataset, func, *args, **kwargs):
        _local.decided = None
        dataset = original(input_dataset, func, *args, **kwargs)
        decided, _local.decided = getattr(_local, "decided", None), None
        if decided is None or decided._func is not func:
            return dataset
        try:
            bound = signature.bind(input_dataset, func, *args, **kwargs)
        except TypeError:
            return dataset
        bound.apply_defaults()
        if bound.arguments.get("num_parallel_calls") is None:
            return dataset
        if "cycle_length" in bound.arguments and _autotuned(bound.arguments["cycle_length"]):
            # A parallel interleave's own cycle length follows num_parallel_calls (and
            # differs from a sequential one's): the sequential one is given the parallel
            # one's, so its order stays; where it cannot be known, kept parallel and said.
            cycle, why = _parallel_cycle_length(
                bound.arguments["cycle_length"], bound.arguments["num_parallel_calls"]
            )
            if cycle is None:
                name = getattr(decided, "_tf_debug_repr_name", "") or "Dataset.interleave"
                _tell_once(
                    ("parallel", name, why),
                    f"tf-debug-repr: the {name} function runs as Python, but its calls stay "
                    f"parallel (they may overlap, in any order) because {why}. Give "
                    "interleave a cycle_length to have its calls come one at a time, in "
                    "order.\n",
                )
                return dataset
            bound.arguments["cycle_length"] = cycle
        # Made again, sequential, with the function decided above (no second trace): the
        # calls come one element at a time, in order; a deterministic parallel
        # transformation yields the same elements in the same order.
        bound.arguments["num_parallel_calls"] = None
        bound.arguments["deterministic"] = None
        _local.reuse = decided
        try:
            return original(*bound.args, **bound.kwargs)
        except Exception as exc:  # keep the parallel one (its function runs as Python)
            bp._report(exc)
            return dataset
        finally:
            _local.reuse = None

    return transformation
