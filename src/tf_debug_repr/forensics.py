"""Registers the forensics features (memory rows, change since the last stop) with the
views, once TensorFlow is imported. Each feature is its own module."""

from __future__ import annotations


def register() -> None:
    from . import change_views, memory_report, views

    for provider in (change_views.change_children, memory_report.model_memory):
        if provider not in views.extra_children:
            views.extra_children.append(provider)
    if change_views.change_mark not in views.summary_marks:
        views.summary_marks.append(change_views.change_mark)
    if change_views.looked_at not in views.looked_at:
        views.looked_at.append(change_views.looked_at)
