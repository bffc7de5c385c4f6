"""``TF_DEBUG_REPR_EAGER=1``: run tf.functions and tf.data functions as plain Python.

With AutoGraph, a breakpoint inside a ``@tf.function`` body or a ``Dataset.map``
function is never hit and gradients computed there are symbolic. Turned on as soon as
the program imports TensorFlow, this makes those bodies run eagerly, so breakpoints
are hit and gradients are real values (at eager speed: it is a debugging switch).

A tf.function called while a graph is being built (tf.data still traces each map
function once) is traced as usual, AutoGraph included.

Caveats: ``tf.data`` debug mode applies to datasets created after it is enabled (hence
at import), and it runs ``map`` functions one element at a time, deterministically.
Those per-element calls happen on a TensorFlow thread that Python did not start; the debugger
only stops on such a thread once it traces it (``debugpy.debug_this_thread()``, pydevd's
``settrace``), so the switch also makes every ``tf.py_function`` call (which is how debug
mode runs ``map`` functions) have its thread traced first.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

from ..core.patching import MARK, is_patched, patch_once
from ..hosts.pydevd import client as debugger_client
from .breakpoints import EAGER_DIFFERENCES, ENV, mode  # the one reading of TF_DEBUG_REPR_EAGER

__all__ = ["ENV", "apply", "requested"]


# What tf.data's debug mode changes in the program's datasets (TF's own documentation
# of tf.data.experimental.enable_debug_mode; seen in TF's text-generation tutorial).
DATA_DEBUG_MODE = (
    "tf.data's debug mode is on: datasets run their functions sequentially, and prefetch "
    "is left out (a dataset made with .prefetch() is the dataset before it)."
)


def requested() -> bool:
    return mode() == "all"


def apply(tf: ModuleType) -> bool:
    """Turn eager execution of functions on if requested. Returns whether it did."""
    if not requested():
        return False
    tf.config.run_functions_eagerly(True)
    _trace_inside_graphs()
    try:
        tf.data.experimental.enable_debug_mode()
    except Exception as exc:  # only possible from graph mode; functions still run eagerly
        sys.stderr.write(f"tf-debug-repr: tf.data debug mode not enabled: {exc}\n")
    _trace_py_function_threads()
    sys.stderr.write(
        f"tf-debug-repr: {ENV}=1: tf.function and tf.data functions run eagerly "
        f"(breakpoints inside them are hit; slower). {EAGER_DIFFERENCES} {DATA_DEBUG_MODE}\n"
    )
    return True


def _trace_inside_graphs() -> None:
    """A tf.function called while a graph is being built is traced as usual, AutoGraph and
    all. tf.data traces every map function once even in debug mode (to learn its output
    structure); with ``run_functions_eagerly`` alone a tf.function called there ran as
    plain Python, so a tensor ``if`` in it raised (TF's pix2pix tutorial's random_jitter).
    Called eagerly, it still runs eagerly: its breakpoints are hit."""
    try:
        from tensorflow.python.eager import context

        from ..core.tf_compat import function_class, functions_run_eagerly_module

        eager_function_run = functions_run_eagerly_module()
        cls = function_class()
        current = cls.__dict__.get("_run_functions_eagerly")
        if not isinstance(current, property) or is_patched(current.fget):
            return

        def _run_functions_eagerly(self: object) -> bool:
            # A restored SavedModel function has no Python function to run: it stays
            # compiled ("Found zero restored functions for caller function" otherwise).
            return (
                bool(eager_function_run.RUN_FUNCTIONS_EAGERLY)
                and context.executing_eagerly()
                and type(self).__name__ != "RestoredFunction"
            )

        # A property replaced whole (patch_once wraps plain attributes): marked as its
        # wrappers are, so a second install finds it.
        setattr(_run_functions_eagerly, MARK, True)
        cls._run_functions_eagerly = property(_run_functions_eagerly)
    except Exception as exc:  # another TF layout: functions still run eagerly
        sys.stderr.write(f"tf-debug-repr: tf.functions in tf.data traces not kept: {exc}\n")


def _trace_py_function_threads() -> None:
    """Have the debugger trace each thread that runs a py_function, at its first call there."""
    from tensorflow.python.ops import script_ops

    def wrap(original: Any) -> Any:
        def __call__(self, token, device, args):  # C++ looks this up on the type per call
            debugger_client.trace_this_thread()
            return original(self, token, device, args)

        return __call__

    patch_once(script_ops.FuncRegistry, "__call__", wrap)
