"""TensorFlow's and Keras's import, run without pydevd's trace function where nothing in it
could stop.

``import tensorflow`` (with Keras) runs a few thousand library modules; under a debugger,
pydevd's trace function is called for every Python call they make. Measured here (a
program that imports both and builds a layer, the debuggee's CPU to its first stop): 4.7 s
under stock debugpy, 3.1 s with the import untraced, 3.4 s with no debugger at all. So
the import's calls go untraced on the importing thread, and the thread is traced again
the moment the import returns (or raises), when every one of these holds:

- pydevd traces this thread with ``sys.settrace`` (not Python 3.12's ``sys.monitoring``,
  not its frame evaluation mode) and the trace function is pydevd's own (not, say,
  coverage.py's);
- the thread is not stepping and no pause is pending for it (a "step into" on the import
  line goes into TF's code as under stock);
- no function breakpoint, no "raised exceptions" breakpoint and no framework (template)
  breakpoint is set: those can stop in library code;
- every line breakpoint lies in the user's own code (pydevd's own test: not a library
  file), which TF's import does not run.

Where one does not hold, the import runs traced, as under stock debugpy.
``TF_DEBUG_REPR_TRACE_IMPORT=1`` keeps it traced always. Never imports pydevd: it is
looked up in ``sys.modules``.

The same for each op TensorFlow makes while it traces a graph (``lift_op``/``put_back_op``,
called by ``eager/breakpoints.py``'s op-making wrappers, which also rule out the places
where the program's own code runs inside: an input of its own type, op callbacks, a device
function): most of a trace's Python calls are TF's op making. Per op, the trace function
is lifted and put back with the ``sys.settrace`` pydevd replaced (~0.15 us a pair; pydevd's
``SetTrace`` starts a thread each time, ~100 us), the verdict on the line breakpoints'
files is kept until pydevd's ``mtime`` moves, and the thread's stepping state is read each
time. ``sys.settrace`` puts back CPython's trampoline, not pydevd's native one (which
spares a frame's locals a copy at each event), so once the trace is done
``retrampoline`` hands the thread to pydevd's ``SetTrace`` again.
``TF_DEBUG_REPR_TRACE_OPS=1`` keeps op making traced always.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from ...core.settings import switch_on
from . import client

ENV = "TF_DEBUG_REPR_TRACE_IMPORT"
OPS_ENV = "TF_DEBUG_REPR_TRACE_OPS"
NAMES = ("tensorflow", "keras", "tf_keras")  # the packages whose import is run untraced
_STEPPING_STATES = (2,)  # pydevd's STATE_SUSPEND: a pause asked for this thread


def enabled() -> bool:
    return not switch_on(ENV, default=False)


def _debugger() -> Any:
    constants = sys.modules.get("_pydevd_bundle.pydevd_constants")
    if getattr(constants, "PYDEVD_USE_SYS_MONITORING", False):
        return None  # sys.monitoring (Python 3.12+): no trace function to lift
    return client.pydb()


def ops_enabled() -> bool:
    return not switch_on(OPS_ENV, default=False)


def _nothing_could_stop(py_db: Any) -> bool:
    """No breakpoint that library code could hit, and this thread neither stepping nor
    asked to pause."""
    return _no_stop_but_lines(py_db) and _lines_in_project(py_db)


def _lines_in_project(py_db: Any) -> bool:
    """Does every line breakpoint lie in the user's own code?"""
    in_project = py_db.in_project_roots_filename_uncached
    # a copy: pydevd's thread may replace a file's entry meanwhile
    return all(in_project(filename) for filename in list(py_db.breakpoints))


def _no_stop_but_lines(py_db: Any) -> bool:
    """``_nothing_could_stop`` but the line breakpoints' files."""
    if getattr(py_db, "frame_eval_func", None) is not None:
        return False  # frame evaluation mode traces otherwise: left as it is
    if py_db.function_breakpoint_name_to_breakpoint or py_db.break_on_caught_exceptions:
        return False
    if getattr(py_db, "has_plugin_line_breaks", False) or getattr(
        py_db, "has_plugin_exception_breaks", False
    ):
        return False
    info = getattr(threading.current_thread(), "additional_info", None)
    return info is None or (
        getattr(info, "pydev_step_cmd", -1) == -1
        and getattr(info, "pydev_state", None) not in _STEPPING_STATES
    )


def _pydevds(tracer: Any) -> bool:
    """Is ``tracer`` pydevd's trace function (its Cython wrapper, a thread tracer's method,
    ``PyDB.trace_dispatch``)?"""
    owner = getattr(tracer, "__self__", tracer)
    for module in (getattr(type(owner), "__module__", ""), getattr(tracer, "__module__", "")):
        if isinstance(module, str) and module.startswith(("_pydevd", "pydevd")):
            return True
    return False


def pause() -> Any:
    """Lift pydevd's trace function from the current thread where nothing could stop in
    what it runs next (the module docstring). A token for ``resume``; None where nothing
    was changed. Never raises."""
    try:
        if not enabled():
            return None
        tracer = sys.gettrace()
        tracing = sys.modules.get("pydevd_tracing")
        set_trace = getattr(tracing, "SetTrace", None)
        if tracer is None or set_trace is None or not _pydevds(tracer):
            # not traced (a kernel with no debugger), an import inside one, or another
            # tool's trace function (coverage.py's): left as it is
            return None
        py_db = _debugger()
        if py_db is None or not _nothing_could_stop(py_db):
            return None
        set_trace(None)  # pydevd's own call: sys.settrace would print pydevd's warning
        return (set_trace, tracer)
    except Exception:
        return None


def resume(token: Any) -> None:
    """Put back the trace function ``pause`` lifted (nothing for None). Never raises."""
    if token is None:
        return
    set_trace, tracer = token
    try:
        if sys.gettrace() is None:  # pydevd may have traced the thread again meanwhile
            set_trace(tracer)
    except Exception:
        pass


# --------------------------------------------------------------------------- op making

_known: tuple[Any, Any] = (None, None)  # (a trace function found to be pydevd's, raw settrace)
# (debugger, its mtime, its count of breakpoint files, are they all the user's own)
_lines_verdict: tuple[Any, int, int, bool] = (None, -1, -1, False)


def _lines_in_project_cached(py_db: Any) -> bool:
    """``_lines_in_project``, again only once pydevd's ``mtime`` moved (each change of
    breakpoints moves it) or the count of files with breakpoints changed."""
    global _lines_verdict
    known_db, mtime, count, verdict = _lines_verdict
    now, files = py_db.mtime, len(py_db.breakpoints)
    if known_db is py_db and mtime == now and count == files:
        return verdict
    verdict = _lines_in_project(py_db)
    _lines_verdict = (py_db, now, files, verdict)
    return verdict


def lift_op() -> Any:
    """Lift pydevd's trace function from this thread for the op TF makes now, where nothing
    could stop in it (the module docstring). The lifted trace function, for
    ``put_back_op``, or None where nothing was changed. Never raises."""
    global _known
    try:
        tracer = sys.gettrace()
        if tracer is None:
            return None
        known, raw = _known
        if tracer is not known:
            if not _pydevds(tracer) or not ops_enabled():
                return None
            holder = getattr(sys.modules.get("pydevd_tracing"), "TracingFunctionHolder", None)
            raw = getattr(holder, "_original_tracing", None)  # the settrace pydevd replaced
            if raw is None:
                return None
            _known = (tracer, raw)
        py_db = _debugger()
        if (
            py_db is None
            or not _no_stop_but_lines(py_db)
            # "user uncaught exceptions" watch where an exception leaves the user's code:
            # none runs in a lifted op, but op making stays traced, as under stock
            or getattr(py_db, "break_on_user_uncaught_exceptions", None)
            or not _lines_in_project_cached(py_db)
        ):
            return None
        raw(None)
        return tracer
    except Exception:
        return None


def put_back_op(tracer: Any) -> None:
    """Put back the trace function ``lift_op`` lifted (nothing for None). Never raises."""
    if tracer is None:
        return
    try:
        if sys.gettrace() is None:  # pydevd may have traced the thread again meanwhile
            _known[1](tracer)
    except Exception:
        pass


def retrampoline(tracer: Any) -> None:
    """Hand the thread back to pydevd's ``SetTrace`` (its native trampoline) once ops were
    made with ``lift_op``, where ``tracer`` is still its trace function. Never raises."""
    try:
        set_trace = getattr(sys.modules.get("pydevd_tracing"), "SetTrace", None)
        if set_trace is not None and sys.gettrace() is tracer:
            set_trace(tracer)
    except Exception:
        pass
