"""The viewer on the plugin's gradient records: a "∇ gradient" row (a variable's, or a
row of a model's "∇ gradients" table) is viewed as the gradient it holds."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr.viewer.payload import build  # noqa: E402
from tf_debug_repr.views import gradients as gradient_views  # noqa: E402
from tf_debug_repr.views import models as model_views  # noqa: E402

pytestmark = pytest.mark.usefixtures("gradient_hooks")


def test_a_gradient_record_is_drawn_as_its_gradient():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(tf.constant([[1.0, -2.0, 3.0]])) ** 2)
    grads = tape.gradient(loss, model.trainable_weights)
    kernel = model.trainable_weights[0]
    for info in (
        gradient_views.gradient_info(kernel),
        model_views.gradient_table(model).info(0),  # the model's "∇ gradients" row
    ):
        p = build(info)
        assert p["error"] is None, p["error"]
        assert p["kind"] == "tensor" and p["shape"] == [3, 2]
        assert p["stats"]["min"] == pytest.approx(float(np.min(grads[0].numpy())))
        assert p["stats"]["max"] == pytest.approx(float(np.max(grads[0].numpy())))


def test_a_record_without_values_says_why():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        loss = tf.constant(3.0) * 2.0  # does not use v
    assert tape.gradient(loss, v) is None
    p = build(gradient_views.gradient_info(v))
    assert p["error"] is not None and "None" in p["error"]
    assert not p["error"].startswith(("AttributeError", "TypeError"))


def test_a_conv1d_kernels_gradient_is_a_heatmap_not_an_image():
    """[3, 16, 16] reads as a CHW image; the record knows its variable is a kernel."""
    conv = keras.layers.Conv1D(16, 3)
    conv(tf.zeros((2, 20, 16)))
    # A smooth gradient (a ramp), as images are: the tensor alone passes for a CHW picture.
    ramp = tf.reshape(tf.linspace(0.0, 1.0, 3 * 16 * 16), (3, 16, 16))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(conv.kernel * ramp)
    (grad,) = tape.gradient(loss, [conv.kernel])
    assert build(grad)["image"] is not None  # the plain tensor alone looks like an image
    p = build(gradient_views.gradient_info(conv.kernel))
    assert p["error"] is None and p["shape"] == [3, 16, 16]
    assert p["image"] is None
