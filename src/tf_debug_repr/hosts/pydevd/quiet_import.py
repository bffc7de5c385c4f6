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
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from . import client

ENV = "TF_DEBUG_REPR_TRACE_IMPORT"
NAMES = ("tensorflow", "keras", "tf_keras")  # the packages whose import is run untraced
_STEPPING_STATES = (2,)  # pydevd's STATE_SUSPEND: a pause asked for this thread


def enabled() -> bool:
    return os.environ.get(ENV, "0").strip().lower() in ("0", "false", "no", "off", "")


def _debugger() -> Any:
    constants = sys.modules.get("_pydevd_bundle.pydevd_constants")
    if getattr(constants, "PYDEVD_USE_SYS_MONITORING", False):
        return None  # sys.monitoring (Python 3.12+): no trace function to lift
    return client.pydb()


def _nothing_could_stop(py_db: Any) -> bool:
    """No breakpoint that library code could hit, and this thread neither stepping nor
    asked to pause."""
    if getattr(py_db, "frame_eval_func", None) is not None:
        return False  # frame evaluation mode traces otherwise: left as it is
    if py_db.function_breakpoint_name_to_breakpoint or py_db.break_on_caught_exceptions:
        return False
    if getattr(py_db, "has_plugin_line_breaks", False) or getattr(
        py_db, "has_plugin_exception_breaks", False
    ):
        return False
    info = getattr(threading.current_thread(), "additional_info", None)
    if info is not None and (
        getattr(info, "pydev_step_cmd", -1) != -1
        or getattr(info, "pydev_state", None) in _STEPPING_STATES
    ):
        return False
    in_project = py_db.in_project_roots_filename_uncached
    # a copy: pydevd's thread may replace a file's entry meanwhile
    return all(in_project(filename) for filename in list(py_db.breakpoints))


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
