"""Python's cyclic garbage collector while the program is suspended at a stop.

A full collection walks every object the process holds: in a TensorFlow program with a
model built, ~0.2-0.3 s, holding the GIL. Answering a stop allocates (rows, summaries,
pydevd's messages), so one can fall due in the middle of a request: the distributed
model's first expansion in ``benchmarks/training_session.py`` spent 256 ms of its 288 in
one, in the property read that happened to allocate past the threshold.

So from a stop's first request no *full* collection runs by itself: the oldest
generation's threshold is set out of reach (``gc.set_threshold``), and the program's own
thresholds come back when pydevd drops the stop (the program resumes). The young
generations are still collected as ever (a few ms at most: they hold only what is recent),
so what a long evaluation in the Debug Console leaves as cyclic garbage goes as it would
under stock debugpy; only what had grown old before it died waits for the resume, when
the first full collection due takes it. ``gc.collect()``, ``gc.get_objects()`` and
``gc.get_referrers()`` typed in the console work as ever (``gc.freeze`` would have hidden
the frozen objects from the last two), and ``gc.isenabled()`` stays what it was; the one
trace left is ``gc.get_threshold()``'s last number during a stop.

Left alone: a program that switched the collector off itself, thresholds the program
changed during the stop (kept at the resume), a stop that takes no weak reference (no sure
sign of its end), and Python 3.14's incremental collector (its old generation is collected
a piece at a time: no long pause to move). ``TF_DEBUG_REPR_STOP_GC=1`` keeps full
collections running during stops, as stock debugpy does.
"""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from typing import Any

from .settings import switch_on

_lock = threading.RLock()  # the callback may run in a thread that holds it (a drop inside)
_paused_for: weakref.ref | None = None  # the stop full collections are held for
_saved: tuple[int, ...] = ()  # the program's thresholds, put back at the resume
_set: tuple[int, ...] = ()  # the thresholds set for the stop
NO_FULL = 2**31 - 1  # the oldest generation's threshold during a stop: never reached
KEEP_ENV = "TF_DEBUG_REPR_STOP_GC"


def _wanted() -> bool:
    return sys.version_info < (3, 14) and not switch_on(KEEP_ENV, default=False)


def hold_during(stop: Any) -> None:
    """No full collection by itself until ``stop`` (the debugger's suspension object, which
    it drops when the program resumes) is gone; nothing when ``stop`` is None."""
    global _paused_for, _saved, _set
    if stop is None or not _wanted():
        return
    with _lock:
        if _paused_for is not None or not gc.isenabled():
            return  # held already (this stop, another suspended thread's), or the program's
        thresholds = gc.get_threshold()
        if len(thresholds) != 3:
            return
        try:
            ref = weakref.ref(stop, _resume)
        except TypeError:
            return
        _saved = thresholds
        _set = (thresholds[0], thresholds[1], NO_FULL)
        gc.set_threshold(*_set)
        _paused_for = ref


def _resume(ref: weakref.ref) -> None:
    global _paused_for
    with _lock:
        if _paused_for is ref:
            _paused_for = None
            if gc.get_threshold() == _set:  # not changed by the program meanwhile
                gc.set_threshold(*_saved)


def paused() -> bool:
    """Whether full collections are held for a stop now."""
    return _paused_for is not None
