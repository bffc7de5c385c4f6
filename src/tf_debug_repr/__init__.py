"""tf-debug-repr: TensorFlow values presented properly in VS Code's Python debugger.

Installing the package is all it takes: debugpy loads the plugin by itself. This
module stays import-light (no TensorFlow, no pydevd) so importing it costs nothing.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
