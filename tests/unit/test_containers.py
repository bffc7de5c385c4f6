"""Which containers' value lines list the TF values they hold (core.containers), on TF's and
Keras's real tracking containers."""

from __future__ import annotations

import keras
import tensorflow as tf

from tf_debug_repr import views
from tf_debug_repr.core.containers import container_kind


class Holder(tf.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weights_list = [tf.Variable(tf.ones([2, 3]), name="a"), tf.Variable(1.0, name="b")]
        self.by_name = {"w": tf.Variable(tf.zeros([4]), name="w")}
        self.pair = (tf.Variable(2.0, name="c"),)
        self.words = ["x", "y"]


class MyList(list):
    """A program's own list: its repr is its own, so it is left to pydevd."""


def test_tracking_containers_are_the_python_containers_they_wrap():
    held = Holder()
    assert type(held.weights_list).__name__ == "ListWrapper"
    assert container_kind(type(held.weights_list)) is list
    assert type(held.by_name).__name__ == "_DictWrapper"
    assert container_kind(type(held.by_name)) is dict
    assert type(held.pair).__name__ == "_TupleWrapper"
    assert container_kind(type(held.pair)) is tuple
    tracked = keras.layers.Layer()
    tracked.parts = [keras.layers.Dense(2)]
    tracked.table = {"d": keras.layers.Dense(2)}
    assert container_kind(type(tracked.parts)) is list
    assert container_kind(type(tracked.table)) is dict
    for plain in (list, tuple, dict):
        assert container_kind(plain) is plain
    for other in (MyList, set, str, tf.Variable, type(held)):
        assert container_kind(other) is None


def test_tracking_containers_of_variables_read_as_their_variables():
    held = Holder()
    assert views.container_summary(held.weights_list) == (
        "[float32[2, 3] Variable 'a', 1.0 float32 Variable 'b']"
    )
    assert views.container_summary(held.by_name) == "{'w': float32[4] Variable 'w'}"
    assert views.container_summary(held.pair) == "(2.0 float32 Variable 'c',)"
    # nothing of TF's inside: None, and pydevd shows it as it always does
    assert views.container_summary(held.words) is None
    held.more = [tf.Variable(tf.ones([5])) for _ in range(3)]
    # scalars by their values (as stock's repr shows them): a Keras ``logs`` dict's
    logs = {"loss": tf.constant(3.909617), "n": tf.constant(float("nan")), "x": tf.ones([3])}
    assert (
        views.container_summary(logs)
        == "{'loss': 3.909617 float32, 'n': nan float32, 'x': float32[3]}"
    )
    assert views.container_summary(held.more).startswith("3 variables, 60 B: [float32[5]")
