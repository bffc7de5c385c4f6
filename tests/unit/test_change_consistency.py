"""Issue 15 item 3: a ``Δ since last stop`` row's expression gives what the row shows for
the whole stop, even when later snapshots of the same stop evict its snapshot (a model
bigger than the budget); and a tensor shown inside another watch's value (a ``∇ gradient``
watch) keeps the tracking of its own watch expression."""

from __future__ import annotations

import sys

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.core.tf_types import Kind  # noqa: E402
from tf_debug_repr.forensics import change_views, snapshots  # noqa: E402
from tf_debug_repr.views import gradients as gradient_views  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_forensics")  # tests/unit/conftest.py


def _change_row(value):
    rows = {c.name: c for c in views.children(value)}
    return rows.get(change_views.NAME)


def test_a_variables_change_outlives_its_evicted_snapshot():
    snapshots.set_budget_mb(8000 / 2**20)  # room for two float32[1000]
    a, b, c = (tf.Variable(tf.zeros([1000])) for _ in range(3))
    snapshots.next_stop()
    change_views.looked_at(a)
    change_views.looked_at(b)
    a.assign_add(tf.ones([1000]))
    snapshots.next_stop()
    row = _change_row(a)
    assert row is not None
    change_views.looked_at(b)
    change_views.looked_at(c)  # a new snapshot: evicts a's (looked at longest ago)
    again = change_views.change_since_last_stop(a)
    assert again is not None, "the row's expression gives None"
    assert again.summary() == row.resolve().summary()
    assert "Δ‖·‖=31.62 since stop" in views.summary(a)
    snapshots.next_stop()  # the next stop: a has no snapshot left to compare with
    assert change_views.change_since_last_stop(a) is None and not snapshots.tracked(a)


def test_a_model_bigger_than_the_budget_gives_the_same_row_twice():
    model = keras.Sequential([keras.Input((50,))] + [keras.layers.Dense(50) for _ in range(4)])
    kernel = 50 * 50 * 4
    snapshots.set_budget_mb(2.5 * kernel / 2**20)  # two kernels and some biases of eight
    snapshots.next_stop()
    assert _change_row(model) is None  # looked at: snapshots of what fits
    for var in model.weights:
        var.assign_add(tf.ones(var.shape))
    snapshots.next_stop()
    row = _change_row(model)
    assert row is not None, "no change shown for a model over the budget"
    shown = row.resolve()
    again = change_views.change_since_last_stop(model)
    assert again is not None, "the row's expression gives None"
    assert again.summary() == shown.summary()
    assert [c.name for c in again.children()] == [c.name for c in shown.children()]
    for child in shown.children():  # each weight's row: its expression's value too
        if child.expression is None:  # a line of text (a snapshot kept for the next stop)
            continue
        index = int(child.expression("x").split(".row(")[1].rstrip(")"))
        assert again.row(index).summary() == child.resolve().summary()
    assert snapshots.held_bytes() <= 2.5 * kernel


_EVALUATOR = """
def internal_evaluate_expression_json(frame, expression, eval_result, show):
    return show()
"""


def _watch(expression, result, show):
    """``show()`` run as pydevd presents the result of a watch expression."""
    scope: dict = {}
    exec(compile(_EVALUATOR, "/x/_pydevd_bundle/pydevd_comm.py", "exec"), scope)
    return scope["internal_evaluate_expression_json"](sys._getframe(), expression, result, show)


@pytest.mark.usefixtures("gradient_hooks")
def test_a_gradient_watch_does_not_take_over_its_tensors_watch():
    w = tf.Variable([1.0, 2.0])

    def gradient(scale):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * w * scale)
        return tape.gradient(loss, w)

    info_expression = "__import__('tf_debug_repr').gradient_info(w)"
    g = gradient(1.0)
    snapshots.next_stop()
    _watch("g", g, lambda: (views.note_looked_at(g), views.summary(g)))
    info = gradient_views.gradient_info(w)
    _watch(info_expression, info, lambda: views.summary(info))
    g = gradient(3.0)  # the next stop: a new gradient, three times the first
    snapshots.next_stop()
    mark = "Δ‖·‖=8.944 since stop"
    assert mark in _watch("g", g, lambda: views.summary(g))
    info = gradient_views.gradient_info(w)
    assert info.gradient is g
    _watch(info_expression, info, lambda: views.summary(info))
    # the Variables pane (no evaluation on the stack) and expanding the watched tensor
    assert mark in change_views.change_mark(g, Kind.EAGER)
    assert change_views.change_since_last_stop(g) is not None


def test_a_model_over_the_budget_keeps_the_same_weights_tracked_at_every_stop():
    """A model's weights first seen take only the room left: they never push out the
    snapshots its other weights had compared a moment before at the same stop, so the same
    weights are compared at every stop (they took turns, one stop in two, before)."""
    model = keras.Sequential([keras.Input((50,))] + [keras.layers.Dense(50) for _ in range(4)])
    kernel = 50 * 50 * 4
    snapshots.set_budget_mb(2.5 * kernel / 2**20)  # two kernels and some biases of eight
    snapshots.next_stop()
    assert _change_row(model) is None  # looked at: snapshots of what fits
    first = [snapshots.tracked(w) for w in model.weights]
    assert 0 < sum(first) < len(first)
    summaries = []
    for _ in range(3):
        for var in model.weights:
            var.assign_add(tf.ones(var.shape))
        snapshots.next_stop()
        row = _change_row(model)
        assert row is not None
        summaries.append(row.resolve().summary())
        assert [snapshots.tracked(w) for w in model.weights] == first
    changed = sum(first)
    untracked = len(first) - changed
    for text in summaries:
        assert text.startswith(f"{changed} of {changed} weights changed"), text
        assert text.endswith(f"{untracked} more not tracked (snapshot budget)"), text


def test_weights_read_together_are_the_reads_one_by_one():
    """``read_values`` (the raw op of a plain resource variable) gives what ``read_value``
    gives: the same values, and the same buffer while nothing writes the variable (a
    snapshot's version compare holds), a new one once something does."""
    from tf_debug_repr.forensics import one_pass
    from tf_debug_repr.views import variables as variable_views

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    plain = tf.Variable([1.0, 2.0])
    values = [*model.weights, plain]
    together = variable_views.read_values(values)
    for var, read in zip(values, together):
        alone = variable_views.read_value(var)
        assert read.dtype == alone.dtype and read.shape == alone.shape
        assert (read.numpy() == alone.numpy()).all()
        assert one_pass.same_version(read, alone)
    plain.assign_add([1.0, 1.0])
    after = variable_views.read_values([plain])[0]
    assert not one_pass.same_version(after, together[-1])
    assert after.numpy().tolist() == [2.0, 3.0]
