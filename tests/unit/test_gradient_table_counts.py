"""Issue 15 item 4: the ``∇ gradients`` table counts only gradients with a value as
recorded; symbolic and None ones are said apart."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.views import models as model_views  # noqa: E402


@pytest.fixture(autouse=True)
def table():
    views.build_table()


@pytest.mark.usefixtures("gradient_hooks")
def test_symbolic_gradients_are_not_counted_as_recorded():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2), keras.layers.Dense(1)])

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(tf.ones((1, 3))))
        return tape.gradient(loss, model.trainable_variables)

    step.get_concrete_function()  # traced, not run: no values yet
    table = model_views.gradient_table(model)
    text = table.summary()
    assert "4 of 4 trainable weights recorded" not in text, text
    assert "0 of 4 trainable weights recorded" in text, text
    assert "4 not available (symbolic, in tf.function" in text, text
    step()  # a run leaves its values (gradients/compiled.py)
    text = model_views.gradient_table(model).summary()
    assert "4 of 4 trainable weights recorded" in text, text


@pytest.mark.usefixtures("gradient_hooks")
def test_a_none_gradient_is_counted_apart():
    a, b = tf.Variable([1.0]), tf.Variable([2.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(a * 3.0)
    tape.gradient(loss, [a, b])
    text = model_views.GradientTable([a, b]).summary()
    assert "1 of 2 trainable weights recorded, 1 None" in text, text
