"""Expressions written into rows name only the stable facade (``tf_debug_repr._expr``) or
the public API; the old module paths still work (restored viewer panels hold them)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import tf_debug_repr
from tf_debug_repr import _expr
from tf_debug_repr.view_model import FACADE

PACKAGE = Path(tf_debug_repr.__file__).parent
# The module paths that expressions written before the facade named, and what they call.
OLD_PATHS = {
    "tf_debug_repr.guards": ["eagerly"],
    "tf_debug_repr.distribute_views": ["max_difference"],
    "tf_debug_repr.model_views": ["param_count", "gradient_table"],
    "tf_debug_repr.optimizer_views": ["slots_by_weight"],
    "tf_debug_repr.tape_views": ["watched_tensors", "last_gradients"],
}


def test_no_internal_module_path_in_any_expression():
    imported = re.compile(r"__import__\('(tf_debug_repr[\w.]*)'")
    named = {
        (path.name, found)
        for path in PACKAGE.glob("*.py")
        for found in imported.findall(path.read_text(encoding="utf-8"))
    }
    assert {found for _, found in named} <= {"tf_debug_repr", "tf_debug_repr._expr"}, named


def test_the_facade_offers_every_function_the_old_paths_did():
    for module, names in OLD_PATHS.items():
        for name in names:
            assert callable(getattr(_expr, name)), name
            assert callable(getattr(importlib.import_module(module), name)), (module, name)


def test_facade_expressions_evaluate_in_any_frame():
    assert eval(f"{FACADE}.eagerly(lambda v: v + 1, 41)", {}) == 42  # noqa: S307
    with pytest.raises(AttributeError):
        eval(f"{FACADE}.not_there", {})  # noqa: S307
