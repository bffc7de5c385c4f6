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
