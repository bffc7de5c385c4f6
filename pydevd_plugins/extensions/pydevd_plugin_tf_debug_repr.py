"""pydevd loads every ``pydevd_plugin*`` module under ``pydevd_plugins.extensions``
when debugpy starts. This one only imports tf-debug-repr's adapter, guarded: pydevd
catches nothing but ImportError here, and any other error would stop the debugger
from starting. TensorFlow is not imported here (see tf_debug_repr.activation).
"""

try:
    from tf_debug_repr.pydevd_adapter import register_with_pydevd as _register

    __all__ = _register()
except Exception as _exc:  # never let the plugin stop the debugger
    import sys as _sys

    try:
        _sys.stderr.write("tf-debug-repr: plugin disabled: %r\n" % (_exc,))
    except Exception:
        pass
    __all__ = []
