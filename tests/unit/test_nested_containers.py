"""Issue 15 item 6: containers of containers of TF values get the plugin's brief text,
not stock's full numpy output."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

from tf_debug_repr import views  # noqa: E402


@pytest.fixture(autouse=True)
def table():
    views.build_table()


def test_a_dict_of_dicts_of_tensors_is_shown_in_brief():
    weights = {
        "dense": {"kernel": tf.ones([300, 300]), "bias": tf.zeros([300])},
        "out": {"kernel": tf.ones([300, 1])},
    }
    text = views.container_summary(weights)
    assert text == (
        "{'dense': {'kernel': float32[300, 300], 'bias': float32[300]}, "
        "'out': {'kernel': float32[300, 1]}}"
    )
    assert views.container_summary({"a": [(tf.ones([2]),)]}) == "{'a': [(float32[2],)]}"
    assert views.container_summary({"a": {"b": 1}}) is None  # no TF value: stock text


def test_a_long_nested_container_stays_one_short_line():
    many = {f"layer{i}": {"kernel": tf.ones([2, 2])} for i in range(500)}
    text = views.container_summary(many)
    assert text is not None and len(text) <= 300 and "numpy" not in text
