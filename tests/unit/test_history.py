"""A variable's history across stops, recorded without a debugger (stops advanced by
hand): figures, labels, bounds, the budget, exports and the sparkline."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

import tf_debug_repr  # noqa: E402
from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.forensics import history, snapshots  # noqa: E402
from tf_debug_repr.forensics import history_views as hv  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_forensics")  # tests/unit/conftest.py


def _truth(value: np.ndarray) -> list[float]:
    a = value.astype(np.float64)
    finite = a[np.isfinite(a)]
    return [
        float(finite.min()),
        float(finite.max()),
        float(finite.mean()),
        float(finite.std()),
        float(np.linalg.norm(finite)),
        int(np.isnan(a).sum()),
        int(np.isinf(a).sum()),
    ]


def _figures(entry: history.Entry) -> list[float]:
    return [getattr(entry, name) for name in hv.FIGURES]


def test_sparkline():
    assert hv.sparkline([1.0, 2.0, 3.0]) == "▁▅█"
    assert hv.sparkline([2.0, 2.0]) == "▅▅"
    assert hv.sparkline([1.0, math.nan, None, 3.0]) == "▁  █"
    assert hv.sparkline([]) == "" and hv.sparkline([math.inf]) == ""
    assert len(hv.sparkline([float(i) for i in range(40)])) == hv.SPARK_POINTS


def test_one_entry_per_stop_with_the_values_figures_nan_and_inf_counted():
    start = np.random.default_rng(0).normal(size=(6, 7)).astype(np.float32)
    w = tf.Variable(start)
    truths = []
    for i in range(4):
        snapshots.next_stop()
        views.children(w)  # expanding is looking
        views.summary(w)  # asked again at the same stop: still one entry
        truths.append(_truth(w.numpy()))
        w.assign_add(tf.fill(w.shape, float(i + 1)))
        if i == 2:
            w[0, 0].assign(math.nan)
            w[1, 1].assign(-math.inf)
    snapshots.next_stop()
    truths.append(_truth(w.numpy()))
    found = tf_debug_repr.history(w)
    assert [e.stop for e in found.entries][-5:] == list(
        range(found.entries[0].stop, found.entries[0].stop + 5)
    )
    for entry, truth in zip(found.entries, truths, strict=True):
        assert _figures(entry) == pytest.approx(truth, rel=1e-9)
    assert (found.entries[-1].nan, found.entries[-1].inf) == (1, 1)
    assert "‼NaN=1 Inf=1" in hv.EntryNode(found.entries[-1]).summary()
    # a row's children read what its expression gives
    rows = {c.name: c for c in found.entry(0).children()}
    assert rows["norm"].value == found.entries[0].norm
    assert found.summary().startswith("5 stops (stop ")


def test_summary_mark_from_three_entries_and_the_history_row_from_two():
    w = tf.Variable([1.0, 2.0])
    marks = []
    rows = []
    for i in range(3):
        snapshots.next_stop()
        rows.append([c.name for c in views.children(w)])
        marks.append(hv.history_mark(w, views.kind_of(w)))
        w.assign_add([1.0, 1.0 + i])
    assert marks[:2] == ["", ""] and marks[2] == "‖·‖▁▄█", marks
    assert hv.NAME not in rows[0] and hv.NAME in rows[1]
    child = next(c for c in views.children(w) if c.name == hv.NAME)
    assert child.expression("w") == "__import__('tf_debug_repr').history(w)"


def test_untracked_values_cost_nothing_and_are_not_recorded():
    snapshots.next_stop()
    w = tf.Variable([1.0])
    views.summary(w)  # shown in Variables without being looked at: nothing kept yet
    assert history.record_of(w) is None and not history.tracking()
    found = tf_debug_repr.history(tf.constant([1.0]))
    assert "history is kept for variables" in found.name and len(found) == 0


def test_a_new_stop_records_every_tracked_variable_still_alive():
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0])
    snapshots.next_stop()
    views.children(a)
    views.children(b)
    for _ in range(2):
        b.assign_add([1.0])
        snapshots.next_stop()
        views.summary(a)  # only a is asked about at these stops
    assert [e.max for e in history.record_of(b).entries] == [3.0, 4.0, 5.0]


def test_labelled_by_the_optimizer_in_the_frame():
    w = tf.Variable([1.0, -1.0])
    optimizer = keras.optimizers.SGD(0.1)
    for _ in range(3):
        optimizer.apply_gradients([(tf.constant([0.5, 0.5]), w)])
    snapshots.next_stop()
    entry = tf_debug_repr.history(w).entries[-1]
    assert (entry.step, entry.epoch) == (3, None)
    assert optimizer.iterations.numpy() == 3  # read, not counted


@pytest.mark.usefixtures("gradient_hooks")  # which optimizer applied a value's gradient
def test_a_stops_labels_are_read_once_and_each_value_labelled_by_its_own_optimizer(monkeypatch):
    a, b, c = tf.Variable([1.0]), tf.Variable([2.0]), tf.Variable([3.0])
    first = keras.optimizers.SGD(0.1, name="first")
    second = keras.optimizers.SGD(0.1, name="second")

    def step(times: int = 1) -> None:
        for _ in range(times):
            first.apply_gradients([(tf.constant([0.5]), a), (tf.constant([0.5]), c)])
            second.apply_gradients([(tf.constant([0.5]), b)])

    step()
    for _ in range(2):
        second.apply_gradients([(tf.constant([0.5]), b)])
    reads: list = []
    real = history._iterations
    monkeypatch.setattr(history, "_iterations", lambda o: reads.append(o) or real(o))
    for stop in range(2):
        snapshots.next_stop()
        steps = []
        for v in (a, b, c):  # (a comprehension's frame would hide the optimizers)
            steps.append(tf_debug_repr.history(v).entries[-1].step)
        assert steps == [1 + stop, 3 + stop, 1 + stop]
        # each optimizer's iterations read once at this stop, for the three records
        assert sorted(o.name for o in reads) == ["first", "second"]
        reads.clear()
        step()


def test_labelled_by_epoch_and_batch_inside_fit_and_the_callbacks_untouched():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    seen = []

    class Look(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            snapshots.next_stop()
            entry = tf_debug_repr.history(self.model.layers[0].kernel).entries[-1]
            seen.append((entry.epoch, entry.batch, entry.step))

    x, y = np.ones((12, 2), np.float32), np.ones((12, 1), np.float32)
    model.fit(x, y, epochs=3, batch_size=4, verbose=0, callbacks=[Look()])
    assert seen == [(0, 2, 3), (1, 2, 6), (2, 2, 9)]


def test_looking_inside_a_tape_records_nothing_on_it():
    w = tf.Variable([1.0, 2.0])
    snapshots.next_stop()
    views.children(w)
    snapshots.next_stop()
    with tf.GradientTape() as tape:
        tf_debug_repr.history(w)
    assert tape.watched_variables() == ()


def test_downsampled_copy_and_the_budget():
    values = np.arange(5003, dtype=np.float32)
    w = tf.Variable(values)
    snapshots.next_stop()
    entry = tf_debug_repr.history(w).entries[-1]
    assert entry.block == 5 and entry.copy.size == 1001
    assert entry.copy[:-1] == pytest.approx(values[:5000].reshape(-1, 5).mean(axis=1))
    assert entry.copy[-1] == pytest.approx(values[5000:].mean())
    assert history.held_bytes() == entry.copy.nbytes
    # a budget for two copies: the oldest go, their figures stay
    history.set_budget_mb(2 * 1001 * 4 / (1024 * 1024))
    for _ in range(3):
        snapshots.next_stop()
        tf_debug_repr.history(w)
    kept = [e.copy is not None for e in history.record_of(w).entries]
    assert kept == [False, False, True, True]
    assert history.held_bytes() <= 2 * 1001 * 4
    assert all(e.norm is not None for e in history.record_of(w).entries)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_a_big_float_values_entry_is_exact_from_one_pass_with_its_copy(dtype):
    """Past the summary's sample size (2^16 elements) a CPU float value's entry comes from
    one pass over it (every figure and the block means): min, max and the counts exact; the
    sums exact for float64, to float32 reductions' precision for 32 bits or fewer (summed in
    float32 within a chunk, ``one_pass``); mean far from zero, NaN and ±Inf in chunks of
    their own and in a shared one, a last shorter cell."""
    rng = np.random.default_rng(3)
    values = (1000 + rng.standard_normal(300_007)).astype(dtype)
    values[[5, 200_000, 200_001]] = [np.nan, np.inf, -np.inf]
    values[70_000:70_100] = np.nan  # NaN in a chunk of their own
    entry = history.figures(tf.constant(values), 1, history.labels(None, []), want_copy=True)
    truth = _truth(values)
    assert _figures(entry)[:2] == truth[:2] and _figures(entry)[5:] == truth[5:]
    rel = 1e-12 if dtype == np.float64 else 1e-6
    assert _figures(entry)[2:5] == pytest.approx(truth[2:5], rel=rel)
    assert not entry.sampled
    _, block = history.copy_cells(values.size)
    wide = values.astype(np.float64)
    whole = values.size // block * block
    with np.errstate(all="ignore"):
        cells = np.append(wide[:whole].reshape(-1, block).mean(axis=1), wide[whole:].mean())
    assert entry.block == block
    if dtype == np.float64:
        assert np.array_equal(entry.copy, cells.astype(np.float32), True)
    else:
        np.testing.assert_allclose(entry.copy, cells.astype(np.float32), rtol=1e-6)


def test_entries_and_values_are_bounded(monkeypatch):
    monkeypatch.setattr(history, "ENTRIES", 3)
    monkeypatch.setattr(history, "VALUES", 2)
    held = [tf.Variable([float(i)]) for i in range(3)]
    for _ in range(5):
        snapshots.next_stop()
        tf_debug_repr.history(held[0])
    assert [e.stop for e in history.record_of(held[0]).entries] == [
        snapshots.current_stop() - 2,
        snapshots.current_stop() - 1,
        snapshots.current_stop(),
    ]
    tf_debug_repr.history(held[1])
    tf_debug_repr.history(held[2])
    assert history.record_of(held[0]) is None  # looked at longest ago


def test_csv_and_npz(tmp_path):
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    for _ in range(3):
        snapshots.next_stop()
        tf_debug_repr.history(w)
        w.assign(w * 2.0)
    found = tf_debug_repr.history(w)
    path = tmp_path / "w.csv"
    assert found.to_csv(str(path)).startswith("wrote 3 rows")
    with open(path, newline="") as f:
        table = list(csv.reader(f))
    assert table[0][:11] == ["stop", "step", "epoch", "batch", *hv.FIGURES]
    assert [float(row[table[0].index("max")]) for row in table[1:]] == [4.0, 8.0, 16.0]
    assert all(row[table[0].index("epoch")] == "" for row in table[1:])
    npz = tmp_path / "w.npz"
    found.to_npz(str(npz))
    saved = np.load(npz)
    assert list(saved["max"]) == [4.0, 8.0, 16.0] and np.isnan(saved["epoch"]).all()
    assert saved["copies"].shape == (3, 4)
    assert list(saved["copies"][2]) == [4.0, 8.0, 12.0, 16.0]


def test_the_viewer_payload_carries_the_history_of_a_variable():
    from tf_debug_repr.viewer import payload as viewer_payload

    w = tf.Variable([[1.0, -2.0], [3.0, 4.0]])
    for _ in range(3):
        snapshots.next_stop()
        built = viewer_payload.build(w)  # viewing is looking: recorded, tracked
        w.assign(w * 2.0)
    found = built["history"]
    assert found is not None and found["axis"] == "stop" and len(found["x"]) == 3
    series = dict(zip(found["figures"], found["series"], strict=True))
    assert series["max"] == [4.0, 8.0, 16.0]
    assert series["norm"] == tf_debug_repr.history(w).series("norm")
    assert series["grad_norm"] == [None, None, None]
    assert viewer_payload.build(tf.constant([1.0]))["history"] is None


@pytest.mark.parametrize(
    ("value", "want"),
    [
        (tf.constant(["a", "b"]), {"norm": None, "note": "no figures for string"}),
        (tf.constant([True, False, True]), {"norm": math.sqrt(2), "nan": 0}),
        (tf.constant([[3, -4]], tf.int32), {"norm": 5.0, "min": -4.0, "max": 3.0}),
        (tf.zeros([0, 3]), {"norm": None, "size": 0}),
        (tf.constant([1.0, math.nan, math.inf, -3.0], tf.float16), {"norm": math.sqrt(10.0)}),
    ],
    ids=["string", "bool", "int", "empty", "float16-nan-inf"],
)
def test_any_dtype_gets_an_entry_without_raising(value, want):
    w = tf.Variable(value)
    snapshots.next_stop()
    entry = tf_debug_repr.history(w).entries[-1]
    for name, expected in want.items():
        got = getattr(entry, name)
        assert got == (pytest.approx(expected) if isinstance(expected, float) else expected), name
    assert hv.EntryNode(entry).summary()  # the row reads whatever the figures are


def test_the_catch_up_at_a_new_stop_is_bounded_in_time(monkeypatch):
    a, b = tf.Variable([1.0]), tf.Variable([2.0])
    snapshots.next_stop()
    views.children(b)
    views.children(a)
    monkeypatch.setattr(history, "CATCH_UP_SECONDS", 0.0)
    snapshots.next_stop()
    views.summary(a)  # asked: recorded; b waits until it is shown (no time left for it)
    assert len(history.record_of(a).entries) == 2
    assert len(history.record_of(b).entries) == 1
    views.summary(b)
    assert len(history.record_of(b).entries) == 2


def test_the_notebook_columns_are_the_historys():
    from tf_debug_repr.hosts.notebook import history_view

    assert history_view.FIGURES == hv.FIGURES


def test_compare_two_stops():
    start = np.arange(12, dtype=np.float32).reshape(3, 4)
    w = tf.Variable(start)
    snapshots.next_stop()
    first = snapshots.current_stop()
    tf_debug_repr.history(w)
    w.assign_add(np.linspace(-1, 2, 12, dtype=np.float32).reshape(3, 4))
    snapshots.next_stop()
    compared = tf_debug_repr.history(w).compare(first, first + 1)
    truth = w.numpy().astype(np.float64) - start.astype(np.float64)
    assert compared.exact and compared.difference.shape == (3, 4)
    np.testing.assert_array_equal(compared.difference, truth)
    assert compared.norm == pytest.approx(np.linalg.norm(truth), rel=1e-12)
    assert compared.largest == pytest.approx(2.0)
    assert compared.change("mean") == pytest.approx(truth.mean(), rel=1e-9)
    assert compared.summary().startswith(f"stop {first} → {first + 1}: ‖Δ‖=")
    rows = {c.name: c for c in compared.children()}
    assert rows["‖Δ‖"].value == compared.norm
    with pytest.raises(KeyError, match="no entry for stop 999"):
        tf_debug_repr.history(w).compare(first, 999)
    # past COPY_ELEMENTS: block means, said so
    big = tf.Variable(tf.zeros([3000]))
    snapshots.next_stop()
    tf_debug_repr.history(big)
    big.assign(tf.ones([3000]))
    snapshots.next_stop()
    stops = [e.stop for e in tf_debug_repr.history(big).entries]
    coarse = tf_debug_repr.history(big).compare(*stops)
    assert not coarse.exact and "block means of 3" in coarse.summary()


def test_a_watch_expressions_history_row_names_its_record_by_the_watch_key():
    import ast

    # a watch expression's text is the program's: quotes, braces and pydevd's @ included
    key = ("watch", "/w/it's @here.py", "<module>", "d['{a}'] @ w")
    for stop in range(3):
        snapshots.next_stop()
        history.observe_watched(key, tf.constant([1.0, 2.0 + stop]), looked=True)
    text = hv.watch_expression(key)
    head = "__import__('tf_debug_repr').history(watch="
    assert text is not None and text.startswith(head) and "@" not in text
    assert ast.literal_eval(text[len(head) : -1]) == key[1:]
    found = eval(text)  # noqa: S307  (the plugin's own call, literals only)
    assert found.name == "d['{a}'] @ w" and [e.max for e in found.entries] == [2.0, 3.0, 4.0]
    # another expression of the same text elsewhere is another record; a bad key says so
    assert len(tf_debug_repr.history(watch=("/other.py", "<module>", key[3]))) == 0
    assert len(tf_debug_repr.history(watch="loss")) == 0
    assert hv.watch_expression(("watch", "/f.py", 3, "x")) is None


def test_the_viewers_compare_of_two_stops_fits_the_contract():
    import base64
    import json

    from tf_debug_repr.viewer import contract
    from tf_debug_repr.viewer import payload as viewer_payload

    def fits(obj: dict, typename: str) -> None:
        fields = contract.fields(typename)
        assert set(obj) == {f.rstrip("?") for f in fields}, (typename, set(obj))

    start = np.arange(12, dtype=np.float32).reshape(3, 4)
    w = tf.Variable(start)
    for i in range(3):
        snapshots.next_stop()
        views.children(w)
        w.assign_add(tf.fill(w.shape, float(i + 1)))
    stops = [e.stop for e in tf_debug_repr.history(w).entries]
    built = viewer_payload.build(w)["history"]
    fits(built, "History")
    first = built["compare"]  # the first stop against the last, by default
    fits(first, "HistoryCompare")
    assert (first["a"], first["b"]) == (stops[0], stops[-1])
    assert (first["rows"], first["cols"], first["exact"]) == (3, 4, True)
    assert first["values"] == [3.0] * 12  # +1 then +2: b − a, in the value's own shape
    assert first["norm"] == pytest.approx(math.sqrt(12 * 9.0))
    assert first["changes"][first["figures"].index("mean")] == pytest.approx(3.0)

    def answer(a: object, b: object) -> dict:
        found = json.loads(base64.b64decode(tf_debug_repr.view_history_compare(w, a, b)))
        fits(found, "HistoryCompareAnswer")
        return found

    two = answer(stops[0], stops[1])
    assert two["error"] is None and two["compare"]["values"] == [1.0] * 12
    assert "no entry for stop 999" in answer(stops[0], 999)["error"]
    assert "stop a" in answer("1", stops[0])["error"]  # a literal of the program's: refused
    assert answer(stops[0], stops[1]) == two  # asked again: the same
    missing = json.loads(base64.b64decode(tf_debug_repr.view_history_compare(tf.ones([2]), 1, 2)))
    assert "history is kept for variables" in missing["error"]
