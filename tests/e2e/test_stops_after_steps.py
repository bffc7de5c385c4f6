"""End to end (issue 27): at each stop of a training loop, the model's rows show the
weights' values of that stop, while its structure (sublayers, weights, counts) is the
one computed at the first look, not recomputed per stop.

Both tests read one session of training_loop_steps.py (its three stops, default settings;
a session each before): at each stop the payload test's reads come first, as they came in
its own session (its ``Δ since last stop`` row is asked for before anything else is read
there), then the structure test's, which only compares what it reads at that stop with what
it read at the stop before. What each read is kept per stop; each test checks its own."""

from __future__ import annotations

import ast
import dataclasses
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from ..conftest import Stopped, start_stopped

pytestmark = pytest.mark.e2e

KEPT = "id(__import__('tf_debug_repr.views.models', fromlist=['_'])._structures[model])"

PAYLOAD = (
    "__import__('tf_debug_repr').view_payload((model.layers[0].kernel), "
    "axes=None, index=None, region=None, part=None)"
)
# The kernel's truth at this stop, read by numpy in the program: its figures and its
# histogram over the viewer's 64 bins of [min, max] (the viewer's bin rule).
TRUTH = (
    "(lambda k: [float(k.mean()), float(k.min()), float(k.max()), "
    "__import__('numpy').minimum(((k.astype('float64') - float(k.min())) "
    "/ ((float(k.max()) - float(k.min())) / 64)), 63).astype('int64').ravel().tolist()])"
    "(model.layers[0].kernel.numpy())"
)


def _structure_look(s: Stopped, stop: int) -> dict:
    """What the structure test reads at a stop: the model's row, the first layer's kernel
    row, the kernel's sum in the program and the id of the structure the plugin keeps."""
    model = s.locals()["model"]
    layer = s.child_map(model)["dense (Dense)"]
    kernel = next(row for row in s.children(layer) if row.name.startswith("kernel"))
    truth = s.evaluate("float(model.layers[0].kernel.numpy().sum())", "repl")["result"]
    return {
        "model": model.value,
        "seen": (kernel.value, float(truth.strip("'")), s.evaluate(KEPT, "repl")["result"]),
    }


def _payload_look(s: Stopped, stop: int) -> dict:
    """What the payload test reads at a stop: the model's rows (its ``Δ`` row's children
    too), the viewer's payload of the first kernel and the kernel's truth."""
    from tf_debug_repr.viewer.payload import decode

    model = s.locals()["model"]
    rows = s.child_map(model)
    payload = decode(s.evaluate(PAYLOAD, "clipboard")["result"])
    truth = ast.literal_eval(ast.literal_eval(s.evaluate(f"repr({TRUTH})", "repl")["result"]))
    change = next((row for name, row in rows.items() if name.startswith("Δ")), None)
    weights = s.children(change) if stop and change is not None else None  # as it read them
    return {
        "rows": list(rows),
        "payload": payload,
        "truth": truth,
        "change": change,
        "weights": weights,
    }


@dataclasses.dataclass
class Looked:
    """A test's reads, one entry per stop, and what its look raised (then it stopped looking)."""

    stops: list[dict] = dataclasses.field(default_factory=list)
    error: BaseException | None = None

    def check(self) -> list[dict]:
        if self.error is not None:
            raise self.error
        return self.stops


# The looks in the order they are made at each stop, and the stops (0-based) each reads.
LOOKS: tuple[tuple[str, Callable[[Stopped, int], dict], range], ...] = (
    ("payload", _payload_look, range(3)),
    ("structure", _structure_look, range(2)),
)


@pytest.fixture(scope="module")
def looked() -> Iterator[dict[str, Looked]]:
    s = start_stopped("training_loop_steps.py")
    found = {name: Looked() for name, _, _ in LOOKS}
    try:
        for stop in range(3):
            if stop:
                s.resume_to_next_stop()
            for name, look, stops in LOOKS:
                if stop in stops and found[name].error is None:
                    try:
                        found[name].stops.append(look(s, stop))
                    except Exception as error:  # noqa: BLE001 (the test it belongs to raises it)
                        found[name].error = error
    finally:
        s.client.close()
    yield found


def test_a_stop_after_a_step_shows_fresh_values_with_the_structure_kept(looked):
    seen = []
    for stop in looked["structure"].check():
        model = stop["model"]
        assert "195 params" in model and "2 layers" in model  # 8*16+16 + 16*3+3
        seen.append(stop["seen"])
    (first, total1, kept1), (second, total2, kept2) = seen
    assert total1 != total2  # the step changed the weights ...
    assert first != second  # ... and the row shows this stop's values
    assert kept1.isdigit() and kept1 == kept2  # the structure kept at the first stop


def test_the_viewers_payload_and_the_models_change_row_show_each_stops_values(looked):
    """After a step the viewer's payload of a weight (its histogram counted on the host
    now, its figures) and the model's ``Δ since last stop`` row (each weight's steps, the
    counters read once for the request) are this stop's, not the first look's."""
    seen = []
    stops = looked["payload"].check()
    assert len(stops) == 3, len(stops)
    for stop, found in enumerate(stops):
        payload, change, weights = found["payload"], found["change"], found["weights"]
        mean, low, high, bins = found["truth"]
        counts = Counter(bins)
        assert payload["error"] is None, payload["error"]
        assert payload["stats"]["mean"] == pytest.approx(mean, rel=1e-5, abs=1e-7)
        assert (payload["stats"]["min"], payload["stats"]["max"]) == pytest.approx((low, high))
        assert payload["histogram"]["counts"] == [counts.get(i, 0) for i in range(64)]
        if stop == 0:
            assert change is None or "no change" in change.value or "tracked" in change.value
        else:
            assert change is not None, found["rows"]
            assert len(weights) >= 4, [w.name for w in weights]  # 2 kernels, 2 biases
            assert all("1 optimizer step" in w.value for w in weights[:4]), [
                w.value for w in weights
            ]
        seen.append((payload["stats"]["mean"], payload["histogram"]["counts"]))
    assert seen[0] != seen[1] != seen[2]  # the steps changed the kernel: each payload its own
