"""Gradient capture on real TensorFlow, without a debugger: weak registry, history,
the off switch, tf.function, IndexedSlices, optimizer-changed gradients, tapes untouched."""

from __future__ import annotations

import gc
import re
import subprocess
import sys

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

import tf_debug_repr  # noqa: E402
from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.core import formatting as fmt  # noqa: E402
from tf_debug_repr.core.view_model import Note  # noqa: E402
from tf_debug_repr.gradients import capture  # noqa: E402
from tf_debug_repr.gradients import figures as gradient_figures  # noqa: E402
from tf_debug_repr.views import gradients as gradient_views  # noqa: E402
from tf_debug_repr.views import models as model_views  # noqa: E402
from tf_debug_repr.views import tapes as tape_views  # noqa: E402

pytestmark = pytest.mark.usefixtures("gradient_hooks")


def _named(opt) -> str:
    """How labels name an optimizer: its class, and Keras's name for it when Keras had to
    number it apart (``Adam 'adam_3'``: earlier tests in this process made Adams too)."""
    cls = type(opt).__name__
    return cls if opt.name == cls.lower() else f"{cls} {opt.name!r}"


def _rows(node) -> dict:
    """A node's children by name; text notes as plain strings."""
    return {c.name: str(v) if isinstance(v := c.resolve(), Note) else v for c in node.children()}


CALL = re.compile(r"call #(\d+) at test_gradient_capture\.py:\d+")


def _call_numbers(labels) -> list[int]:
    """The per-line call numbers of ``call #N at test_gradient_capture.py:L`` labels."""
    found = [CALL.fullmatch(label) for label in labels]
    assert all(found), labels
    return [int(m.group(1)) for m in found]


def _grad(v, fn):
    with tf.GradientTape() as tape:
        loss = fn(v)
    return tape.gradient(loss, v)


def test_records_are_weak_and_keyed_by_identity():
    v = tf.Variable([1.0, 2.0])
    g = _grad(v, lambda v: tf.reduce_sum(v * v))
    assert capture.record_of(v).gradient is g
    gc.collect()  # records of objects earlier tests dropped go first, not in the count below
    before = capture.live_records()
    del v, g
    gc.collect()
    assert capture.live_records() == before - 1


def test_keras_variable_and_the_tf_variable_inside_share_a_record():
    layer = keras.layers.Dense(2)
    layer.build((None, 3))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(tf.ones((1, 3))))
    grads = tape.gradient(loss, layer.trainable_variables)
    kernel = layer.trainable_variables[0]
    assert capture.record_of(kernel) is capture.record_of(kernel._value)
    assert capture.record_of(kernel).gradient is grads[0]
    assert tf_debug_repr.gradient_of(kernel._value) is grads[0]


def test_watched_tensor_by_identity_and_nested_sources():
    x = tf.constant([1.0, 2.0])
    y = tf.constant([1.0, 2.0])  # equal value, different object: no record
    v = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(x * x) * v
    out = tape.gradient(loss, {"a": [x], "b": (v,)})
    assert capture.record_of(x).gradient is out["a"][0]
    assert capture.record_of(v).gradient is out["b"][0]
    assert capture.record_of(y) is None


def test_history_is_bounded_and_norms_are_right():
    v = tf.Variable([3.0, 4.0])
    for i in range(capture.HISTORY + 5):
        _grad(v, lambda v, i=i: tf.reduce_sum(v) * float(i + 1))
    record = capture.record_of(v)
    norms = record.norms()
    assert len(norms) == capture.HISTORY
    assert norms[-1][2] == pytest.approx(np.sqrt(2) * (capture.HISTORY + 5))
    numbers = [n for n, _, _ in norms]
    assert numbers == list(range(6, capture.HISTORY + 6))  # the latest, numbered from 1
    # A fresh tape each time (its own count is always 1), yet each label tells the calls
    # at that line apart: one more per call.
    calls = _call_numbers(label for _, label, _ in norms)
    assert calls == list(range(calls[0], calls[0] + len(norms)))


def test_switching_capture_off_records_nothing_new():
    v = tf.Variable(1.0)
    _grad(v, lambda v: v * 2.0)
    count = capture.record_of(v).latest.count
    tf_debug_repr.set_gradient_capture(False)
    g = _grad(v, lambda v: v * 5.0)
    assert float(g) == 5.0  # the program still gets its gradient
    assert capture.record_of(v).latest.count == count
    tf_debug_repr.set_gradient_capture(True)
    _grad(v, lambda v: v * 7.0)
    assert float(capture.record_of(v).gradient) == 7.0


def test_traced_gradients_keep_no_graph_tensor_and_their_runs_keep_values():
    """A trace records where (no graph tensor kept); each run of the compiled function
    leaves the values it computed (see gradients/compiled.py)."""
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * 3.0)
        return tape.gradient(loss, v)

    step.get_concrete_function()  # traced, never run
    record = capture.record_of(v)
    assert record.gradient is None and record.symbolic_in
    info = gradient_views.gradient_info(v)
    assert info.summary().startswith("∇ not available: computed inside tf.function")
    assert "∇ in tf.function" in views.summary(v)
    assert step().numpy().tolist() == [3.0, 3.0]
    kept = capture.record_of(v).gradient
    assert kept.numpy().tolist() == [3.0, 3.0] and not tf.is_symbolic_tensor(kept)
    assert "∇‖g‖=4.243@call #1 at test_gradient_capture.py:" in views.summary(v)


def test_indexed_slices_gradient_norm():
    table = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), (4, 3)))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, [0, 2]) * 2.0)
    g = tape.gradient(loss, table)
    assert isinstance(g, tf.IndexedSlices)
    assert capture.record_of(table).norm == pytest.approx(float(tf.norm(tf.convert_to_tensor(g))))
    info = gradient_views.gradient_info(table)
    assert "IndexedSlices float32[4, 3] rows=2" in info.summary()
    assert {"values", "indices"} <= {c.name for c in info.children()}


def test_optimizer_keeps_the_tape_gradient_and_what_it_applied():
    v = keras.Variable([1.0, -2.0])
    opt = keras.optimizers.SGD(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v) * 10.0
    (g,) = tape.gradient(loss, [v])
    clipped = tf.clip_by_norm(g, 1.0)
    opt.apply_gradients([(clipped, v)])
    record = capture.record_of(v)
    assert record.gradient is g and record.applied is clipped and record.applied_by == "SGD"
    label = f"{_named(opt)} iteration 0"
    assert record.label == label and record.history[-1][1] == label


def test_optimizer_alone_records_gradients_computed_elsewhere():
    v = keras.Variable([1.0, 2.0])
    opt = keras.optimizers.SGD(0.1)
    opt.apply_gradients([(tf.constant([0.5, 0.5]), v)])
    record = capture.record_of(v)
    assert record.origin == "SGD.apply" and record.norm == pytest.approx(np.sqrt(0.5))


def test_looking_at_a_tape_never_uses_it():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        loss = v * v
        # Non-persistent is the default: only "persistent" is said.
        assert tape_views.tape_summary(tape) == "recording, watches 1 variable, GradientTape"
        for child in tape_views.tape_children(tape):
            child.resolve()
        views.children(v)  # reading a watched variable while the tape records
    assert tape_views.tape_summary(tape).startswith("stopped (can still compute gradients)")
    assert float(tape.gradient(loss, v)) == 4.0  # the program's one call still works
    # What it computed first, then that its one call is used up.
    assert tape_views.tape_summary(tape).startswith("1 gradient of loss, used up, watches 1")


def test_module_tree_counts_parameters():
    class Net(tf.Module):
        def __init__(self):
            super().__init__(name="net")
            self.w = tf.Variable(tf.ones((3, 2)))
            self.frozen = tf.Variable(tf.ones(4), trainable=False)
            self.parts = [tf.Module(name="inner")]

    net = Net()
    assert views.summary(net) == "10 params (4 non-trainable), 2 variables, Net 'net'"
    names = [c.name for c in views.children(net)]
    assert names[:3] == ["w", "frozen", "parts[0]"]


def test_package_import_stays_light():
    code = "import sys, tf_debug_repr; assert 'tensorflow' not in sys.modules and not any(m.startswith('pydev') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# --------------------------------------------------------------------------- labels


def test_labels_name_the_tape_call_then_the_optimizer_iteration():
    v = keras.Variable([1.0, 2.0])
    opt = keras.optimizers.Adam(0.1)
    labels = []
    for step in range(3):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * v)
        (g,) = tape.gradient(loss, [v])
        # Before the optimizer applies it: which call at that line (step 1 != step 3).
        label = capture.record_of(v).label
        assert f"∇‖g‖={fmt.number(capture.record_of(v).norm)}@{label} Variable" in views.summary(v)
        labels.append(label)
        before = int(opt.iterations.numpy())
        opt.apply_gradients([(g, v)])
        record = capture.record_of(v)
        assert before == step and record.iteration == before
        assert record.label == f"{_named(opt)} iteration {step}"
        assert f"@{_named(opt)} iteration {step} Variable '" in views.summary(v), views.summary(v)
    first = _call_numbers(labels)[0]
    assert _call_numbers(labels) == [first, first + 1, first + 2]
    info = gradient_views.gradient_info(v)
    adam = _named(opt)
    assert info.summary().startswith(f"∇ {adam} iteration 2 ‖g‖=")
    rows = _rows(info)
    assert rows["iteration"] == 2 and rows["tape call"] == 1
    assert rows["applied by"].startswith(f"{adam} at iteration 2 (its `iterations` was 2")
    assert rows["target"].startswith("loss at test_gradient_capture.py:")
    history = [c.name for c in rows["‖g‖ history"].children()]
    assert history == [f"#{n + 1} {adam} iteration {n}" for n in (2, 1, 0)]


def test_two_models_two_optimizers_each_labelled_by_its_own():
    gen = keras.Sequential([keras.Input((2,)), keras.layers.Dense(2)])
    disc = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    g_opt, d_opt = keras.optimizers.Adam(1e-3), keras.optimizers.SGD(1e-3)
    z = tf.ones((4, 2))
    for _ in range(2):
        for _ in range(3):  # WGAN-style: several critic updates per generator update
            with tf.GradientTape() as tape:
                d_loss = tf.reduce_mean(disc(gen(z)))
            grads = tape.gradient(d_loss, disc.trainable_weights)
            d_opt.apply_gradients(zip(grads, disc.trainable_weights, strict=True))
        with tf.GradientTape() as tape:
            g_loss = -tf.reduce_mean(disc(gen(z)))
        grads = tape.gradient(g_loss, gen.trainable_weights)
        g_opt.apply_gradients(zip(grads, gen.trainable_weights, strict=True))
    assert views.summary(gen).endswith(f"@{_named(g_opt)} iteration 1, Sequential {gen.name!r}")
    assert views.summary(disc).endswith(f"@{_named(d_opt)} iteration 5, Sequential {disc.name!r}")
    kernel = gradient_views.gradient_info(gen.trainable_weights[0])
    assert _rows(kernel)["target"].startswith("g_loss")


def test_two_optimizers_of_one_class_read_apart():
    a, b = keras.Variable([1.0]), keras.Variable([2.0])
    opt_a, opt_b = keras.optimizers.Adam(0.1), keras.optimizers.Adam(0.1)
    assert opt_a.name != opt_b.name  # Keras numbers them: adam, adam_1, …
    for v, opt in ((a, opt_a), (b, opt_b), (b, opt_b)):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * v)
        (g,) = tape.gradient(loss, [v])
        opt.apply_gradients([(g, v)])
    label_a, label_b = capture.record_of(a).label, capture.record_of(b).label
    assert label_a.endswith("iteration 0") and label_b.endswith("iteration 1")
    assert label_a.startswith("Adam") and label_b.startswith("Adam")
    assert label_a.replace(" iteration 0", "") != label_b.replace(" iteration 1", "")


def test_one_persistent_tape_keeps_each_target_apart():
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        loss_a = tf.reduce_sum(w * w)
        loss_b = tf.reduce_sum(3.0 * w)
    for _ in range(2):
        ga = tape.gradient(loss_a, w)
        gb = tape.gradient(loss_b, w)
    source = capture.record_of(w)
    by_target = {r.target: r for r in source.all_targets()}
    assert set(by_target) == {"loss_a", "loss_b"}
    assert by_target["loss_a"].gradient is ga and by_target["loss_b"].gradient is gb
    # Each line's own count: the 1st and 2nd call at loss_a's line (the tape's own count
    # is 1 and 3 there).
    labels = [label for _, label, _ in by_target["loss_a"].norms()]
    assert _call_numbers(labels) == [1, 2] and len(set(labels)) == 2
    assert [n for _, _, n in by_target["loss_b"].norms()] == pytest.approx([np.sqrt(18)] * 2)
    b_label = by_target["loss_b"].label
    assert _call_numbers([b_label]) == [2] and b_label != labels[-1]
    assert f"@{b_label} of loss_b Variable '" in views.summary(w), views.summary(w)
    info = gradient_views.gradient_info(w)
    targets = dict((c.name, c) for c in info.children())["all targets"]
    assert targets.expression == ".targets()"
    shown = {c.name.split(" at ")[0]: c.resolve() for c in targets.resolve().children()}
    assert shown["loss_a"].gradient is ga and shown["loss_b"].gradient is gb
    assert shown["loss_a"].summary().startswith(f"∇ of loss_a, {labels[-1]} ‖g‖=4.472")
    # A persistent tape answers several calls: the summary says which of its own.
    assert tape_views.tape_summary(tape).startswith("1 gradient of loss_b (call #4), stopped")


def test_gradient_table_rows_are_named_by_weight_path():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d")])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(tf.ones((1, 3))))
    tape.gradient(loss, model.trainable_variables)
    table = model_views.gradient_table(model)
    rows = table.children()
    assert [r.name for r in rows] == [w.path for w in model.trainable_variables]
    assert all(CALL.match(r.resolve().summary().removeprefix("∇ ")) for r in rows)
    assert all(" ‖g‖=" in r.resolve().summary() for r in rows)


# --------------------------------------------------------------------------- failures


def test_a_capture_failure_is_reported_once_and_shown(monkeypatch, capsys):
    def broken(gradient):
        raise RuntimeError("norm exploded")

    monkeypatch.setattr(capture, "norm_of", broken)
    monkeypatch.setattr(capture, "failures", {})
    v = tf.Variable([1.0, 2.0])
    for _ in range(3):
        g = _grad(v, lambda v: tf.reduce_sum(v * 2.0))
    assert g.numpy().tolist() == [2.0, 2.0]  # training is not affected
    err = capsys.readouterr().err
    assert err.count("gradient capture (norm) failed: RuntimeError: norm exploded") == 1, err
    info = gradient_views.gradient_info(v)
    rows = _rows(info)
    assert "norm exploded" in rows["capture problem"]
    assert info.gradient is g  # the value is still there


# --------------------------------------------------------------------------- budget


@pytest.fixture
def small_budget():
    gc.collect()  # records of earlier tests' variables give their bytes back
    capture.set_budget_mb(1024 / (1 << 20))  # 1 KiB
    yield
    capture.set_budget_mb(None)


def test_over_the_budget_only_figures_are_kept(small_budget):
    big = keras.Variable(np.linspace(-1, 1, 64 * 64, dtype="float32").reshape(64, 64))
    small = keras.Variable(np.ones(16, dtype="float32"))  # 64 bytes
    opt = keras.optimizers.SGD(0.0)
    before = capture.retained_bytes()
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(big * big * big) + tf.reduce_sum(small * 3.0)
    g_big, g_small = tape.gradient(loss, [big, small])
    opt.apply_gradients([(g_big, big), (g_small, small)])
    assert capture.retained_bytes() - before == 64 <= capture.budget_bytes()
    assert tf_debug_repr.gradient_of(small) is g_small
    assert tf_debug_repr.gradient_of(big) is None
    record = capture.record_of(big).latest
    expected = g_big.numpy().astype(np.float64)
    assert record.norm == pytest.approx(np.linalg.norm(expected), rel=1e-5)
    stats = record.figures.stats()
    assert (stats.min, stats.max) == pytest.approx((expected.min(), expected.max()))
    assert (stats.mean, stats.std) == pytest.approx((expected.mean(), expected.std()), rel=1e-5)
    assert stats.bad == 0
    assert record.label == f"{_named(opt)} iteration 0"  # matched though the value was dropped
    info = gradient_views.gradient_info(big)
    assert "values not kept (memory budget)" in info.summary()
    assert f"n=4,096 x∈[{fmt.number(stats.min)}, {fmt.number(stats.max)}]" in info.summary()
    rows = _rows(info)
    assert "TF_DEBUG_REPR_GRADIENT_BUDGET_MB=" in rows["values"]
    assert "exploded" not in rows["values"] and "value" not in rows
    assert f"@{_named(opt)} iteration 0 Variable '" in views.summary(big)
    returned = [c.resolve() for c in tape_views.last_gradients(tape).children()]
    assert "values not kept (memory budget)" in str(returned[0]) and returned[1] is g_small


def test_over_the_budget_sampled_figures_and_exact_bad_counts(small_budget, monkeypatch):
    monkeypatch.setattr(gradient_figures, "SAMPLE", 100)
    values = np.arange(4000, dtype="float32")
    values[[7, 3001]] = np.nan
    values[10] = np.inf
    x = tf.constant(values)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 1.0
    g = tape.gradient(y, x, output_gradients=x)  # the gradient equals the values
    record = capture.record_of(x).latest
    assert record.gradient is None and record.figures.stride == 40
    stats = record.figures.stats()
    assert (stats.nan, stats.posinf, stats.neginf) == (2, 1, 0)
    sample = values[::40]
    sample = sample[np.isfinite(sample)].astype(np.float64)
    assert (stats.min, stats.max, stats.mean) == pytest.approx(
        (sample.min(), sample.max(), sample.mean())
    )
    text = gradient_views.gradient_info(x).summary()
    assert text.startswith("‼ ∇ call #") and " ‖g‖=NaN" in text and "NaN×2 +Inf×1" in text, text
    assert "every 40-th element" in text
    assert np.array_equal(g.numpy(), values, equal_nan=True)
    # The same figures reduced by TF ops (the path for GPU tensors), read when shown.
    on_device = gradient_figures.device_figures(x, 40).numpy()
    assert on_device[4:].tolist() == [2.0, 1.0, 0.0]
    assert on_device[:3] == pytest.approx([sample.min(), sample.max(), sample.mean()])


def test_budget_frees_bytes_of_dropped_variables(small_budget):
    before = capture.retained_bytes()
    v = tf.Variable(np.ones(8, dtype="float32"))
    _grad(v, lambda v: tf.reduce_sum(v))
    _grad(v, lambda v: tf.reduce_sum(v))
    assert capture.retained_bytes() - before == 32  # the latest only
    del v
    gc.collect()
    assert capture.retained_bytes() == before


def test_capture_works_where_tf_has_no_private_has_strategy(monkeypatch):
    """TF <= 2.12 has no ``distribute_lib.has_strategy`` (issue 16): capture must not
    depend on it, or every ``tape.gradient`` fails to record."""
    from tensorflow.python.distribute import distribute_lib

    monkeypatch.delattr(distribute_lib, "has_strategy", raising=False)
    failures_before = dict(capture.failures)
    v = tf.Variable([1.0, 2.0])
    g = _grad(v, lambda v: tf.reduce_sum(v * v))
    assert capture.record_of(v).gradient is g
    assert capture.failures == failures_before


def test_a_jacobians_rows_are_not_read_as_the_programs_gradients():
    """TF's advanced-autodiff guide: ``tape.jacobian`` and ``batch_jacobian`` call
    ``tape.gradient`` once per row of their result (a loop_fn that pfor traces, or a while
    loop runs). Those are not the program's gradients: nothing is recorded (before, one
    row's gradient read as the variable's, at TF's control_flow_ops.py), no op goes into
    pfor's loop body, and the results are TF's."""
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        y = x * x
        z = tf.reshape(x, [1, 3]) * tf.ones([2, 1])
    eager = tape.jacobian(y, x)
    looped = tape.jacobian(y, x, experimental_use_pfor=False)
    batch = tape.batch_jacobian(z, tf.ones([2, 3]), unconnected_gradients="zero")
    assert capture.record_of(x) is None
    expected = np.diag([2.0, 4.0, 6.0])
    assert np.array_equal(eager.numpy(), expected) and np.array_equal(looped.numpy(), expected)
    assert batch.shape == (2, 3, 3)

    @tf.function
    def compiled(v):
        with tf.GradientTape() as inner:
            out = v * v
        return inner.jacobian(out, v)

    assert np.array_equal(compiled(x).numpy(), expected)
    assert capture.record_of(x) is None
    with tf.GradientTape() as plain:
        loss = tf.reduce_sum(x * x)
    plain.gradient(loss, x)  # the program's own gradient: recorded as ever
    assert capture.record_of(x) is not None


def test_a_non_persistent_tape_after_its_jacobian_reads_used_up():
    from tf_debug_repr import views

    views.build_table()
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = x * x
    assert views.summary(tape).startswith("stopped")
    tape.jacobian(y, x)
    assert "used up" in views.summary(tape), views.summary(tape)
    never = tf.GradientTape()
    assert "not started" in views.summary(never)


def _record(target: str, site: str, optimizer: str | None, steps: list[tuple[int, float]]):
    from tf_debug_repr.gradients.records import GradientRecord

    record = GradientRecord(name="w", target=target, site=site, applied_by=optimizer)
    for step, norm in steps:
        record.count += 1
        label = f"{optimizer} iteration {step}" if optimizer else f"call #{record.count}"
        record.history.append((record.count, label, norm))
    return record


def test_one_optimizers_steps_over_two_targets_read_as_one_series():
    """A step run eagerly for a breakpoint in it files its gradient at its tape's line, the
    compiled ones at the optimizer's apply: the latest gradient's history reads the
    optimizer's steps in order, numbered by them; each target's own keeps its own, and
    another optimizer's steps stay apart."""
    from tf_debug_repr.gradients.records import SourceRecord

    eager = _record("loss", "train.py:12", "Adam", [(0, 9.0)])
    compiled = _record("gradients passed to Adam.apply", "", "Adam", [(1, 8.0), (2, 7.5)])
    other = _record("loss", "probe.py:3", "SGD", [(0, 1.0)])
    source = SourceRecord(name="w")
    source.targets = {("a", "loss", None): eager, ("", "apply", None): compiled}
    source.latest = compiled
    assert source.norms_of(compiled) == [
        (1, "Adam iteration 0", 9.0),
        (2, "Adam iteration 1", 8.0),
        (3, "Adam iteration 2", 7.5),
    ]
    assert source.norms() == source.norms_of(compiled)
    assert [n for _, _, n in source.norms_of(eager)] == [9.0, 8.0, 7.5]
    info = views.gradients.GradientInfo(source)
    assert "last 3 gradients 9 → 7.5" in info.norms.summary()
    assert info.norms.at(1) == 9.0
    assert views.gradients.GradientInfo(source, compiled).norms.norms == compiled.norms()
    source.targets[("b", "loss", None)] = other
    assert [n for _, _, n in source.norms_of(compiled)] == [9.0, 8.0, 7.5]
    unapplied = _record("loss", "train.py:12", None, [(0, 3.0)])
    source.targets = {("a", "loss", None): unapplied, ("", "apply", None): compiled}
    assert source.norms_of(compiled) == compiled.norms()
