"""What the plugin does when debugpy loads it: arrange to act once TensorFlow is imported."""

from __future__ import annotations

from types import ModuleType

from . import import_hooks

_activated = False


def _on_tensorflow(tf: ModuleType) -> None:
    # Filled in by the gradient-capture and eager-switch modules as they land.
    pass


def activate() -> None:
    """Install the post-import hooks once. Never imports TensorFlow itself."""
    global _activated
    if _activated:
        return
    _activated = True
    import_hooks.when_imported("tensorflow", _on_tensorflow)
