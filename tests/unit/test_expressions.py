"""Expressions written into rows name only the stable facade (``tf_debug_repr._expr``) or
the public API; the old module paths still work (restored viewer panels hold them)."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tf_debug_repr
from tf_debug_repr import _expr, _moved
from tf_debug_repr.core.view_model import FACADE

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
        for path in PACKAGE.rglob("*.py")
        if path.name != "_moved.py"  # the old paths, named to keep them importable
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


def test_every_old_module_path_is_the_module_at_its_new_path():
    """Before the modules moved into subpackages they sat flat in the package: each old
    path imports the very module at its new one (one copy of its state)."""
    for old, new in _moved.MOVED.items():
        module = importlib.import_module(f"tf_debug_repr.{old}")
        assert module is importlib.import_module(f"tf_debug_repr.{new}"), old
        assert module.__name__ == f"tf_debug_repr.{new}"
        assert getattr(tf_debug_repr, old) is module
    assert set(_moved.MOVED.values()) <= {
        ".".join(path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        for path in PACKAGE.rglob("*.py")
    }


def test_old_module_paths_as_restored_panels_write_them():
    for module, names in OLD_PATHS.items():
        loaded = eval(f"__import__({module!r}, fromlist=['_'])", {})  # noqa: S307
        assert all(callable(getattr(loaded, name)) for name in names), module
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tf_debug_repr.no_such_module")


def test_the_old_paths_cost_nothing_at_import():
    """``import tf_debug_repr`` imports none of the moved modules, nor TF, numpy or
    ``importlib.abc`` (which brings ``importlib.resources``)."""
    code = (
        "import sys; import tf_debug_repr; "
        "print(sorted(m for m in sys.modules if m.startswith('tf_debug_repr'))); "
        "print(sorted({'tensorflow', 'numpy', 'keras', 'importlib.abc'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, heavy = out.stdout.strip().splitlines()
    assert loaded == str(
        ["tf_debug_repr", "tf_debug_repr._moved", "tf_debug_repr.core", "tf_debug_repr.core.wiring"]
    )
    assert heavy == "[]"
