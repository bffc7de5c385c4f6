"""The layer rule: no import circle among the package's modules, and no module imports
one above its layer. Imports inside functions count too: they hid the old circle
(views -> the kind modules -> views)."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import tf_debug_repr

PACKAGE = Path(tf_debug_repr.__file__).parent
NAME = "tf_debug_repr"

# Lower first. A module imports only its own layer or below.
LAYERS: dict[str, set[str]] = {
    "core": {
        "additions",
        "colour_maps",
        "formatting",
        "guards",
        "import_hooks",
        "patching",
        "pixel_font",
        "png",
        "stats",
        "tf_types",
        "view_model",
        "wiring",
    },
    "dispatch": {"dispatch"},
    "kinds and features": {
        # the kinds
        "attribute_views",
        "composite_views",
        "distribute_views",
        "metric_views",
        "model_views",
        "optimizer_views",
        "preprocessing_views",
        "shape_views",
        "symbolic_views",
        "tape_views",
        "tensor_array_views",
        "tensor_views",
        "variable_views",
        # gradients
        "compiled_capture",
        "gradient_capture",
        "gradient_figures",
        "gradient_records",
        "gradient_views",
        "none_reasons",
        # forensics
        "change_views",
        "forensics",
        "memory_report",
        "numerics_check",
        "stop_snapshots",
        # the viewer
        "histograms",
        "npy_export",
        "payload_pictures",
        "tensor_images",
        "tensor_slices",
        "viewer_payload",
    },
    "catalog": {"catalog"},
    "hosts and wiring": {
        "__init__",
        "__main__",
        "_expr",
        "activation",
        "compiled_breakpoints",
        "dap_client",
        "debugger_client",
        "demo_runner",
        "eager_switch",
        "ipython_display",
        "pydevd_adapter",
        "socket_tuning",
        "views",
    },
}
LAYER_OF = {module: i for i, modules in enumerate(LAYERS.values()) for module in modules}


def _modules() -> set[str]:
    return {path.stem for path in PACKAGE.glob("*.py")}


def _imports(module: str, modules: set[str]) -> set[str]:
    """The package's modules that ``module`` imports, anywhere in it."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                base = node.module
            elif node.level == 0 and (node.module or "").startswith(NAME + "."):
                base = node.module[len(NAME) + 1 :]
            elif node.level == 0 and node.module == NAME:
                base = None
            else:
                continue
            if base:
                found.add(base.split(".")[0])
            else:  # from . import a, b: modules, or names of the package's top level
                found |= {a.name if a.name in modules else "__init__" for a in node.names}
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(NAME + "."):
                    found.add(alias.name.split(".")[1])
    return (found & modules) - {module}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {module: _imports(module, modules) for module in modules}


def test_every_module_has_a_layer():
    assert _modules() - set(LAYER_OF) == set()
    assert set(LAYER_OF) - _modules() == set()


def test_no_import_circle():
    try:
        graphlib.TopologicalSorter(_graph()).prepare()
    except graphlib.CycleError as exc:
        raise AssertionError(f"import circle: {' -> '.join(exc.args[1])}") from None


def test_no_module_imports_a_higher_layer():
    names = list(LAYERS)
    upward = [
        f"{module} ({names[LAYER_OF[module]]}) imports {other} ({names[LAYER_OF[other]]})"
        for module, imported in sorted(_graph().items())
        for other in sorted(imported)
        if LAYER_OF[other] > LAYER_OF[module]
    ]
    assert upward == []


def test_only_the_wiring_imports_the_catalog():
    importers = {m for m, imported in _graph().items() if "catalog" in imported}
    assert importers <= LAYERS["hosts and wiring"], importers
