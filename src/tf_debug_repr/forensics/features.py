"""Registers the forensics features (memory rows, change since the last stop, history) with the
views, once TensorFlow is imported. Each feature is its own module."""

from __future__ import annotations

import os
import sys
from types import ModuleType

CHECK_NUMERICS = "TF_DEBUG_REPR_CHECK_NUMERICS"
_OFF = ("", "0", "false", "off", "no")
_ON = ("1", "true", "on", "yes")


def check_numerics_mode() -> str | None:
    """What the switch asks to stop at: None (off), "nan" (``1``, ``nan``: NaN only, so
    deliberate ±Inf such as attention masks and ``log(0)`` pass) or "nan,inf" (``nan,inf``,
    ``inf``: ±Inf too). NaN always stops once the switch is on. A value not understood
    checks NaN only, and says so."""
    raw = os.environ.get(CHECK_NUMERICS, "").strip().lower()
    if raw in _OFF:
        return None
    if raw in _ON:
        return "nan"
    words = {word.strip() for word in raw.replace("+", ",").split(",")} - {""}
    if not words or not words <= {"nan", "inf"}:
        sys.stderr.write(
            f"tf-debug-repr: {CHECK_NUMERICS}={raw!r} not understood (1, nan or nan,inf): "
            "stopping at NaN only\n"
        )
        return "nan"
    return "nan,inf" if "inf" in words else "nan"


def on_tensorflow(_tf: ModuleType) -> None:
    """At TF's import, on the program's thread: the NaN/Inf check, when the switch asks
    for it. Without the switch this imports nothing. Never raises."""
    mode = check_numerics_mode()
    if mode is None:
        return
    try:
        from . import numerics as numerics_check

        numerics_check.enable(stop_on_inf=mode == "nan,inf")
    except Exception as exc:
        sys.stderr.write(f"tf-debug-repr: {CHECK_NUMERICS} not applied: {exc!r}\n")


def register() -> None:
    from ..core import additions
    from ..core.additions import Slot
    from . import change_views, history_views
    from . import memory as memory_report

    additions.add(Slot.CHILDREN, "change", additions.CHILD_CHANGE, change_views.change_children)
    additions.add(Slot.CHILDREN, "memory", additions.CHILD_MEMORY, memory_report.model_memory)
    additions.add(Slot.MARK, "change", additions.MARK_CHANGE, change_views.change_mark)
    additions.add(Slot.LOOKED_AT, "change", additions.LOOKED_CHANGE, change_views.looked_at)
    additions.add(Slot.CHILDREN, "history", additions.CHILD_HISTORY, history_views.history_children)
    additions.add(Slot.MARK, "history", additions.MARK_HISTORY, history_views.history_mark)
    additions.add(Slot.LOOKED_AT, "history", additions.LOOKED_HISTORY, history_views.looked_at)
