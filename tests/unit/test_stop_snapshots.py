"""Change since the last stop, computed without a debugger (stops advanced by hand)."""

from __future__ import annotations

import math

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.forensics import change_views, snapshots  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_forensics")  # tests/unit/conftest.py


def test_untracked_variable_gets_nothing():
    snapshots.next_stop()
    w = tf.Variable(tf.zeros([3]))
    assert snapshots.change_of(w) is None
    assert not any(c.name == change_views.NAME for c in views.children(tf.zeros([2])))
    assert change_views.change_mark(w, views.kind_of(w)) == ""


def test_norm_share_largest_and_where_after_an_update():
    rng = np.random.default_rng(0)
    start = rng.normal(size=(4, 5)).astype(np.float32)
    w = tf.Variable(start)
    snapshots.next_stop()
    rows = {c.name: c for c in views.children(w)}  # expanding: now tracked
    assert change_views.NAME not in rows and snapshots.tracked(w)  # no row before a change
    delta = np.zeros((4, 5), np.float32)
    delta[1, 2], delta[3, 0] = 0.5, -2.0
    w.assign_add(delta)
    snapshots.next_stop()
    change = snapshots.change_of(w)
    expected = np.linalg.norm(w.numpy().astype(np.float64) - start.astype(np.float64))
    assert change.norm == pytest.approx(expected, rel=1e-12)
    assert (change.changed, change.size) == (2, 20)
    assert change.largest == pytest.approx(2.0)
    assert change.where == (3, 0)
    assert "Δ‖·‖=2.062 since stop" in views.summary(w)
    # the snapshot now holds this stop's value: no update, no change at the next stop
    snapshots.next_stop()
    assert snapshots.change_of(w).changed == 0


def test_frozen_after_three_unchanged_stops():
    w = tf.Variable([1.0, 2.0])
    snapshots.next_stop()
    change_views.looked_at(w)
    for _ in range(3):
        snapshots.next_stop()
        change = snapshots.change_of(w)
    assert change.frozen and change.unchanged_stops == 3
    assert "frozen 3 stops" in views.summary(w)


def test_snapshot_is_not_the_variables_buffer():
    w = tf.Variable(tf.ones([1000]))
    snapshots.next_stop()
    change_views.looked_at(w)
    w.assign_sub(tf.ones([1000]) * 0.25)  # an in-place update op
    snapshots.next_stop()
    change = snapshots.change_of(w)
    assert change.norm == pytest.approx(math.sqrt(1000 * 0.0625), rel=1e-12)


def test_budget_keeps_the_most_recently_looked():
    snapshots.set_budget_mb(4000 / 2**20)  # room for one float32[1000]
    a, b = tf.Variable(tf.zeros([1000])), tf.Variable(tf.zeros([1000]))
    snapshots.next_stop()
    change_views.looked_at(a)
    change_views.looked_at(b)
    assert not snapshots.tracked(a) and snapshots.tracked(b)
    assert snapshots.held_bytes() == 4000


def test_keras_model_lists_frozen_weights_first():
    keras = pytest.importorskip("keras")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2), keras.layers.Dense(1)])
    model.layers[0].trainable = False
    snapshots.next_stop()
    node = change_views.change_since_last_stop(model)
    assert node is None  # not looked at yet
    rows = {c.name: c for c in views.children(model)}
    assert change_views.NAME not in rows
    assert all(snapshots.tracked(v) for v in model.weights)
    for _ in range(3):
        for var in model.layers[1].weights:
            var.assign_add(tf.ones(var.shape))
        snapshots.next_stop()
        node = change_views.change_since_last_stop(model)
    text = node.summary()
    kernel, bias = (w.path for w in model.layers[0].weights)  # Keras numbers its names
    assert text.startswith(f"‼ 2 frozen ({kernel}, {bias})"), text
    assert "2 of 4 weights changed" in text
    first = node.children()[0]
    assert first.name == kernel and "frozen" in str(first.value)


@pytest.mark.parametrize(
    "changes",
    ["everywhere", "two elements", "a run then isolated", "nan where nan was", "a nan appears"],
)
def test_the_host_compare_gives_the_exact_figures_whatever_the_blocks(changes):
    """The one-pass host compare skips unchanged chunks and takes NaN and inf element by
    element: the count, the largest change and where it is are the element-wise ones in
    every case, the norm to float32 reductions' precision (a big float32 value)."""
    from tf_debug_repr.forensics.one_pass import host_pass

    rng = np.random.default_rng(4)
    then = rng.standard_normal(300_001).astype(np.float32)
    now = then.copy()
    if changes == "everywhere":
        now += np.float32(0.5)
    elif changes == "two elements":
        now[[3, 250_000]] += np.float32(2.0)
    elif changes == "a run then isolated":
        now[10_000:150_000] -= np.float32(1.0)
        now[[150_001, 299_999]] = np.float32(9.0)
    elif changes == "nan where nan was":
        then[[7, 200_000]] = now[[7, 200_000]] = np.nan
        now[100_000:] *= np.float32(2.0)
    else:
        now[:] += np.float32(1.0)
        now[180_000] = np.nan
    differ = (now != then) & ~(np.isnan(now) & np.isnan(then))
    diff = np.where(differ, now.astype(np.float64) - then.astype(np.float64), 0.0)
    delta = host_pass(now, then, True)[1]
    assert delta is not None
    norm, count, largest, where = delta.norm, delta.changed, delta.largest, delta.where
    assert count == int(differ.sum())
    magnitude = np.abs(diff)
    if changes == "a nan appears":
        assert math.isnan(largest) and where == 180_000
        return
    assert norm == pytest.approx(float(np.sqrt(np.sum(diff * diff))), rel=1e-6)
    assert largest == float(magnitude.max()) and where == int(np.argmax(magnitude))


def test_a_watch_expressions_change_by_its_key_never_evaluates_it():
    import ast

    import tf_debug_repr

    # a watch expression's text is the program's: quotes, braces and pydevd's @ included
    key = ("watch", "/w/it's @here.py", "<module>", "d['{a}'] @ w")
    text = change_views.watch_change_expression(key)
    head = "__import__('tf_debug_repr').change_since_last_stop(watch="
    assert text is not None and text.startswith(head) and "@" not in text
    assert ast.literal_eval(text[len(head) : -1]) == key[1:]
    snapshots.next_stop()
    snapshots.observe_watched(key, tf.constant([1.0, 2.0]), looked=True)
    assert eval(text) is None  # noqa: S307  (the plugin's own call, literals only)
    snapshots.next_stop()
    assert eval(text) is None  # noqa: S307  (not yet seen at this stop: nothing to give)
    snapshots.observe_watched(key, tf.constant([1.0, 5.0]), looked=False)
    found = eval(text)  # noqa: S307
    assert isinstance(found, change_views.ChangeNode)
    assert found.change.norm == 3.0 and found.change.since_stop + 1 == found.change.at_stop
    # another function's expression of the same text is another key; a bad key says so
    assert tf_debug_repr.change_since_last_stop(watch=("/w/it's @here.py", "f", key[3])) is None
    assert "watch key" in tf_debug_repr.change_since_last_stop(watch="loss").text
    assert change_views.watch_change_expression(("watch", "/f.py", 3, "x")) is None


def test_a_watch_giving_the_same_tensor_again_is_not_measured_again(monkeypatch):
    """A watch expression that gives the very tensor it gave at the last stop (a tensor
    of the frame no step replaced): unchanged, with the figures of the pass that kept it,
    and no pass at this stop (an eager tensor never changes)."""
    from tf_debug_repr.forensics import one_pass

    key = ("watch", "/w/loop.py", "<module>", "t0")
    t0 = tf.constant([1.0, -2.0, 4.0])
    snapshots.next_stop()
    snapshots.observe_watched(key, t0, looked=True)
    kept = snapshots.version_figures(key, None, t0)
    assert kept is not None and (kept.stats.min, kept.stats.max) == (-2.0, 4.0)
    passes = []
    real = one_pass.measure
    monkeypatch.setattr(one_pass, "measure", lambda *a, **k: passes.append(1) or real(*a, **k))
    for _ in range(2):
        snapshots.next_stop()
        change = snapshots.observe_watched(key, t0, looked=False)
        assert change is not None and change.changed == 0 and change.norm == 0.0
        assert snapshots.version_figures(key, None, t0) is kept
    assert passes == []
    # another tensor under the same key, equal values or not, is measured
    snapshots.next_stop()
    change = snapshots.observe_watched(key, tf.constant([1.0, -2.0, 5.0]), looked=False)
    assert passes == [1] and change is not None and change.changed == 1 and change.norm == 1.0


def test_a_watch_rebound_to_another_shape_says_so_without_element_figures():
    """TF's advanced-autodiff guide: ``dy_dx`` a scalar, later a [201] tensor. The row
    says the shape changed; no ‖Δ‖ or max |Δ| rows reading nan."""
    key = ("watch", "/w/autodiff.py", "<module>", "dy_dx")
    snapshots.next_stop()
    snapshots.observe_watched(key, tf.constant(3.0), looked=True)
    snapshots.next_stop()
    change = snapshots.observe_watched(key, tf.linspace(-10.0, 10.0, 201), looked=False)
    assert change is not None and change.note == "shape or dtype changed: was float32[]"
    node = change_views.ChangeNode(change)
    rows = {c.name: c.value for c in node.children()}
    assert str(rows["note"]) == change.note
    assert not {"‖Δ‖", "changed", "max |Δ|", "share changed"} & set(rows), sorted(rows)
    assert node.summary().startswith("shape or dtype changed: was float32[] (stop ")
