"""What a step cannot change is computed once per layer (views/models.py ``_structure``),
and computed again when the structure does change between stops; the host compare of
``Δ since last stop`` gives TF's figures."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.views import models  # noqa: E402


@pytest.fixture(autouse=True)
def fresh():
    views.build_table()
    models.forget_structures()
    yield
    models.forget_structures()


def _names(model: object) -> list[str]:
    return [c.name for c in views.children(model)]


def test_a_model_that_gains_a_layer_between_stops_shows_it():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="first")])
    assert "1 layer" in views.summary(model) and "first (Dense)" in _names(model)
    kept = models._structures[model]
    assert models._structure(model)[0] is kept  # the second look reuses it
    model.add(keras.layers.Dense(2, name="second"))
    summary = views.summary(model)
    assert "2 layers" in summary and "23 params" in summary  # 4*3+3 + 3*2+2
    assert "second (Dense)" in _names(model)
    assert models._structures[model] is not kept


def test_a_models_trainable_weights_are_kept_and_read_again_when_a_layer_is_frozen():
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(3, name="a"), keras.layers.Dense(2, name="b")]
    )
    structure = models._structure(model)[0]
    found = models._trainable_weights(model, structure)
    assert list(map(id, found)) == list(map(id, model.trainable_weights)) and len(found) == 4
    assert models._structure(model)[0].trainable is not None  # kept with the structure
    assert list(map(id, models._trainable_weights(model, models._structure(model)[0]))) == list(
        map(id, found)
    )
    model.layers[0].trainable = False  # a frozen layer: its weights' flags change
    again = models._structure(model)[0]
    assert again is not structure  # the flags are part of what a structure is kept by
    assert list(map(id, models._trainable_weights(model, again))) == list(
        map(id, model.trainable_weights)
    )
    assert len(model.trainable_weights) == 2
    model.trainable = False
    assert models._trainable_weights(model, models._structure(model)[0]) == []
    names = _names(model)
    assert "∇ gradients" not in names and "all weights" in names


class _Subclassed(keras.Model):
    def __init__(self) -> None:
        super().__init__()
        self.dense = keras.layers.Dense(3)

    def call(self, inputs):  # type: ignore[override]
        return self.dense(inputs)


def test_a_subclassed_models_output_shape_shows_after_its_first_symbolic_call():
    net = _Subclassed()
    net(np.zeros((2, 5), "float32"))  # built eagerly: no output shape known yet
    assert "→" not in views.summary(net), views.summary(net)
    kept = models._structures[net]
    key = models.summary_key(net)
    net(keras.Input((5,)))  # a symbolic call: weights and sublayers unchanged
    assert "18 params → [None, 3]" in views.summary(net), views.summary(net)
    assert models._structures[net] is kept  # the structure is kept, its shape read again
    assert models.summary_key(net) != key  # a host keeping the line reads it again
    assert models.summary_key(net) == models.summary_key(net)


def test_a_layer_built_between_stops_shows_its_weights():
    layer = keras.layers.Dense(5, name="late")
    assert views.summary(layer).startswith("not built yet")
    layer.build((None, 2))
    summary = views.summary(layer)
    assert summary.startswith("15 params") and "kernel[2, 5]" in summary


def test_a_popped_layer_is_gone_and_the_counts_follow():
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(3, name="a"), keras.layers.Dense(2, name="b")]
    )
    assert "2 layers" in views.summary(model)
    model.pop()
    assert "1 layer" in views.summary(model) and "15 params" in views.summary(model)
    assert "b (Dense)" not in _names(model)


def test_weights_values_are_read_at_every_look_while_the_structure_is_kept():
    layer = keras.layers.Dense(2, name="d")
    layer.build((None, 2))
    kernel = next(c for c in views.children(layer) if c.name.startswith("kernel")).value
    before = views.summary(kernel)
    kernel.assign(tf.fill([2, 2], 7.0))
    assert views.summary(kernel) != before and "7" in views.summary(kernel)
    assert models._structure(layer)[0] is models._structures[layer]


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "bool", "float64"])
def test_the_host_compare_gives_tfs_figures(dtype):
    """The one pass on the host (numpy on the buffers) and on a device (TF's ops, run here
    on the CPU) give the same figures and change."""
    from tf_debug_repr.forensics import one_pass

    rng = np.random.default_rng(1)
    start = rng.normal(size=(300, 70)) * 10
    then = tf.constant(start.astype(dtype) if dtype != "bool" else start > 0)
    changed = start.copy()
    changed[5, 6], changed[299, 69], changed[150, 0] = 1e3, -2e3, np.nan
    now = tf.constant(changed.astype(dtype) if dtype != "bool" else changed > 1)
    host_figures, host = one_pass.measure(now, then)
    device_figures, device = one_pass.device_pass(now, then, dtype != "bool", 21000)
    assert host is not None and device is not None
    assert host.changed == device.changed
    assert host.where == device.where
    assert host.largest == pytest.approx(device.largest, rel=1e-12, nan_ok=True)
    assert host.norm == pytest.approx(device.norm, rel=1e-12, nan_ok=True)
    a, b = host_figures.stats, device_figures.stats
    assert (a.min, a.max, a.nan, a.posinf, a.neginf, a.true_count) == (
        b.min,
        b.max,
        b.nan,
        b.posinf,
        b.neginf,
        b.true_count,
    )
    assert a.mean == pytest.approx(b.mean, rel=1e-12)
    assert a.std == b.std if a.std is None else a.std == pytest.approx(b.std, rel=1e-12)
    assert host_figures.norm == pytest.approx(device_figures.norm, rel=1e-12)
    if dtype != "bool":
        np.testing.assert_allclose(host_figures.cells, device_figures.cells, rtol=1e-6)


def test_nan_where_nan_was_is_unchanged_on_the_host():
    then = tf.constant([1.0, np.nan, 3.0, np.inf])
    now = tf.constant([1.0, np.nan, 5.0, np.inf])
    from tf_debug_repr.forensics import one_pass

    delta = one_pass.measure(now, then)[1]
    assert delta is not None
    assert (delta.norm, delta.changed, delta.largest, delta.where) == (2.0, 1, 2.0, 2)
