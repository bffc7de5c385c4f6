"""The plugin module as debugpy 1.6.x finds it (see ``../__init__.py``): it runs the one
real module, ``site-packages/pydevd_plugins/extensions/pydevd_plugin_tf_debug_repr.py``,
in its own namespace. Where both are on the path (debugpy 1.8, pkgutil), pydevd imports
the real one, which comes first on sys.path; a second load would register nothing."""

try:
    import os as _os

    # <site>/tf_debug_repr/_pydevd_namespace/pydevd_plugins/extensions/ -> <site>
    _site = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), *[_os.pardir] * 4)
    _real = _os.path.normpath(
        _os.path.join(_site, "pydevd_plugins", "extensions", "pydevd_plugin_tf_debug_repr.py")
    )
    with open(_real, encoding="utf-8") as _file:
        _code = compile(_file.read(), _real, "exec")
    exec(_code)  # the real module guards itself: it never raises
except Exception as _exc:  # never let the plugin stop the debugger
    try:
        import sys as _sys

        _sys.stderr.write(f"tf-debug-repr: plugin disabled: {_exc!r}\n")
    except Exception:
        pass
    __all__ = []
