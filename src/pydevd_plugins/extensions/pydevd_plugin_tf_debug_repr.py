"""pydevd loads every ``pydevd_plugin*`` module under ``pydevd_plugins.extensions``
when debugpy starts. This one only registers tf-debug-repr's providers and hooks, guarded: pydevd
catches nothing but ImportError here, and any other error would stop the debugger
from starting. TensorFlow is not imported here (see tf_debug_repr.activation.startup).
"""

try:
    import os as _os
    import sys as _sys

    # TF_DEBUG_REPR_DISABLE=1 gives stock debugpy (the demo's and benchmark's baseline).
    # Two copies on sys.path (a pip install and the VS Code extension's bundle) load
    # this module twice under different paths; only the first registers.
    if _os.environ.get("TF_DEBUG_REPR_DISABLE") or getattr(
        _sys, "_tf_debug_repr_registered", False
    ):
        __all__ = []
    else:
        from tf_debug_repr.activation.startup import register as _register

        _found = _register()
        globals().update(_found)
        __all__ = list(_found)
        _sys._tf_debug_repr_registered = True
except Exception as _exc:  # never let the plugin stop the debugger
    try:
        import sys as _sys

        _sys.stderr.write(f"tf-debug-repr: plugin disabled: {_exc!r}\n")
    except Exception:
        pass
    __all__ = []
