"""Expressions written into rows name only the stable facade (``tf_debug_repr._expr``) or
the public API (``tf_debug_repr``'s ``__all__``): the two module paths users' Watch
expressions, copied expressions and restored viewer panels hold. No other module path is
public; nothing is released yet, so no old path is kept."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tf_debug_repr
from tf_debug_repr import _expr
from tf_debug_repr.core.view_model import FACADE

PACKAGE = Path(tf_debug_repr.__file__).parent
EXTENSION = PACKAGE.parents[1] / "vscode-ext" / "src"
IMPORTED = re.compile(r"""__import__\((['"])(tf_debug_repr[\w.]*)\1[^)]*\)\)?\.(\w+)""")
# ``{MODULE}.name`` / ``{FACADE}.name`` in an f-string: MODULE is FACADE in every view module
ON_FACADE = re.compile(r"\{(?:MODULE|FACADE)\}\.(\w+)")
# the extension's ``${PACKAGE}.name`` in a template literal, PACKAGE being the package itself
ON_PACKAGE = re.compile(r"\$\{PACKAGE\}\.(\w+)")
JS_PACKAGE = "const PACKAGE = \"__import__('tf_debug_repr')\";"


def _sources() -> list[Path]:
    found = list(PACKAGE.rglob("*.py"))
    if EXTENSION.is_dir():  # the checkout (an installed wheel has no extension beside it)
        found += [p for p in EXTENSION.rglob("*.js") if "test" not in p.parts]
    return found


def test_no_internal_module_path_in_any_expression():
    named = {
        (path.name, module)
        for path in _sources()
        for _, module, _ in IMPORTED.findall(path.read_text(encoding="utf-8"))
    }
    assert named, "no expression found: the pattern no longer matches how they are written"
    assert {module for _, module in named} <= {"tf_debug_repr", "tf_debug_repr._expr"}, named


def test_every_function_an_expression_names_exists():
    """What the views and the extension write resolves: a name of the public API, or a
    function of the facade."""
    public = set(tf_debug_repr.__all__)
    missing = []
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        for _, module, name in IMPORTED.findall(text):
            if module == "tf_debug_repr" and name not in public:
                missing.append((path.name, module, name))
            if module == "tf_debug_repr._expr" and not callable(getattr(_expr, name, None)):
                missing.append((path.name, module, name))
        for name in ON_FACADE.findall(text):
            if not callable(getattr(_expr, name, None)):
                missing.append((path.name, "_expr", name))
        for name in ON_PACKAGE.findall(text):
            if JS_PACKAGE not in text or name not in public:
                missing.append((path.name, "PACKAGE", name))
    assert missing == []
    assert all(callable(getattr(tf_debug_repr, name)) for name in public - {"__version__"})


def test_facade_expressions_evaluate_in_any_frame():
    assert eval(f"{FACADE}.eagerly(lambda v: v + 1, 41)", {}) == 42  # noqa: S307
    with pytest.raises(AttributeError):
        eval(f"{FACADE}.not_there", {})  # noqa: S307


def test_the_flat_paths_of_before_the_rooms_are_gone():
    """The modules sat flat in the package before they moved into rooms; no release had
    them, so they are not importable (one module, one path)."""
    for old in ("tf_debug_repr.model_views", "tf_debug_repr.guards", "tf_debug_repr.png"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)


def test_import_costs_nothing():
    """``import tf_debug_repr`` imports no view module, nor TF, numpy or
    ``importlib.abc`` (which brings ``importlib.resources``)."""
    code = (
        "import sys; import tf_debug_repr; "
        "print(sorted(m for m in sys.modules if m.startswith('tf_debug_repr'))); "
        "print(sorted({'tensorflow', 'numpy', 'keras', 'importlib.abc'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, heavy = out.stdout.strip().splitlines()
    assert loaded == str(["tf_debug_repr", "tf_debug_repr.core", "tf_debug_repr.core.wiring"])
    assert heavy == "[]"
