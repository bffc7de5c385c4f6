"""core/tensor_like.py's Protocols describe what TF really hands the core: eager tensors and
tf.Variables satisfy them, things that are not tensors do not (issue 19 step 5)."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tf_debug_repr.core import formatting
from tf_debug_repr.core.tensor_like import DTypeLike, EagerTensorLike, ShapeLike, TensorLike


def test_eager_tensors_and_variables_are_tensor_like():
    tensor = tf.constant([[1.0, 2.0]])
    variable = tf.Variable([1, 2, 3])
    for value in (tensor, variable):
        assert isinstance(value, TensorLike)
        assert isinstance(value.dtype, DTypeLike)
        assert isinstance(value.shape, ShapeLike)
    assert isinstance(tensor, EagerTensorLike)
    assert tensor.shape.num_elements() == 2 and tensor.dtype.size == 4


def test_other_values_are_not():
    for value in (np.zeros(3), [1.0, 2.0], 3.0, "x", tf.TensorShape([2])):
        assert not isinstance(value, TensorLike)
    assert not isinstance([2, 3], ShapeLike)


def test_shape_text_reads_shapes_and_plain_sequences():
    assert formatting.shape_text(tf.TensorShape([None, 3])) == "[None, 3]"
    assert formatting.shape_text((2, None)) == "[2, None]"
    assert formatting.shape_text(tf.TensorShape(None)) == "[?]"
