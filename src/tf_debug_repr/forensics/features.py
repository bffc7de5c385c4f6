"""Registers the forensics features (memory rows, change since the last stop) with the
views, once TensorFlow is imported. Each feature is its own module."""

from __future__ import annotations

import os
import sys
from types import ModuleType

CHECK_NUMERICS = "TF_DEBUG_REPR_CHECK_NUMERICS"


def check_numerics_asked() -> bool:
    return os.environ.get(CHECK_NUMERICS, "").strip().lower() in ("1", "true", "on", "yes")


def on_tensorflow(_tf: ModuleType) -> None:
    """At TF's import, on the program's thread: the NaN/Inf check, when the switch asks
    for it. Without the switch this imports nothing. Never raises."""
    if not check_numerics_asked():
        return
    try:
        from . import numerics as numerics_check

        numerics_check.enable()
    except Exception as exc:
        sys.stderr.write(f"tf-debug-repr: {CHECK_NUMERICS} not applied: {exc!r}\n")


def register() -> None:
    from ..core import additions
    from ..core.additions import Slot
    from . import changes as change_views
    from . import memory as memory_report

    additions.add(Slot.CHILDREN, "change", additions.CHILD_CHANGE, change_views.change_children)
    additions.add(Slot.CHILDREN, "memory", additions.CHILD_MEMORY, memory_report.model_memory)
    additions.add(Slot.MARK, "change", additions.MARK_CHANGE, change_views.change_mark)
    additions.add(Slot.LOOKED_AT, "change", additions.LOOKED_CHANGE, change_views.looked_at)
