"""What the plugin does when debugpy loads it: arrange to act once TensorFlow is imported.

Nothing is patched before the program imports TensorFlow (or Keras) itself; every hook
runs guarded by ``import_hooks``, so a failure never breaks the user's import.

The gradient/model views and gradient capture also wait for a debugger client: pydevd,
and so this plugin, is loaded in every Jupyter kernel and in every program that calls
``debugpy.listen()``, looked at or not. They are set up once both have happened, TF
imported and a client seen, in whichever order. ``TF_DEBUG_REPR_GRADIENTS``: unset or
"auto" is this; "1" installs the capture hooks at TF import, "0" never. In "auto",
``%load_ext tf_debug_repr`` is consent too (``notebook_consent``): the capture hooks
install then (or at TF's import), and ``%unload_ext`` stops capture unless a debugger
client is looking.
"""

from __future__ import annotations

import threading
from types import ModuleType

from ..hosts.pydevd import client as debugger_client
from ..hosts.pydevd import quiet_import, socket_tuning
from . import import_hooks

_activated = False
_lock = threading.Lock()  # taken without blocking: see _arm
_rerun = False  # work asked for since the holder of _lock last looked
_imported: dict[str, ModuleType] = {}  # "tensorflow"/"keras"/"tf_keras", once imported
_done: set[str] = set()  # "views", and the modules whose capture hooks are installed
_consent = False  # %load_ext tf_debug_repr: capture gradients without a debugger client


def _arm() -> None:
    """Once TF is imported and a client is looking: register the gradient/model views and
    install the capture hooks (the hooks without a client too when the switch says "1").

    Runs on the program's thread (at an import) or on pydevd's reader thread (a client
    arriving). The lock is never waited for: the program's thread may hold an import
    lock that this very work (on the other thread) needs, so a busy ``_arm`` is asked to
    run once more instead."""
    global _rerun
    _rerun = True  # before trying the lock: a holder about to leave sees it and runs again
    while _rerun:
        if not _lock.acquire(blocking=False):
            return
        try:
            _rerun = False
            _arm_locked()
        finally:
            _lock.release()


def _arm_locked() -> None:
    if not _imported or _done >= {"views", *_imported}:
        if _imported and debugger_client.connected():
            _resume_capture()  # after an %unload_ext: the client wants it again
        return  # cheap exit: a client arriving before TF, or all done
    looking = debugger_client.connected()
    tf = _imported.get("tensorflow")
    if looking and tf is not None and "views" not in _done:
        _done.add("views")
        _register_views_guarded(tf)
        _install_compiled_breakpoints()
    if looking and "views" in _done and "keras" in _imported and "keras pass" not in _done:
        _done.add("keras pass")
        _install_compiled_breakpoints(keras=True)
    from ..gradients import capture as gradient_capture

    mode = gradient_capture.mode()
    if mode == "off" or (mode == "auto" and not (looking or _consent)):
        return
    gradient_capture.set_auto(True)
    installers = {
        "tensorflow": gradient_capture.install_tape_hooks,
        "keras": gradient_capture.install_keras_hooks,
        "tf_keras": gradient_capture.install_keras_hooks,  # Keras 2 (TF_USE_LEGACY_KERAS=1)
    }
    for name, module in list(_imported.items()):
        if name in _done:
            continue
        _done.add(name)
        try:
            installers[name](module)
        except Exception as exc:  # capture is optional: never break the import
            import_hooks._report(f"tf-debug-repr: {name} capture hooks failed: {exc!r}")


def _resume_capture() -> None:
    from ..gradients import capture as gradient_capture

    gradient_capture.set_auto(True)


def notebook_consent(on: bool) -> None:
    """``%load_ext tf_debug_repr`` (on) and ``%unload_ext`` (off): in "auto" mode, capture
    gradients from now on as a debugger client would have it (the hooks install now if TF
    is imported, else at its import); off stops recording unless a client is looking. The
    switch's "1" and "0" are the user's word and stay as they are."""
    global _consent
    _consent = bool(on)
    from ..gradients import capture as gradient_capture

    if gradient_capture.mode() != "auto":
        return
    if on:
        activate()  # a shell without debugpy: the import hooks, at least
        _arm()
    elif not debugger_client.connected():
        gradient_capture.set_auto(False)


def _on_tensorflow(tf: ModuleType) -> None:
    from ..eager import switch as eager_switch
    from ..forensics import features as forensics

    forensics.on_tensorflow(tf)  # TF_DEBUG_REPR_CHECK_NUMERICS; never raises

    # Independent features: one failing must not stop the other.
    try:
        eager_switch.apply(tf)
    finally:
        _imported["tensorflow"] = tf
        _arm()


def _on_keras(keras: ModuleType) -> None:
    _imported[keras.__name__] = keras  # "keras", or "tf_keras"
    _arm()


def _register_views() -> None:
    from .. import views
    from ..core import bounded
    from ..forensics import features as forensics
    from ..views import activations as activation_views
    from ..views import gradients as gradient_views

    views.build_table()
    gradient_views.register()
    activation_views.register()
    forensics.register()
    bounded.warm()  # its thread started before a stop, not inside the first request


def _register_views_guarded(_tf: ModuleType) -> None:
    try:
        _register_views()
    except Exception as exc:  # the core views still work without these
        import_hooks._report(f"tf-debug-repr: gradient/model views disabled: {exc!r}")


def _install_compiled_breakpoints(keras: bool = False) -> None:
    """Breakpoints inside tf.functions: the functions holding one run eagerly (``keras``:
    Keras 3 was imported, its build pass passes its stops)."""
    try:
        from ..eager import breakpoints as compiled_breakpoints

        if keras:
            compiled_breakpoints.install_keras()
            return
        if not compiled_breakpoints.install():
            return
    except Exception as exc:  # functions then stay compiled, as without the plugin
        import_hooks._report(f"tf-debug-repr: breakpoints in tf.functions not handled: {exc!r}")
        return
    try:  # the same decision for tf.data functions
        from ..eager import datasets

        datasets.install()
    except Exception as exc:  # tf.data moved: its functions stay compiled, as under stock
        import_hooks._report(
            "tf-debug-repr: breakpoints in tf.data functions (Dataset.map, filter, flat_map, "
            "interleave) do not stop with this TensorFlow: they stay compiled, as without the "
            f"plugin ({exc!r})"
        )


def register() -> dict[str, type]:
    """What the plugin module runs when pydevd loads it: our providers registered with
    pydevd's extension API (returned by name, for that module to expose), then the hooks."""
    from ..hosts.pydevd.adapter import providers

    found = providers()
    activate()
    return found


def activate() -> None:
    """Install the post-import hooks once. Never imports TensorFlow itself."""
    global _activated
    if _activated:
        return
    _activated = True
    # The gradient/model views and capture hooks wait for TF and a client (see _arm), so
    # a program that never imports TF, or that nobody looks at, pays nothing for them.
    import_hooks.when_imported("tensorflow", _on_tensorflow)
    import_hooks.when_imported("keras", _on_keras)
    import_hooks.when_imported("tf_keras", _on_keras)
    # Their module code runs without pydevd's trace function where nothing in it could stop
    # (seconds of every session's start: hosts/pydevd/quiet_import.py)
    for name in quiet_import.NAMES:
        import_hooks.run_around(name, quiet_import.pause, quiet_import.resume)
    debugger_client.when_connected(_arm)
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
