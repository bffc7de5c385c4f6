"""tf-debug-repr: TensorFlow values presented properly in VS Code's Python debugger.

Installing the package is all it takes: debugpy loads the plugin by itself. This
module stays import-light (no TensorFlow, no pydevd) so importing it costs nothing;
the functions below import what they need when called.
"""

__version__ = "0.1.0"

__all__ = ["__version__", "gradient_info", "gradient_of", "set_gradient_capture"]


def set_gradient_capture(on: bool) -> None:
    """Turn gradient capture on or off at run time (``TF_DEBUG_REPR_GRADIENTS=0`` starts
    with it off). Turning it off keeps what was recorded; nothing new is recorded."""
    from . import gradient_capture

    gradient_capture.set_enabled(on)


def gradient_of(source):
    """The latest gradient recorded for a variable or watched tensor, or None."""
    from . import gradient_views

    return gradient_views.gradient_of(source)


def gradient_info(source):
    """The latest gradient of ``source`` with its step, norm, history (or why it is None)."""
    from . import gradient_views

    return gradient_views.gradient_info(source)
