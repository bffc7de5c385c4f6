"""Python's cyclic garbage collector while the program is suspended at a stop.

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
during a stop says False. ``TF_DEBUG_REPR_STOP_GC=1`` keeps the collector running during
stops, as stock debugpy does.
"""

from __future__ import annotations

import gc
import os
import threading
import weakref
from typing import Any

_lock = threading.RLock()  # the callback may run in a thread that holds it (a drop inside)
_paused_for: weakref.ref | None = None  # the stop the collector is off for
KEEP_ENV = "TF_DEBUG_REPR_STOP_GC"


def _wanted() -> bool:
    return os.environ.get(KEEP_ENV, "0").strip().lower() in ("0", "false", "no", "off", "")


def hold_during(stop: Any) -> None:
    """Automatic collections off until ``stop`` (the debugger's suspension object, which it
    drops when the program resumes) is gone; nothing when ``stop`` is None."""
    global _paused_for
    if stop is None or not _wanted():
        return
    with _lock:
        if _paused_for is not None or not gc.isenabled():
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
            gc.enable()


def paused() -> bool:
    """Whether the collector is off for a stop now."""
    return _paused_for is not None
