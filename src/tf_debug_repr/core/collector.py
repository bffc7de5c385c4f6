"""Python's cyclic garbage collector while the program is suspended at a stop, and while
TensorFlow is imported under a debugger.

A full collection walks every object the process holds: in a TensorFlow program with a
model built, ~0.2-0.3 s, holding the GIL. Answering a stop allocates (rows, summaries,
pydevd's messages), so one can fall due in the middle of a request: the distributed
model's first expansion in ``benchmarks/training_session.py`` spent 256 ms of its 288 in
one, in the property read that happened to allocate past the threshold.

So from a stop's first request the collector's automatic runs are off (``gc.disable``),
and they are on again when pydevd drops the stop (the program resumes). The program is
not running meanwhile; what the stop leaves as cyclic garbage is collected by the first
collection after the resume, as the program's own would have been. ``gc.collect()``,
``gc.get_objects()`` and ``gc.get_referrers()`` typed in the Debug Console work as ever
(``gc.freeze`` would have hidden the frozen objects from the last two). A thread of the
program that runs on during a stop (a stop that suspends one thread) has no automatic
collection until the resume.

Left alone: a program that switched the collector off itself, and a stop that takes no weak
reference (no sure sign of its end). The one trace it leaves: ``gc.isenabled()`` evaluated
during a stop says False.

**TensorFlow's import.** ``import tensorflow`` with Keras makes millions of objects that
live as long as the process: the collector ran 853 times during it, 6 of them full, 0.66-0.71
s of the import's 3.6-3.9 s of CPU (in a plain process, three runs; 3.15-3.47 s with it off).
No code of the program runs in it, so under a debugger (where pydevd traces the importing
thread: ``hosts/pydevd/quiet_import.py``) the import runs with automatic collections off,
and they are on again the moment it returns or raises; what it left as garbage goes at the
next collection.

``TF_DEBUG_REPR_GC=1`` keeps the collector running during stops and the import, as stock
debugpy does.
"""

from __future__ import annotations

import gc
import os
import threading
import weakref
from typing import Any

_lock = threading.RLock()  # the callback may run in a thread that holds it (a drop inside)
_paused_for: weakref.ref | None = None  # the stop the collector is off for
_import_paused = False  # off for an import (a stop may come inside it: a breakpoint in TF)
KEEP_ENV = "TF_DEBUG_REPR_GC"


def _wanted() -> bool:
    return os.environ.get(KEEP_ENV, "0").strip().lower() in ("0", "false", "no", "off", "")


def hold_during(stop: Any) -> None:
    """Automatic collections off until ``stop`` (the debugger's suspension object, which it
    drops when the program resumes) is gone; nothing when ``stop`` is None."""
    global _paused_for
    if stop is None or not _wanted():
        return
    with _lock:
        if _paused_for is not None or not (gc.isenabled() or _import_paused):
            return  # off already: for this stop, another suspended thread's, or the program's
        try:
            ref = weakref.ref(stop, _resume)
        except TypeError:
            return
        gc.disable()
        _paused_for = ref


def _resume(ref: weakref.ref) -> None:
    global _paused_for
    with _lock:
        if _paused_for is ref:
            _paused_for = None
            if not _import_paused:
                gc.enable()


def paused() -> bool:
    """Whether the collector is off for a stop now."""
    return _paused_for is not None


def pause_import() -> bool:
    """Automatic collections off for an import no code of the program runs in; True where
    this turned them off (for ``resume_import``)."""
    global _import_paused
    with _lock:
        if not _wanted() or not gc.isenabled():
            return False
        gc.disable()
        _import_paused = True
        return True


def resume_import(paused_here: bool) -> None:
    global _import_paused
    if paused_here:
        with _lock:
            _import_paused = False
            if _paused_for is None:  # not held for a stop now
                gc.enable()
