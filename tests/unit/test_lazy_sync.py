"""A stop builds a compiled step's gradient records only for the weights something asks
for (issue 27): the model's global norm reads each site's ring of squared norms, no
weight's values; a weight asked for stops later shows what the ring still holds, its
steps counted."""

from __future__ import annotations

import math

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr.gradients import capture, compiled  # noqa: E402
from tf_debug_repr.gradients.records import HISTORY  # noqa: E402

pytestmark = pytest.mark.usefixtures("gradient_hooks")


def small_model(seed: int = 7):
    keras.utils.set_random_seed(seed)
    return keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(5), keras.layers.Dense(3), keras.layers.Dense(1)]
    )


def step_for(model, optimizer):
    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        return grads

    return step


def batch(seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.random((8, 4), dtype=np.float32), rng.random((8, 1), dtype=np.float32)


def built(weight) -> bool:
    """Whether the weight has a gradient recorded now, without asking for one (which
    builds it); the trace left a record of the symbolic gradient, with none recorded."""
    source = capture._lookup(weight)
    return source is not None and source.latest is not None


def test_only_the_weights_asked_for_get_records_and_the_global_norm_builds_none():
    from tf_debug_repr.views.gradients import global_mark, latest_norms

    model = small_model()
    step = step_for(model, keras.optimizers.Adam(1e-3))
    x, y = batch()
    for _ in range(3):
        grads = step(x, y)
    weights = model.trainable_weights
    exact = [float(np.linalg.norm(g.numpy())) for g in grads]  # the third step's
    mark = global_mark(weights)
    assert not any(built(w) for w in weights), "the global norm built a weight's record"
    # Every weight here is under SAMPLE elements: the ring's norms are exact (float32).
    assert mark.startswith("∇‖g‖=") and mark.endswith(" iteration 2"), mark
    assert "~" not in mark
    norms = latest_norms(weights)
    assert [n[0] for n in norms] == pytest.approx(exact, rel=1e-5)
    (label,) = {n[2] for n in norms}

    # Asking for one weight builds that one only, with every step the ring holds.
    record = capture.record_of(weights[2])
    assert record is not None and built(weights[2])
    assert [w for w in weights if built(w)] == [weights[2]]
    latest = record.latest
    assert latest.label == label and mark.endswith(f"@{label}")
    prefix = label.removesuffix(" 2")
    assert [text for _, text, _ in latest.norms()] == [f"{prefix} {k}" for k in range(3)]
    assert latest.norm == pytest.approx(exact[2], rel=1e-6)  # exact, from its kept values
    assert latest.gradient.numpy() == pytest.approx(grads[2].numpy())
    # The global norm reads the same whichever weights were built.
    assert global_mark(weights) == mark
    total = math.sqrt(sum(n * n for n in exact))
    shown = float(mark.removeprefix("∇‖g‖=").split("@")[0])
    assert shown == pytest.approx(total, rel=1e-3)


def test_a_weight_first_asked_for_stops_later_holds_what_the_ring_holds_its_steps_counted():
    model = small_model(seed=8)
    step = step_for(model, keras.optimizers.SGD(1e-3))
    x, y = batch(1)
    step(x, y)
    first, late = model.trainable_weights[0], model.trainable_weights[4]
    assert capture.record_of(first).latest.count == 1  # a "stop" after step 1
    for _ in range(HISTORY + 5):  # more steps than the ring holds, between "stops"
        step(x, y)
    steps = HISTORY + 6
    for weight in (first, late):
        record = capture.record_of(weight).latest
        numbers = [n for n, _, _ in record.norms()]
        assert record.count == steps
        assert numbers == list(range(steps - HISTORY + 1, steps + 1))
        assert record.label.endswith(f" iteration {steps - 1}"), record.label
        assert all(n is not None and n > 0 for _, _, n in record.norms())


def test_steps_after_a_weight_was_built_are_pending_again_and_the_old_values_let_go():
    model = small_model(seed=9)
    step = step_for(model, keras.optimizers.SGD(1e-2))
    x, y = batch(2)
    step(x, y)
    kernel = model.trainable_weights[0]
    found = compiled.pending([kernel])[0]
    assert found is not None
    first = found[0]
    capture.record_of(kernel)  # built; its norm never read
    assert compiled.pending([kernel]) == [None]  # built: the record tells
    grads = step(x, y)
    found = compiled.pending([kernel])[0]
    assert found is not None
    norm, sampled, label = found
    assert not sampled and label.startswith("SGD") and label.endswith(" iteration 1"), label
    assert norm == pytest.approx(float(np.linalg.norm(grads[0].numpy())), rel=1e-5)
    record = capture.record_of(kernel).latest
    assert record.label == label  # the label the record has once built
    # the first step's entry, never read, keeps the ring's figure (exact: 20 elements),
    # no longer that step's kept values
    (entry,) = [value for _, _, value in list(record.history)[:-1]]
    assert isinstance(entry, compiled._Norm) and entry._reading is None
    assert entry.numpy() == pytest.approx(first, rel=1e-5) and not entry.estimated
    assert not record.norms()[0][1].endswith("~")


def test_a_model_row_counts_the_pending_weights_as_recorded_without_building_them():
    from tf_debug_repr.views import models

    model = small_model(seed=10)
    step = step_for(model, keras.optimizers.Adam(1e-3))
    x, y = batch(3)
    step(x, y)
    weights = list(model.trainable_weights)
    table = models.GradientTable(weights)
    summary = table.summary()
    assert summary.endswith("6 of 6 trainable weights recorded"), summary
    assert not any(built(w) for w in weights)
    assert "∇‖g‖=" in models.layer_summary(model)
    assert not any(built(w) for w in weights)
    rows = table.children()  # the table's rows are shown: now each is built
    assert all(built(w) for w in weights)
    assert all(row.value.summary().startswith("∇ Adam") for row in rows)
    assert all(" iteration 0 ‖g‖=" in row.value.summary() for row in rows)


def test_a_big_weights_norm_never_read_before_its_next_step_keeps_the_rings_estimate_marked():
    """Built (a view asked for its step count) but its norm never shown: the next step's
    record lets the kept values go, and the history shows the ring's estimate as one."""
    keras.utils.set_random_seed(11)
    model = keras.Sequential([keras.Input((512,)), keras.layers.Dense(300)])
    step = step_for(model, keras.optimizers.SGD(0.0))
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 512), dtype=np.float32)
    y = rng.standard_normal((8, 300), dtype=np.float32)
    kernel = model.trainable_weights[0]  # 153,600 elements: its step norm is sampled
    grads = step(x, y)
    assert capture.record_of(kernel).latest.count == 1  # built, norm not read
    exact_first = float(np.linalg.norm(grads[0].numpy()))
    grads = step(x, y)
    record = capture.record_of(kernel).latest
    (n1, label1, first), (n2, label2, last) = record.norms()
    assert (n1, n2) == (1, 2)
    assert label1.endswith(" ~") and not label2.endswith("~")
    assert first == pytest.approx(exact_first, rel=0.05)
    assert last == pytest.approx(float(np.linalg.norm(grads[0].numpy())), rel=1e-5)  # exact


def test_a_global_norm_reads_each_sites_counter_once(monkeypatch):
    from tf_debug_repr.views.gradients import global_mark

    model = small_model(seed=12)
    step = step_for(model, keras.optimizers.Adam(1e-3))
    x, y = batch(5)
    step(x, y)
    looks = []
    real = compiled._look_now
    monkeypatch.setattr(compiled, "_look_now", lambda: looks.append(1) or real())
    capture.record_of(model.trainable_weights[0])  # one built, the others pending
    looks.clear()
    mark = global_mark(model.trainable_weights)
    assert mark.startswith("∇‖g‖=") and len(looks) == 1, (mark, looks)
    step(x, y)  # outside the block every look reads the counters again
    assert global_mark(model.trainable_weights) != mark and len(looks) == 2


def test_a_models_change_row_reads_each_sites_counter_once_and_counts_the_new_steps(
    monkeypatch, fresh_forensics
):
    """The model's ``Δ since last stop`` row asks for each weight's steps (a ResNet-50's
    320 counter reads were 17% of expanding it): one read of the counters for the row,
    read again at the next stop, whose changes count the steps run since."""
    from tf_debug_repr.forensics import change_views, snapshots

    model = small_model(seed=13)
    step = step_for(model, keras.optimizers.Adam(1e-3))
    x, y = batch(6)
    step(x, y)
    snapshots.next_stop()
    assert change_views.weight_changes(model, True) is None  # tracked from now: no change yet
    looks = []
    real = compiled._look_now
    monkeypatch.setattr(compiled, "_look_now", lambda: looks.append(1) or real())
    for steps in (1, 2):
        for _ in range(steps):
            step(x, y)
        snapshots.next_stop()
        looks.clear()
        changes = change_views.weight_changes(model, True)
        assert changes is not None and len(looks) == 1, looks
        found = [change for _, _, change in changes.weights]
        assert len(found) == len(model.trainable_weights)
        assert all(c is not None and c.steps == steps and c.norm > 0 for c in found), found


def test_a_request_reads_each_sites_counter_once_and_the_next_request_after_a_step_again(
    monkeypatch, fresh_forensics
):
    """pydevd's expansion of a model is one provider call: its rows' records (each
    weight's steps, the global norm) read the counters once; a step run before the next
    request (a Watch that trains) is read by that request, whose rows show it."""
    from tf_debug_repr.hosts.pydevd.adapter import TensorResolveProvider, TensorStrProvider

    model = small_model(seed=14)
    step = step_for(model, keras.optimizers.Adam(1e-3))
    x, y = batch(7)
    step(x, y)
    looks = []
    real = compiled._look_now
    monkeypatch.setattr(compiled, "_look_now", lambda: looks.append(1) or real())
    children = TensorResolveProvider().get_contents_debug_adapter_protocol(model)
    assert children and len(looks) == 1, looks
    kernel = model.trainable_weights[0]
    line = TensorStrProvider().get_str_in_context(kernel, "watch")
    assert len(looks) == 2 and "iteration 0" in line, (looks, line)
    step(x, y)
    after = TensorStrProvider().get_str_in_context(kernel, "watch")
    assert len(looks) == 3 and "iteration 1" in after, (looks, after)
