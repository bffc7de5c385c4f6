"""Notebook words in a real ipykernel: a gradient's target names the cell as the user sees
it (``cell [2], line 6``, not ``/tmp/ipykernel_…/4041487547.py:6``), eager or compiled, and
hints say
``%env`` where a script's say "in the launch configuration"."""

from __future__ import annotations

import pytest

from .test_jupyter import Kernel

pytestmark = pytest.mark.e2e
pytest.importorskip("tensorflow")

SETUP = """\
import tensorflow as tf
import tf_debug_repr
from tf_debug_repr import views as _views

def rows(info):
    return "\\n".join(f"{c.name}: {getattr(c.value, 'text', c.value)}" for c in _views.children(info))
"""
EAGER_STEP = """\
w = tf.Variable(tf.ones([3, 2]), name="w")
x = tf.ones([4, 3])

with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.matmul(x, w))
grad = tape.gradient(loss, w)
"""
COMPILED_STEP = """\
u = tf.Variable(tf.ones([3, 2]), name="u")

@tf.function
def step(x):
    with tf.GradientTape() as tape:
        cost = tf.reduce_sum(tf.matmul(x, u))
    return tape.gradient(cost, u)

step(tf.ones([4, 3]))
"""
# Traced, never run: the gradient has no value yet, and the row's hint says how to get one.
TRACED_ONLY = """\
v = tf.Variable(tf.ones([3, 2]), name="v")

@tf.function
def traced(x):
    with tf.GradientTape() as tape:
        cost = tf.reduce_sum(tf.matmul(x, v))
    return tape.gradient(cost, v)

traced.get_concrete_function(tf.TensorSpec([4, 3]))
"""


def test_gradient_sites_name_the_cell_and_hints_say_env():
    kernel = Kernel(TF_DEBUG_REPR_GRADIENTS="1")
    try:
        kernel.execute(SETUP)  # execution count 1
        kernel.execute(EAGER_STEP)  # 2
        kernel.execute(COMPILED_STEP)  # 3
        kernel.execute(TRACED_ONLY)  # 4
        found = kernel.execute(
            "",
            {
                "eager": "rows(tf_debug_repr.gradient_info(w))",
                "compiled": "rows(tf_debug_repr.gradient_info(u))",
                "traced": "rows(tf_debug_repr.gradient_info(v))",
            },
        )
    finally:
        kernel.close()
    print(found)
    assert "loss at cell [2], line 6" in found["eager"], found["eager"]
    assert "ipykernel_" not in found["eager"] and ".py:" not in found["eager"]
    # A compiled step's gradient (its run kept it), named by the cell's line as eager ones.
    assert "at cell [3], line 7" in found["compiled"], found["compiled"]
    assert "ipykernel_" not in found["compiled"] and ".py:" not in found["compiled"]
    assert "put %env TF_DEBUG_REPR_EAGER=1 in the notebook's first cell" in found["traced"], found[
        "traced"
    ]
    assert "launch configuration" not in found["traced"]
