"""The real-program suite's check that an output under a function run eagerly differs from
stock debugpy's run (compiled, as with no debugger) only as the console's message (``EAGER_DIFFERENCES``) says
(``real_suite.differences_not_said``), held to real outputs of a function that keeps Python
state: compiled (its trace keeps a symbolic tensor) and run eagerly (it keeps the value)."""

from __future__ import annotations

import tensorflow as tf

from tests.e2e import real_suite
from tf_debug_repr.eager.breakpoints import EAGER_DIFFERENCES

PROGRAM = real_suite.Program("kept_state.py", ("BREAKPOINT",), ("BREAKPOINT",))


def _output(eagerly: bool) -> str:
    """What a program prints after calling a tf.function that keeps a tensor it made, as
    the transformer tutorial's attention layer keeps ``last_attn_scores``."""
    kept: dict[str, tf.Tensor] = {}

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def step(x):
        kept["scores"] = x * 2.0
        return tf.reduce_sum(x)

    tf.config.run_functions_eagerly(eagerly)
    try:
        total = step(tf.ones([4, 3]))
    finally:
        tf.config.run_functions_eagerly(False)
    scores = kept["scores"]
    return f"total {float(total):.4f}\n{scores.shape}\n{type(scores).__name__}\n"


def test_a_kept_shape_made_concrete_is_allowed_and_nothing_else():
    assert "a shape's None is a number" in " ".join(EAGER_DIFFERENCES.split())
    plain, eager = _output(False).splitlines(), _output(True).splitlines()
    assert plain[:2] == ["total 12.0000", "(None, 3)"] and eager[:2] == ["total 12.0000", "(4, 3)"]
    # allowed: the kept tensor's shape, a None of the trace's now the value's number
    assert (
        real_suite.differences_not_said(PROGRAM, "\n".join(plain[:2]), "\n".join(eager[:2])) == []
    )
    # not allowed: what the kept tensor is (a symbolic tensor, then a value)
    assert (plain[2], eager[2]) == ("SymbolicTensor", "EagerTensor")
    found = real_suite.differences_not_said(PROGRAM, _output(False), _output(True))
    assert found == ["stock 'SymbolicTensor', under the plugin 'EagerTensor'"], found
    # not allowed: the other way round (a number become None)
    found = real_suite.differences_not_said(PROGRAM, "\n".join(eager[:2]), "\n".join(plain[:2]))
    assert found == ["stock '(#, #)', under the plugin '(None, #)'"], found


def test_only_a_none_in_a_shape_may_become_a_number():
    allowed = real_suite.differences_not_said
    assert allowed(PROGRAM, "(None, 2, 10, 10)", "(8, 2, 10, 10)") == []
    assert allowed(PROGRAM, "[None, 4] and (None,)", "[32, 4] and (7,)") == []
    assert allowed(PROGRAM, "TensorShape([None, 3])", "TensorShape([5, 3])") == []
    assert allowed(PROGRAM, "loss 0.5 (None, 3)", "loss 0.7 (2, 3)") == []  # numbers are named
    for plain, plugin in [
        ("(None, 2, 10, 10)", "(8, 2, 10)"),  # a dim fewer
        ("(None, 2)", "[8, 2]"),  # another kind of sequence
        ("None", "8"),  # not in a shape
        ("value None, (None, 2)", "value 3, (8, 2)"),
        ("(None, 2)", "(None, 2)\nextra"),  # a line more
        ("shape (None, 2)", "shape: (8, 2)"),
    ]:
        assert allowed(PROGRAM, plain, plugin), (plain, plugin)
