"""Whether a debugger client is looking at this process, and a callback for when one is.

pydevd (and so this plugin) is imported in every Jupyter kernel, debugged or not, and a
program that calls ``debugpy.listen()`` runs long before anyone attaches. "Looking" means:
a client finished configuring the session (DAP ``configurationDone``, PyCharm's ``run``,
both reach ``PyDevdAPI.run``), or pydevd asked one of our providers about a value. Once
seen, a client counts as seen for the rest of the process.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from ...core import debugger
from ...core.patching import patch_once

_lock = threading.Lock()
_seen = False
_client_id = ""  # the DAP client's initialize clientID, lower case ("" before one)
_callbacks: list[Callable[[], None]] = []


def connected() -> bool:
    """True once a client has configured a session (cheap: a flag, or an Event read)."""
    if _seen:
        return True
    constants = sys.modules.get("_pydevd_bundle.pydevd_constants")
    get_debugger = getattr(constants, "get_global_debugger", None)
    try:
        py_db = get_debugger() if get_debugger is not None else None
        if py_db is None:
            return False
        attached = getattr(py_db, "is_attached", None)
        if attached is not None:
            # What debugpy.is_client_connected() reads: DAP configurationDone received.
            return bool(attached())
        # PyCharm's pydevd (its XML protocol, no PyDevdAPI.run to hook): the IDE's ``run``
        # command sets this flag.
        if getattr(py_db, "ready_to_run", False) is True:
            mark_seen()
            return True
        return False
    except Exception:
        return False


def when_connected(callback: Callable[[], None]) -> None:
    """Call ``callback()`` once, when a client is first seen (now, if it already was)."""
    with _lock:
        if not _seen:
            _callbacks.append(callback)
            return
    _run([callback])


def mark_seen() -> None:
    """A client is looking (pydevd asked a provider about a value)."""
    global _seen
    if _seen:
        return
    _seen = True
    _fire()


def _fire() -> None:
    with _lock:
        callbacks, _callbacks[:] = list(_callbacks), []
    _run(callbacks)


def _run(callbacks: list[Callable[[], None]]) -> None:
    for callback in callbacks:
        try:
            callback()
        except Exception as exc:  # never raise into pydevd's reader thread
            try:
                sys.stderr.write(f"tf-debug-repr: on-connect hook failed: {exc!r}\n")
            except Exception:
                pass


def client_id() -> str:
    """The latest DAP client's ``initialize`` clientID, lower case: "jupyterlab" for
    JupyterLab's (and Notebook 7's) debugger, "vscode" for VS Code, also in a notebook
    kernel; "" before any DAP client (and under PyCharm's XML protocol)."""
    return _client_id


def _remember_client(request: object) -> None:
    global _client_id
    try:
        arguments = getattr(request, "arguments", None)
        name = getattr(arguments, "clientID", None) or ""
        _client_id = name.lower() if isinstance(name, str) else ""
    except Exception:
        _client_id = ""


def _install_initialize_hook() -> bool:
    """pydevd keeps nothing of the initialize request but answers it in
    ``PyDevJsonCommandProcessor.on_initialize_request``, looked up by name per request."""
    module = sys.modules.get("_pydevd_bundle.pydevd_process_net_command_json")
    processor = getattr(module, "PyDevJsonCommandProcessor", None)
    if getattr(processor, "on_initialize_request", None) is None:
        return False

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        def on_initialize_request(self: Any, py_db: Any, request: Any) -> Any:
            _remember_client(request)
            return original(self, py_db, request)

        return on_initialize_request

    patch_once(processor, "on_initialize_request", wrap)
    return True


def install() -> bool:
    """Hook the moment a client finishes configuring, note which client it is, and answer
    for pydevd what the lower layers ask of a debugger (``core.debugger``). Never imports
    pydevd."""
    debugger.install(PydevdDebugger())
    try:
        _install_initialize_hook()
    except Exception as exc:  # the tree then keeps its default typing
        try:
            sys.stderr.write(f"tf-debug-repr: client name hook failed: {exc!r}\n")
        except Exception:
            pass
    api = sys.modules.get("_pydevd_bundle.pydevd_api")
    api_class = getattr(api, "PyDevdAPI", None)
    if api_class is None:
        return False

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        def run(self: Any, py_db: Any, *args: Any, **kwargs: Any) -> Any:
            # Seen before the program is let go (launch mode waits on this very call), so
            # a check at the program's ``import tensorflow`` already finds the client.
            global _seen
            _seen = True
            result = original(self, py_db, *args, **kwargs)
            try:
                hide_own_files(py_db)
            except Exception as exc:  # pydevd's internals moved: steps may stop in ours
                try:
                    sys.stderr.write(f"tf-debug-repr: own files not hidden: {exc!r}\n")
                except Exception:
                    pass
            _fire()
            return result

        return run

    patch_once(api_class, "run", wrap)

    def wrap_patterns(original: Callable[..., Any]) -> Callable[..., Any]:
        def set_dont_trace_start_end_patterns(self: Any, py_db: Any, *args: Any) -> Any:
            # debugpy sets the client's patterns (none by default) at launch and attach,
            # replacing pydevd's hook: ours goes back on top of theirs.
            result = original(self, py_db, *args)
            if _seen:
                try:
                    hide_own_files(py_db)
                except Exception:
                    pass
            return result

        return set_dont_trace_start_end_patterns

    if hasattr(api_class, "set_dont_trace_start_end_patterns"):
        patch_once(api_class, "set_dont_trace_start_end_patterns", wrap_patterns)
    return True


# The package's own folder (src/tf_debug_repr, site-packages/tf_debug_repr, or the VS Code
# extension's bundled copy on PYTHONPATH) and AutoGraph's generated copies of the user's code.
_OWN_FOLDER = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_GENERATED = "__autograph_generated_file"


def hide_own_files(py_db: Any) -> bool:
    """Make pydevd treat the plugin's files, and AutoGraph's generated files, as its own
    (``PYDEV_FILE``): never traced, so no step (Step Into, Over, Out, with ``justMyCode``
    or without) stops in them, and never shown in the Call Stack. The plugin's code sits
    between a compiled function's caller and its body when the function runs as Python for
    a breakpoint, and runs in weakref callbacks and resolvers; a generated file runs while
    a function is traced. An installed copy was library code already, but the bundled one
    (on PYTHONPATH) and an editable one counted as the user's. pydevd's own hook for this
    is ``dont_trace_external_files`` (what DAP's ``dontTraceStartPatterns`` sets): wrapped,
    the patterns a client set are kept."""
    previous = py_db.dont_trace_external_files
    if getattr(previous, "tf_debug_repr", False):
        return True
    file_utils = sys.modules.get("pydevd_file_utils")
    normcase = getattr(file_utils, "normcase", os.path.normcase)
    folders = tuple(
        {normcase(os.path.join(f, "")) for f in (_OWN_FOLDER, os.path.realpath(_OWN_FOLDER))}
    )
    generated = normcase(_GENERATED)

    def dont_trace_external_files(abs_path: str) -> bool:
        path = normcase(abs_path)
        return path.startswith(folders) or generated in path or previous(abs_path)

    dont_trace_external_files.tf_debug_repr = True  # type: ignore[attr-defined]
    py_db.dont_trace_external_files = dont_trace_external_files
    clear = getattr(py_db, "clear_dont_trace_start_end_patterns_caches", None)
    if clear is not None:
        clear()
    return True


def pass_through() -> Any:
    """Make pydevd pass over the code the current thread runs until ``resume_stops(token)``:
    no breakpoint stops and no step stops there (pydevd's own marker for code it runs
    itself, ``is_tracing``, which its trace function checks first for every new frame).
    A token to give back, or None where nothing was changed (no debugger, another pydevd)."""
    info = getattr(threading.current_thread(), "additional_info", None)
    if info is None or not isinstance(getattr(info, "is_tracing", None), int):
        return None
    info.is_tracing += 1
    return info


def resume_stops(token: Any) -> None:
    if token is not None:
        token.is_tracing -= 1


# --------------------------------------------------------------------------- the session


_traced = threading.local()


def trace_this_thread() -> None:
    """Have the debugger stop on this thread, one that Python did not start (tf.data's, a
    ``py_function``'s), once per thread: debugpy's ``debug_this_thread()``, else pydevd's own
    ``settrace`` without a stop (PyCharm's and PyDev's pydevd; only once that pydevd is
    connected, or it would try to connect). A thread is marked only once traced: one that
    ran before a client attached is traced at its first call after."""
    if getattr(_traced, "done", False):
        return
    try:
        if not connected():
            return
        debugpy = sys.modules.get("debugpy")
        if debugpy is not None and hasattr(debugpy, "debug_this_thread"):
            debugpy.debug_this_thread()
            _traced.done = True
            return
        pydevd = sys.modules.get("pydevd")
        settrace = getattr(pydevd, "settrace", None)
        if getattr(pydevd, "connected", False) is True and settrace is not None:
            settrace(suspend=False, patch_multiprocessing=False)
            _traced.done = True
    except Exception:  # the thread runs on, untraced: a breakpoint there does not stop
        _traced.done = True  # tried once: not again at every call


def pydb() -> Any:
    """pydevd's debugger (its ``PyDB``), or None: no session, or pydevd not loaded."""
    constants = sys.modules.get("_pydevd_bundle.pydevd_constants")
    get_debugger = getattr(constants, "get_global_debugger", None)
    try:
        return get_debugger() if get_debugger is not None else None
    except Exception:
        return None


def line_breakpoints() -> dict | None:
    """The client's line breakpoints as pydevd keeps them: canonical file name -> {line:
    breakpoint}. pydevd replaces a file's inner dict at each ``setBreakpoints``, so a
    read never sees one half-changed. None without a session."""
    table = getattr(pydb(), "breakpoints", None)
    return table if isinstance(table, dict) else None


_breakpoint_callbacks: list[Callable[[], None]] = []


def when_breakpoints_change(callback: Callable[[], None]) -> bool:
    """Call ``callback()`` (on pydevd's thread) each time the client's breakpoints change,
    once pydevd has them (``PyDB.on_breakpoints_changed``, which every add and removal
    reaches). False where pydevd is not there to hook."""
    module = sys.modules.get("pydevd")
    py_db_class = getattr(module, "PyDB", None)
    if py_db_class is None or not hasattr(py_db_class, "on_breakpoints_changed"):
        return False

    def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
        def on_breakpoints_changed(self: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(self, *args, **kwargs)
            _run(list(_breakpoint_callbacks))
            return result

        return on_breakpoints_changed

    patch_once(py_db_class, "on_breakpoints_changed", wrap)
    _breakpoint_callbacks.append(callback)
    return True


def canonical_path(filename: str) -> str:
    """``filename`` as pydevd keys breakpoints by (absolute, real, case-normalised)."""
    utils = sys.modules.get("pydevd_file_utils")
    try:
        return str(utils.canonical_normalized_path(filename)) if utils else filename
    except Exception:
        return filename


def console_message(text: str) -> bool:
    """Show ``text`` in the client's Debug Console (DAP output, category "console"): the
    program's stderr goes to a terminal with ``console: integratedTerminal``. False when no
    session could take it (the caller then writes to stderr)."""
    py_db = pydb()
    try:
        factory = py_db.cmd_factory
        py_db.writer.add_command(factory.make_console_message(text))
        return True
    except Exception:
        return False


class PydevdDebugger:
    """``core.debugger.Debugger`` for pydevd: what forensics asks of the debugger."""

    def suspension(self) -> Any:
        """pydevd's frames tracker of the current thread's suspension, or None."""
        constants = sys.modules.get("_pydevd_bundle.pydevd_constants")
        py_db = pydb()
        if constants is None or py_db is None:
            return None
        thread_id = constants.get_current_thread_id(threading.current_thread())
        return py_db.suspended_frames_manager.get_frame_tracker(thread_id)

    def count_as_library(self, directory: str) -> None:
        py_db = pydb()
        if py_db is None:
            return
        files = py_db._files_filtering
        roots = list(files._get_library_roots())
        if any((directory + os.sep).startswith(root) for root in roots):
            return
        files.set_library_roots([*roots, directory])
        py_db._clear_caches()
