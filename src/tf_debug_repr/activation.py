"""What the plugin does when debugpy loads it: arrange to act once TensorFlow is imported.

Nothing is patched before the program imports TensorFlow (or Keras) itself; every hook
runs guarded by ``import_hooks``, so a failure never breaks the user's import.
"""

from __future__ import annotations

from types import ModuleType

from . import import_hooks

_activated = False


def _on_tensorflow(tf: ModuleType) -> None:
    from . import eager_switch, gradient_capture

    # Independent features: one failing must not stop the other.
    try:
        eager_switch.apply(tf)
    finally:
        gradient_capture.install_tape_hooks(tf)


def _on_keras(keras: ModuleType) -> None:
    from . import gradient_capture

    gradient_capture.install_keras_hooks(keras)


def _register_views() -> None:
    from . import forensics, gradient_views, views

    views.build_table()
    gradient_views.register()
    forensics.register()


def _register_views_guarded(_tf: ModuleType) -> None:
    try:
        _register_views()
    except Exception as exc:  # the core views still work without these
        import_hooks._report(f"tf-debug-repr: gradient/model views disabled: {exc!r}")


def activate() -> None:
    """Install the post-import hooks once. Never imports TensorFlow itself."""
    global _activated
    if _activated:
        return
    _activated = True
    # The views are registered once TF is imported, so a program that never imports it
    # pays nothing for them at debugger start.
    import_hooks.when_imported("tensorflow", _register_views_guarded)
    import_hooks.when_imported("tensorflow", _on_tensorflow)
    import_hooks.when_imported("keras", _on_keras)
