"""End to end in a real ipykernel: ``tf_debug_repr.report()`` in a notebook cell reports the
notebook's namespace (its TF values, gradients captured after ``%load_ext``), without the
kernel's own ``_`` names."""

from __future__ import annotations

import ast

import pytest

from .test_jupyter import Kernel

pytestmark = pytest.mark.e2e

CELLS = """\
%load_ext tf_debug_repr
import tensorflow as tf
import keras
import tf_debug_repr

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="dense|x")])
x = tf.ones([2, 4])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x))
grads = tape.gradient(loss, model.trainable_variables)
bad = tf.math.log(tf.constant([1.0, -1.0]))
"""


def test_report_in_a_notebook_cell():
    kernel = Kernel()
    try:
        kernel.execute(CELLS)
        kernel.execute("x")  # leaves ``_`` and ``_2``, a tensor: the kernel's, not reported
        got = kernel.execute("", {"md": "tf_debug_repr.report()"})
        text = ast.literal_eval(got["md"])
        kernel.execute("from_cell = tf_debug_repr.report()")
        from_cell = ast.literal_eval(kernel.execute("", {"md": "from_cell"})["md"])
    finally:
        kernel.close()
    assert text.startswith("## TensorFlow state at &lt;module&gt;() line 1 of &lt;string&gt;"), (
        text[:200]
    )
    assert from_cell.startswith("## TensorFlow state at &lt;module&gt;() line 1 of "), from_cell[
        :200
    ]
    assert from_cell.count("\n|") == text.count("\n|")  # the same namespace
    rows = [
        line.split("|")[1].strip()
        for line in text.splitlines()
        if line.startswith("| ") and not line.startswith("| name |")
    ]
    assert {"model", "x", "loss", "grads", "bad", "tape"} <= set(rows), rows
    assert not [r for r in rows if r.startswith("\\_") or r == "Out"], rows
    (bad,) = [line for line in text.splitlines() if line.startswith("| bad |")]
    assert bad.endswith("| ‼ NaN×1 first at [1] |"), bad
    assert "| model.trainable\\_weights[0] (sequential/dense\\|x/kernel) |" in text, text
    assert "| dense\\|x | Dense | 15 |" in text
