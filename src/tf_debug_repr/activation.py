"""What the plugin does when debugpy loads it: arrange to act once TensorFlow is imported.

Nothing is patched before the program imports TensorFlow (or Keras) itself; every hook
runs guarded by ``import_hooks``, so a failure never breaks the user's import.

Gradient capture waits for a debugger client as well (``TF_DEBUG_REPR_GRADIENTS`` unset
or "auto"): pydevd, and so this plugin, is loaded in every Jupyter kernel and in every
program that calls ``debugpy.listen()``, looked at or not. The hooks are installed once
both have happened, TF imported and a client seen, in whichever order; "1" installs
them at TF import, "0" never.
"""

from __future__ import annotations

import threading
from types import ModuleType

from . import debugger_client, import_hooks, socket_tuning

_activated = False
_lock = threading.Lock()
_imported: dict[str, ModuleType] = {}  # "tensorflow"/"keras", once fully imported
_installed: set[str] = set()


def _install_capture() -> None:
    """Install the capture hooks for what is imported, if capture is wanted now."""
    with _lock:
        if not _imported or len(_installed) == len(_imported):
            return  # cheap exit: on a client's arrival before TF, nothing is imported
        from . import gradient_capture

        mode = gradient_capture.mode()
        if mode == "off" or (mode == "auto" and not debugger_client.connected()):
            return
        installers = {
            "tensorflow": gradient_capture.install_tape_hooks,
            "keras": gradient_capture.install_keras_hooks,
        }
        for name, module in _imported.items():
            if name in _installed:
                continue
            _installed.add(name)
            try:
                installers[name](module)
            except Exception as exc:  # capture is optional: never break the import
                import_hooks._report(f"tf-debug-repr: {name} capture hooks failed: {exc!r}")


def _on_tensorflow(tf: ModuleType) -> None:
    from . import eager_switch

    # Independent features: one failing must not stop the other.
    try:
        eager_switch.apply(tf)
    finally:
        with _lock:
            _imported["tensorflow"] = tf
        _install_capture()


def _on_keras(keras: ModuleType) -> None:
    with _lock:
        _imported["keras"] = keras
    _install_capture()


def _register_views() -> None:
    from . import gradient_views, model_views, tape_views

    gradient_views.register()
    tape_views.register()
    model_views.register()


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
    debugger_client.when_connected(_install_capture)
    # pydevd's own machinery: tuned only once the hooks above are in place, and each
    # guarded so that nothing here can stop the debugger from starting.
    for name, install in (
        ("TCP_NODELAY", socket_tuning.install),
        ("client hook", debugger_client.install),
    ):
        try:
            install()
        except Exception as exc:
            import_hooks._report(f"tf-debug-repr: {name} not installed: {exc!r}")
