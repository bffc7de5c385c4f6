"""Issue 15 item 5: names are unique at every level (PyCharm looks rows up by name)."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.core.view_model import Child, unique_names  # noqa: E402
from tf_debug_repr.views import gradients as gradient_views  # noqa: E402


@pytest.fixture(autouse=True)
def table():
    views.build_table()


@pytest.mark.usefixtures("gradient_hooks")
def test_a_scalars_gradient_rows_have_unique_names():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        loss = v * v
    tape.gradient(loss, v)
    info = gradient_views.gradient_info(v)
    names = [c.name for c in views.children(info)]
    assert len(names) == len(set(names)), names
    assert "value" in names and "value of the gradient" in names
    rows = {c.name: c for c in info.children()}
    assert rows["value"].resolve() is info.gradient
    assert float(rows["value of the gradient"].resolve()) == 4.0


def test_children_of_every_kind_get_unique_names():
    rows = [Child("a", 1), Child("a", 2), Child("a (2)", 3), Child("b", 4), Child("a", 5)]
    assert [c.name for c in unique_names(rows)] == ["a", "a (3)", "a (2)", "b", "a (4)"]
    assert [c.value for c in unique_names(rows)] == [1, 2, 3, 4, 5]
