"""TensorFlow's private modules whose names moved between the versions we support."""

from __future__ import annotations

from typing import Any


def tape_recording() -> Any:
    """The module with ``stop_recording()``: ``tensorflow.python.eager.record`` (TF 2.13+),
    ``tensorflow.python.eager.tape`` before (TF 2.9-2.12)."""
    try:
        from tensorflow.python.eager import record

        return record
    except ImportError:
        from tensorflow.python.eager import tape

        return tape


def function_class() -> Any:
    """``tf.function``'s class: ``polymorphic_function.Function`` (TF 2.11+),
    ``def_function.Function`` before (TF 2.9-2.10)."""
    try:
        from tensorflow.python.eager.polymorphic_function import polymorphic_function

        return polymorphic_function.Function
    except ImportError:
        from tensorflow.python.eager import def_function

        return def_function.Function


def functions_run_eagerly_module() -> Any:
    """The module whose ``RUN_FUNCTIONS_EAGERLY`` ``tf.config.run_functions_eagerly`` sets:
    ``polymorphic_function.eager_function_run`` (TF 2.11+), ``def_function`` before."""
    try:
        from tensorflow.python.eager.polymorphic_function import eager_function_run

        return eager_function_run
    except ImportError:
        from tensorflow.python.eager import def_function

        return def_function
