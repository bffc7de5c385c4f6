# debugpy 1.6.x builds the pydevd_plugins namespace with pkg_resources wherever it is
# importable (setuptools < 82), and pkg_resources skips PEP 420 portions: the plugin's
# real portion (site-packages/pydevd_plugins, no __init__.py) is never found there. This
# folder is a second path entry (tf_debug_repr-pydevd16.pth; the VS Code bundle copies these
# __init__.py files into its pydevd16/) holding regular packages, which pkg_resources
# counts. Imported as ``pydevd_plugins`` only if nothing earlier on sys.path has that name:
# then it behaves as the namespace it stands in for.
__path__ = __import__("pkgutil").extend_path(__path__, __name__)
