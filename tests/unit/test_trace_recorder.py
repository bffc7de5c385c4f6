"""The recorder of a trace (``breakpoints._Recorder``: which code a trace ran, so that a
breakpoint there makes the function run as Python), on real TensorFlow without a debugger:
it is paused while TF makes an op (none of the program's code runs there, and it was a third
of a Keras ``fit``'s trace's calls), not where a device function of the program's own runs
for each op, and the program's code called around op making is recorded."""

from __future__ import annotations

import inspect

import pytest

tf = pytest.importorskip("tensorflow")

from tensorflow.python.framework import op_def_library, ops  # noqa: E402

from tf_debug_repr.eager import breakpoints  # noqa: E402


def recorded(fn) -> set:
    """The code objects the recorder saw while ``fn`` was traced."""
    breakpoints._unrecorded_op_making()
    recorder = breakpoints._Recorder(None)
    breakpoints._local.recorder = recorder
    recorder.start()
    try:
        # autograph off: the functions run as written (AutoGraph's copies are noted apart)
        tf.function(fn, autograph=False).get_concrete_function(tf.TensorSpec([None], tf.float32))
    finally:
        recorder.stop()
        breakpoints._local.recorder = None
    return recorder.codes


def helper(x):
    return x * 2.0


def on_cpu(op):  # a device function of the program's own: TF calls it for each op
    return "/cpu:0"


def test_the_programs_code_is_recorded_and_tfs_op_making_is_not():
    codes = recorded(lambda x: helper(x) + 1.0)
    assert helper.__code__ in codes
    assert op_def_library._apply_op_helper.__code__ in codes  # recording, around op making
    made = inspect.unwrap(ops.Graph._create_op_internal).__code__  # TF's own
    assert ops.Graph._create_op_helper.__code__ not in codes  # paused while an op is made
    assert made not in codes


def test_a_device_function_of_the_programs_own_is_recorded():
    def step(x):
        with tf.compat.v1.device(on_cpu):
            return helper(x) + 1.0

    codes = recorded(step)
    assert on_cpu.__code__ in codes
    assert helper.__code__ in codes
    assert ops.Graph._create_op_helper.__code__ in codes  # not paused under it


def test_a_pause_leaves_the_recorder_on_after_the_op():
    def step(x):
        y = x + 1.0  # an op made (paused)
        return helper(y)  # recorded after it

    codes = recorded(step)
    assert helper.__code__ in codes
    assert ops.Graph._create_op_helper.__code__ not in codes


class Doubled:
    """A type of the program's own that TF converts to a tensor by its code."""

    def __init__(self, x) -> None:
        self.x = x

    def __tf_tensor__(self, dtype=None, name=None):
        return tf.convert_to_tensor(self.x, dtype=dtype) * 2.0


def test_an_input_of_a_type_of_the_programs_own_is_recorded_in_op_making():
    codes = recorded(lambda x: tf.raw_ops.AddV2(x=Doubled(x), y=x))
    assert Doubled.__tf_tensor__.__code__ in codes
