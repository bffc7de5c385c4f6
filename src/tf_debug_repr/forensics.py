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
        from . import numerics_check

        numerics_check.enable()
    except Exception as exc:
        sys.stderr.write(f"tf-debug-repr: {CHECK_NUMERICS} not applied: {exc!r}\n")


def register() -> None:
    from . import change_views, memory_report, views

    for provider in (change_views.change_children, memory_report.model_memory):
        if provider not in views.extra_children:
            views.extra_children.append(provider)
    if change_views.change_mark not in views.summary_marks:
        # before the gradient's mark, which ends the line (``…@Adam iteration 41``)
        marks = views.summary_marks
        gradient = [i for i, m in enumerate(marks) if getattr(m, "__name__", "") == "gradient_mark"]
        marks.insert(gradient[0] if gradient else len(marks), change_views.change_mark)
    if change_views.looked_at not in views.looked_at:
        views.looked_at.append(change_views.looked_at)
