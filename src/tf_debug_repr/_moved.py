"""The package's old module paths (before the modules moved into subpackages), kept
importable for one release: restored viewer panels and Watch expressions may still hold
``__import__('tf_debug_repr.model_views', fromlist=['_']).param_count(m)`` or
``tf_debug_repr.guards.eagerly``. New expressions name only ``tf_debug_repr._expr`` or the
public API.

``tf_debug_repr.<old>`` is the very module object at its new path (one copy of its state),
imported only when asked for: a finder placed last on ``sys.meta_path`` answers only these
names, so ``import tf_debug_repr`` stays as cheap as it was (no ``importlib.abc``: it
imports ``importlib.resources``, some 30 ms).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
from types import ModuleType
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

PACKAGE = __name__.rpartition(".")[0]

# old module name -> its path now, both under the package. ``views`` kept its path (now the
# package, with the same API); ``activation`` and ``forensics`` are packages now.
MOVED: dict[str, str] = {
    "additions": "core.additions",
    "attribute_views": "views.attributes",
    "catalog": "views.catalog",
    "change_views": "forensics.changes",
    "colour_maps": "hosts.notebook.colour_maps",
    "compiled_breakpoints": "eager.breakpoints",
    "compiled_capture": "gradients.compiled",
    "composite_views": "views.composite",
    "dap_client": "hosts.demo.dap_client",
    "debugger_client": "hosts.pydevd.client",
    "demo_runner": "hosts.demo.runner",
    "dispatch": "views.dispatch",
    "distribute_views": "views.distribute",
    "eager_switch": "eager.switch",
    "examples": "hosts.demo.examples",
    "formatting": "core.formatting",
    "gradient_capture": "gradients.capture",
    "gradient_figures": "gradients.figures",
    "gradient_records": "gradients.records",
    "gradient_views": "gradients.views",
    "guards": "core.guards",
    "histograms": "viewer.histograms",
    "import_hooks": "activation.import_hooks",
    "ipython_display": "hosts.notebook.display",
    "memory_report": "forensics.memory",
    "metric_views": "views.metrics",
    "model_views": "views.models",
    "none_reasons": "gradients.none_reasons",
    "npy_export": "viewer.npy",
    "numerics_check": "forensics.numerics",
    "optimizer_views": "views.optimizers",
    "patching": "core.patching",
    "payload_pictures": "hosts.notebook.pictures",
    "pixel_font": "hosts.notebook.pixel_font",
    "png": "hosts.notebook.png",
    "preprocessing_views": "views.preprocessing",
    "pydevd_adapter": "hosts.pydevd.adapter",
    "shape_views": "views.shapes",
    "socket_tuning": "hosts.pydevd.socket_tuning",
    "stats": "core.stats",
    "stop_snapshots": "forensics.snapshots",
    "symbolic_views": "views.symbolic",
    "tape_views": "views.tapes",
    "tensor_array_views": "views.tensor_arrays",
    "tensor_images": "viewer.images",
    "tensor_slices": "viewer.slices",
    "tensor_views": "views.tensors",
    "tf_types": "core.tf_types",
    "variable_views": "views.variables",
    "view_model": "core.view_model",
    "viewer_payload": "viewer.payload",
    "wiring": "core.wiring",
}


class _Alias:
    """Loads an old path as the module at its new path: the placeholder that the import
    system made is replaced in ``sys.modules``, which is what the import then returns."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        sys.modules[module.__name__] = importlib.import_module(self.target)


class _OldPaths:
    def find_spec(self, fullname: str, path: object = None, target: object = None):
        package, _, name = fullname.rpartition(".")
        if package != PACKAGE or name not in MOVED:
            return None
        alias = _Alias(f"{PACKAGE}.{MOVED[name]}")
        return importlib.machinery.ModuleSpec(fullname, cast("Loader", alias))


def install() -> None:
    """Last on ``sys.meta_path``, once: the package's real modules are always found first."""
    if not any(isinstance(finder, _OldPaths) for finder in sys.meta_path):
        sys.meta_path.append(_OldPaths())
