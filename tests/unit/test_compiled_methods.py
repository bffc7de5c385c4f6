"""What a tf.function runs as Python when a breakpoint lies in it, on real TensorFlow without
a debugger: a method's Python function bound to its instance (TF binds it to a weak stand-in,
``TfMethodTarget``, that has none of the instance's attributes), before and after a trace."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

from tf_debug_repr.eager import breakpoints  # noqa: E402


class Module(tf.Module):
    def __init__(self) -> None:
        super().__init__()
        self.v = tf.Variable(2.0)

    @tf.function
    def __call__(self, x):
        return x * self.v

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def signed(self, x):
        return x + self.v

    def later(self, x):
        return x - self.v


Module.later = tf.function(Module.later)  # decorated after the class was made


@pytest.mark.parametrize("traced_first", [False, True])
def test_a_compiled_method_runs_bound_to_its_instance(traced_first):
    module = Module()
    x = tf.constant([1.0, 3.0])
    for method, expected in (
        (module.__call__, [2.0, 6.0]),
        (module.signed, [3.0, 5.0]),
        (module.later, [-1.0, 1.0]),
    ):
        if traced_first:  # a trace swaps AutoGraph's converted copy into the wrapper
            assert method(x).numpy().tolist() == expected
        runnable = breakpoints._runnable(method)
        assert runnable.__self__ is module
        assert runnable.__code__ is type(module).__dict__[method.__name__].python_function.__code__
        assert runnable(x).numpy().tolist() == expected


def test_an_instance_method_decorated_later_and_a_plain_function_run_as_they_are():
    module = Module()
    module.scale = tf.function(lambda x: x * 3.0)
    bound = tf.function(module.later.python_function.__get__(module))
    assert breakpoints._runnable(module.scale)(tf.constant(2.0)).numpy() == 6.0
    assert breakpoints._runnable(bound).__self__ is module


def test_a_function_knows_whether_its_first_trace_was_made():
    @tf.function
    def f(x):
        return x + 1.0

    assert not breakpoints._initialized(f)
    f(tf.constant(1.0))
    assert breakpoints._initialized(f)
