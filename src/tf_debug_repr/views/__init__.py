"""The public view API, as its callers have always imported it (the adapter, the demo,
the notebook, tests): ``summary``, ``children``, ``console_text``, ``clipboard_text``,
``handles``, ``container_summary``, ``brief``.

The answers come from ``dispatch`` (the questions) and ``catalog`` (one row per kind);
this module only names them and builds the catalog when asked (``activation``).
"""

from __future__ import annotations

from typing import Any

from ..core import wiring as _wiring
from ..core.mappings import presented
from ..core.tf_types import Kind, kind_of
from .dispatch import (
    Row,
    brief,
    children,
    clipboard_text,
    console_text,
    container_summary,
    handles,
    note_looked_at,
    summary,
    values_of,
)

__all__ = [
    "Kind",
    "Row",
    "brief",
    "build_table",
    "children",
    "clipboard_text",
    "console_text",
    "container_summary",
    "handles",
    "kind_of",
    "note_looked_at",
    "presented",
    "summary",
    "values_of",
]


def build_table() -> dict[Any, Row]:
    """The row of every kind, installed once. The catalog imports the view modules, so it
    runs once TF is imported (they may import TF's own modules freely then); it sits above
    the views, so they reach it through the wiring the package's top level set up."""
    return _wiring.install_catalog()
