"""Op making inside a trace, looked at from inside (tests/e2e/test_quiet_ops.py: pydevd's
trace function is lifted while TensorFlow makes an op where nothing could stop there).
``warm.get_concrete_function`` traces the body into a graph (no call runs it as Python, so
its stops are not passed): the ``AddV2`` op converts a ``Celsius``, a type of the program's
own, with the program's own conversion function, inside TF's op making."""

import sys
import threading

import tensorflow as tf


class Celsius:
    def __init__(self, degrees):
        self.degrees = degrees


def celsius_to_tensor(value, dtype=None, name=None, as_ref=False):
    eager = tf.executing_eagerly()  # noqa: F841  (read at the stop)
    return tf.constant(value.degrees, dtype=dtype or tf.float32, name=name)  # CONVERT


tf.register_tensor_conversion_function(Celsius, celsius_to_tensor)


@tf.function(autograph=False)  # the body runs from this file, not a converted copy
def warm(x):
    y = tf.raw_ops.AddV2(x=x, y=Celsius(1.5))  # ADD_LINE
    z = tf.raw_ops.Mul(x=y, y=y)  # MUL_LINE
    traced = sys.gettrace() is not None  # noqa: F841  (read at the stop)
    return z * 2.0  # BODY


@tf.function(autograph=False)
def cool(x):
    return tf.raw_ops.Mul(x=x, y=x) - 1.0


traced_in_op_making = []  # per op a trace of ``cool`` made: was a trace function set


def observe(frame, event, arg):
    """A profile hook (pydevd never traces it): called as TF's ``_apply_op_helper`` starts."""
    code = frame.f_code
    if (
        event == "call"
        and code.co_name == "_apply_op_helper"
        and code.co_filename.endswith("op_def_library.py")
    ):
        traced_in_op_making.append(sys.gettrace() is not None)


# pydevd's SetTrace called on this thread from here on (True: a trace function, not None):
# the thread goes back to pydevd's own trampoline once a trace with lifted ops is done
set_traces = []
tracing = sys.modules.get("pydevd_tracing")  # there under a debugger only
if tracing is not None:
    pydevds_set_trace = tracing.SetTrace
    main_thread = threading.get_ident()

    def counted_set_trace(function):
        if threading.get_ident() == main_thread:
            set_traces.append(function is not None)
        return pydevds_set_trace(function)

    tracing.SetTrace = counted_set_trace

sys.setprofile(observe)
cool.get_concrete_function(tf.TensorSpec([], tf.float32))
sys.setprofile(None)
concrete = warm.get_concrete_function(tf.TensorSpec([], tf.float32))
result = concrete(tf.constant(1.0)).numpy()
print("result", result, traced_in_op_making, sys.gettrace() is not None)  # END
