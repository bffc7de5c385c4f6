"""Registers the forensics features (memory rows, change since the last stop) with the
views, once TensorFlow is imported. Each feature is its own module."""

from __future__ import annotations


def register() -> None:
    from . import memory_report, views

    if memory_report.model_memory not in views.extra_children:
        views.extra_children.append(memory_report.model_memory)
