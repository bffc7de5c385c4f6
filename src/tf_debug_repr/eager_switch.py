"""``TF_DEBUG_REPR_EAGER=1``: run tf.functions and tf.data functions as plain Python.

With AutoGraph, a breakpoint inside a ``@tf.function`` body or a ``Dataset.map``
function is never hit and gradients computed there are symbolic. Turned on as soon as
the program imports TensorFlow, this makes those bodies run eagerly, so breakpoints
are hit and gradients are real values (at eager speed: it is a debugging switch).

Caveat: ``tf.data`` debug mode applies to datasets created after it is enabled, and
it runs ``map`` functions one element at a time, deterministically.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

ENV = "TF_DEBUG_REPR_EAGER"


def requested() -> bool:
    return os.environ.get(ENV, "").strip().lower() in ("1", "true", "yes", "on")


def apply(tf: ModuleType) -> bool:
    """Turn eager execution of functions on if requested. Returns whether it did."""
    if not requested():
        return False
    tf.config.run_functions_eagerly(True)
    try:
        tf.data.experimental.enable_debug_mode()
    except Exception as exc:  # only possible from graph mode; functions still run eagerly
        sys.stderr.write(f"tf-debug-repr: tf.data debug mode not enabled: {exc}\n")
    sys.stderr.write(
        f"tf-debug-repr: {ENV}=1: tf.function and tf.data functions run eagerly "
        "(breakpoints inside them are hit; slower)\n"
    )
    return True
