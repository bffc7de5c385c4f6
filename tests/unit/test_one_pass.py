"""One pass per value version per stop (issue 27): the figures and the change since the
last snapshot from ``forensics.one_pass``, against an independent numpy recompute in
float64, for every dtype it takes; and a variable nothing wrote costs no pass at a stop."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.core import stats as core_stats  # noqa: E402
from tf_debug_repr.forensics import change_views, history, one_pass, snapshots  # noqa: E402
from tf_debug_repr.views import variables as variable_views  # noqa: E402

pytestmark = pytest.mark.usefixtures("fresh_forensics")  # tests/unit/conftest.py


def _truth(now: np.ndarray, then: np.ndarray | None) -> dict:
    """Every figure recomputed element-wise in float64 (NaN where NaN was unchanged)."""
    a = now.reshape(-1).astype(np.float64)
    finite = a[np.isfinite(a)]
    found = {
        "min": float(finite.min()) if finite.size else None,
        "max": float(finite.max()) if finite.size else None,
        "mean": float(finite.mean()) if finite.size else None,
        "std": float(finite.std()) if finite.size else None,
        "norm": float(np.sqrt(np.sum(finite * finite))),
        "nan": int(np.isnan(a).sum()),
        "posinf": int((a == np.inf).sum()),
        "neginf": int((a == -np.inf).sum()),
    }
    if then is not None:
        b = then.reshape(-1).astype(np.float64)
        with np.errstate(invalid="ignore"):
            differ = (now.reshape(-1) != then.reshape(-1)) & ~(np.isnan(a) & np.isnan(b))
            diff = np.where(differ, a - b, 0.0)
        magnitude = np.abs(diff)
        found["changed"] = int(differ.sum())
        found["dnorm"] = float(np.sqrt(np.sum(diff * diff)))
        found["largest"] = float(magnitude.max()) if magnitude.size else 0.0
        found["where"] = int(np.argmax(magnitude)) if found["changed"] else None
    return found


def _check(now: np.ndarray, then: np.ndarray | None, rel: float) -> None:
    with np.errstate(all="ignore"):
        figures, delta = one_pass.host_pass(now.reshape(-1), _flat(then), True)
    truth = _truth(now, then)
    s = figures.stats
    assert (s.nan, s.posinf, s.neginf) == (truth["nan"], truth["posinf"], truth["neginf"])
    assert (s.min, s.max) == (truth["min"], truth["max"])  # exact at any size
    assert s.moments_sample is None and not s.extremes_sampled
    for name in ("mean", "std"):
        got, expected = getattr(s, name), truth[name]
        assert got == pytest.approx(expected, rel=rel, abs=1e-300), name
    assert figures.norm == pytest.approx(truth["norm"], rel=rel)
    # the history's block means: of the flattened value, a shorter last cell
    _, block = one_pass.copy_cells(now.size)
    wide = now.reshape(-1).astype(np.float64)
    whole = now.size // block * block
    with np.errstate(all="ignore"):
        cells = wide[:whole].reshape(-1, block).mean(axis=1)
        if whole < now.size:
            cells = np.append(cells, wide[whole:].mean())
    assert figures.block == block
    # a cell's sum may cancel: its error is relative to the values' scale, not to the mean
    finite = wide[np.isfinite(wide)]
    scale = float(np.abs(finite).max()) if finite.size else 1.0
    np.testing.assert_allclose(
        figures.cells, cells.astype(np.float32), rtol=max(rel, 1e-6), atol=max(rel, 1e-6) * scale
    )
    if then is None:
        assert delta is None
        return
    assert delta is not None
    assert delta.changed == truth["changed"]
    assert delta.norm == pytest.approx(truth["dnorm"], rel=rel)
    assert delta.largest == truth["largest"]  # recomputed in float64 where it is
    assert delta.where == truth["where"]


def _flat(array: np.ndarray | None) -> np.ndarray | None:
    return None if array is None else array.reshape(-1)


@pytest.mark.parametrize(
    ("dtype", "size", "rel"),
    [
        (np.float32, 5003, 1e-12),  # small: float64 throughout
        # big: float32 within chunks of 65,536 elements, whose rounding is the CPU's BLAS
        # kernel's: a float32 dot of one chunk read 3.5e-6 off on an AMD EPYC's OpenBLAS
        # (numpy 2.4.6), where earlier machines passed at 1e-6; 4 significant digits show
        (np.float32, 1_000_003, 1e-5),
        (np.float64, 300_001, 1e-12),
        (np.float16, 200_001, 1e-5),
        (ml_dtypes.bfloat16, 200_001, 1e-5),
        (ml_dtypes.bfloat16, 999, 1e-12),
        (np.int32, 300_001, 1e-12),
        (np.int64, 5000, 1e-12),
        (np.uint8, 70_000, 1e-12),
    ],
)
def test_every_figure_and_the_change_equal_a_numpy_recompute(dtype, size, rel):
    rng = np.random.default_rng(size)
    if np.dtype(dtype).kind in "iu":
        then = rng.integers(0, 100, size).astype(dtype)
        now = then.copy()
        now[::7] += np.array(3, dtype)
    else:
        then = (rng.standard_normal(size) * 0.05).astype(dtype)
        now = then.astype(np.float32) + rng.standard_normal(size).astype(np.float32) * 1e-3
        now = now.astype(dtype)
    _check(now, then, rel)
    _check(now, None, rel)


def test_a_value_changed_in_one_element():
    then = np.random.default_rng(0).standard_normal(2_000_000).astype(np.float32)
    now = then.copy()
    now[1_234_567] += np.float32(0.25)
    figures, delta = one_pass.host_pass(now, then, True)
    assert delta is not None and (delta.changed, delta.where) == (1, 1_234_567)
    exact = float(np.float64(now[1_234_567]) - np.float64(then[1_234_567]))
    assert delta.largest == abs(exact) and delta.norm == pytest.approx(abs(exact), rel=1e-7)
    _check(now, then, 1e-6)


def test_nan_and_inf_in_the_value_and_in_the_change():
    rng = np.random.default_rng(1)
    then = rng.standard_normal(300_000).astype(np.float32)
    then[[10, 150_000]] = np.nan  # NaN where NaN stays: unchanged
    then[200_000] = np.inf
    now = then.copy()
    now[5:100] += np.float32(1.0)
    now[70_000:70_050] = np.nan  # a chunk's NaN appearing
    now[250_000] = -np.inf
    _check(now, None, 1e-6)
    _, delta = one_pass.host_pass(now, then, True)
    truth = _truth(now, then)
    assert delta is not None and delta.changed == truth["changed"]
    assert math.isnan(delta.largest) and delta.where == 70_000  # the first NaN change
    assert math.isnan(delta.norm)


def test_all_nan_and_a_mean_far_from_zero():
    figures, _ = one_pass.host_pass(np.full(100_000, np.nan, np.float32), None, True)
    assert (figures.stats.min, figures.stats.mean, figures.stats.nan) == (None, None, 100_000)
    far = (1000 + np.random.default_rng(2).standard_normal(300_000)).astype(np.float32)
    _check(far, None, 1e-6)  # the std again, centred: not from cancelling sums


def test_bool_empty_and_scalars():
    then = np.array([True, False, True, True])
    now = np.array([True, True, False, True])
    figures, delta = one_pass.host_pass(now, then, True)
    assert (figures.stats.true_count, figures.stats.mean, figures.cells) == (3, 0.75, None)
    assert figures.norm == pytest.approx(math.sqrt(3))
    assert delta == one_pass.Delta(math.sqrt(2), 2, 1.0, 1)
    empty, nothing = one_pass.host_pass(np.zeros(0, np.float32), np.zeros(0, np.float32), True)
    assert (empty.stats.size, empty.stats.min, empty.norm) == (0, None, 0.0)
    assert nothing == one_pass.Delta(0.0, 0, 0.0, None)
    scalar, change = one_pass.measure(tf.constant(3.5), tf.constant(1.0))
    assert (scalar.stats.min, scalar.stats.mean, scalar.stats.std) == (3.5, 3.5, 0.0)
    assert change == one_pass.Delta(2.5, 1, 2.5, 0)


def test_the_device_pass_gives_the_host_figures():
    """TF's ops (the path of a GPU value, run here on the CPU): the same figures."""
    rng = np.random.default_rng(5)
    then = rng.standard_normal(70_000).astype(np.float32)
    now = then + np.float32(0.5)
    now[[3, 60_000]] = [np.nan, np.inf]
    host, host_delta = one_pass.measure(tf.constant(now), tf.constant(then))
    device, device_delta = one_pass.device_pass(tf.constant(now), tf.constant(then), True, now.size)
    assert host_delta is not None and device_delta is not None
    assert (host_delta.changed, host_delta.where) == (device_delta.changed, device_delta.where)
    assert host.stats.min == device.stats.min and host.stats.nan == device.stats.nan
    assert host.stats.mean == pytest.approx(device.stats.mean, rel=1e-6)
    assert host.stats.std == pytest.approx(device.stats.std, rel=1e-6)
    assert host.norm == pytest.approx(device.norm, rel=1e-6)


def test_two_reads_of_an_unwritten_variable_are_one_version():
    w = tf.Variable(tf.ones([1000]))
    first = variable_views.read_value(w)
    assert one_pass.same_version(variable_views.read_value(w), first)
    w.assign_add(tf.ones([1000]))  # a write while a read is held: a new buffer
    assert not one_pass.same_version(variable_views.read_value(w), first)
    assert float(first[0]) == 1.0  # the held read kept its value
    # no address where a host view would copy (strings) or there is no buffer
    assert core_stats.buffer_address(tf.constant(["a", "b"])) is None
    assert core_stats.buffer_address(tf.zeros([0])) is None


def test_an_unchanged_variable_costs_no_pass_and_shares_its_figures(monkeypatch):
    """At a stop after a step the summary line, the Δ row and the history entry of a
    tracked variable come from one pass; at a stop where nothing wrote it, from none."""
    passes = []
    host_pass = one_pass.host_pass

    def counted(*args, **kwargs):
        passes.append(args[0].size)
        return host_pass(*args, **kwargs)

    monkeypatch.setattr(one_pass, "host_pass", counted)
    start = np.random.default_rng(6).standard_normal(200_000).astype(np.float32)
    w = tf.Variable(start)
    snapshots.next_stop()
    views.children(w)  # expanded: tracked (snapshot and history)
    assert len(passes) == 1
    w.assign_add(tf.fill([200_000], 0.5))  # a step
    snapshots.next_stop()
    passes.clear()
    summary = views.summary(w)
    rows = {c.name: c for c in views.children(w)}
    assert len(passes) == 1, passes  # Δ, history, summary and stats rows: one pass
    change = snapshots.change_of(w)
    assert change is not None and change.changed == 200_000
    assert change.norm == pytest.approx(0.5 * math.sqrt(200_000), rel=1e-6)
    assert change_views.NAME in rows and "Δ‖·‖=" in summary
    entry = history.record_of(w).entries[-1]
    stats = core_stats.cached_stats(variable_views.read_value(w))
    assert stats is not None and stats.moments_sample is None  # exact, not sampled
    assert (entry.min, entry.max, entry.mean) == (stats.min, stats.max, stats.mean)
    truth = start.astype(np.float64) + 0.5
    assert entry.mean == pytest.approx(truth.mean(), rel=1e-6)
    # a stop where nothing wrote it: no pass at all, the same figures, Δ = 0
    snapshots.next_stop()
    passes.clear()
    views.summary(w)
    views.children(w)
    assert passes == []
    assert snapshots.change_of(w).changed == 0
    again = history.record_of(w).entries[-1]
    assert again.stop == entry.stop + 1 and (again.mean, again.norm) == (entry.mean, entry.norm)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.bool_])
def test_the_change_alone_is_the_fused_passs(dtype):
    """A model's weights listed only by their change take no figures: the same change."""
    rng = np.random.default_rng(7)
    then = (rng.standard_normal(150_001) * 4).astype(dtype)
    now = then.copy()
    now[::3] = (rng.standard_normal(now[::3].size) * 4).astype(dtype)
    _, fused = one_pass.measure(tf.constant(now), tf.constant(then))
    assert one_pass.compare(tf.constant(now), tf.constant(then)) == fused


@pytest.mark.parametrize("change", ["add", "scale"])
def test_a_change_every_element_shares_is_found_as_a_numpy_recompute_finds_it(change):
    """A counter's +1 or a rescale moves every element alike: every chunk holds the largest
    change; the first chunks alone are read again (``TIED_CHUNKS``), with the same answer."""
    then = np.ones(1_000_003, np.float32) * (1.0 if change == "add" else 1.5)
    now = then + np.float32(1) if change == "add" else then * np.float32(1.5)
    figures, delta = one_pass.host_pass(now, then, True)
    assert delta is not None
    assert (delta.changed, delta.where) == (now.size, 0)
    assert delta.largest == float(np.float64(now[0]) - np.float64(then[0]))
    _check(now, then, 1e-6)


def test_a_chunk_whose_elements_all_changed_alike_is_not_read_again(monkeypatch):
    """Where every element of a tied chunk changed by the same float32 amount, its first
    element is its largest change (to the rounding): no chunk is read again in float64,
    and the figures are those the chunks' re-read gave."""
    then = np.ones(1_000_003, np.float32) * np.float32(3.375)
    now = then * np.float32(1.5)

    def no_reread(*_args):
        raise AssertionError("a chunk whose elements all changed alike was read again")

    monkeypatch.setattr(one_pass, "_largest_in", no_reread)
    _, delta = one_pass.host_pass(now, then, True)
    assert delta is not None and (delta.changed, delta.where) == (now.size, 0)
    assert delta.largest == float(np.float64(now[0]) - np.float64(then[0]))
    _check(now, then, 1e-6)


def test_tied_chunks_whose_elements_differ_are_read_again_for_the_largest(monkeypatch):
    """Chunks tied on the largest float32 change but holding smaller changes too are read
    again in float64: the largest is where a numpy recompute finds it, not the chunk's
    first element."""
    then = np.zeros(1_000_003, np.float32)
    now = then.copy()
    now[::3] = np.float32(2.0)  # every chunk: some elements +2, the rest unchanged
    now[5] = np.float32(1.0)
    seen: list[int] = []
    real = one_pass._largest_in

    def counted(*args):
        seen.append(1)
        return real(*args)

    monkeypatch.setattr(one_pass, "_largest_in", counted)
    _, delta = one_pass.host_pass(now, then, True)
    assert delta is not None and delta.largest == 2.0 and delta.where == 0
    assert len(seen) == one_pass.TIED_CHUNKS
    _check(now, then, 1e-6)
