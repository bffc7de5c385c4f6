"""Summaries past their time budget show sampled figures (marked), exact ones otherwise."""

from __future__ import annotations

import time

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.core import formatting as fmt  # noqa: E402
from tf_debug_repr.core import time_budget  # noqa: E402
from tf_debug_repr.hosts.pydevd import adapter  # noqa: E402


@pytest.fixture
def no_budget():
    """A burst that has spent its budget: every big summary is sampled."""
    before = time_budget.budget_ms()
    time_budget.set_budget_ms(0)
    yield
    time_budget.set_budget_ms(before)


def big(seed: int = 0, size: int = 1_000_000):
    values = np.random.default_rng(seed).standard_normal(size).astype(np.float32)
    return tf.constant(values), values


def test_past_the_budget_figures_are_sampled_and_say_so(no_budget):
    x, values = big()
    line = views.summary(x)
    assert line.startswith("float32[1000000] x∈~[") and " μ≈" in line and " σ≈" in line, line
    # The sampled range lies within the true one, and is close to it.
    lo, hi = (float(v) for v in line.split("x∈~[")[1].split("]")[0].split(", "))
    assert values.min() <= lo < hi <= values.max()
    # A small tensor costs less than deciding: exact whatever the budget.
    assert views.summary(tf.constant([1.0, 2.0, 3.0])).startswith("float32[3] x∈[1, 3] μ=2 ")


def test_expanding_or_hovering_gives_exact_figures(no_budget):
    x, values = big(1)
    hovered = adapter.TensorStrProvider().get_str_in_context(x, "hover")
    exact = f"x∈[{fmt.number(values.min())}, {fmt.number(values.max())}]"
    assert hovered.startswith(f"float32[1000000] {exact} μ≈"), (hovered, exact)
    y, _ = big(2)
    assert "x∈~[" in views.summary(y)
    views.children(y)  # expanding it computes its exact figures (its stats row) ...
    assert views.summary(y).startswith("float32[1000000] x∈[")  # ... which its line then shows
    # A variable's value is read afresh at each stop: sampled past the budget, exact on hover.
    w = tf.Variable(values)
    assert "x∈~[" in views.summary(w)
    assert "x∈[" in adapter.TensorStrProvider().get_str_in_context(w, "hover")


def test_a_budget_covers_one_burst_of_requests():
    before = time_budget.budget_ms()
    time_budget.set_budget_ms(60_000)
    try:
        assert "x∈[" in views.summary(big(3)[0])  # budget left: exact
        time_budget.charge(120.0)  # this burst spent it all
        assert "x∈~[" in views.summary(big(4)[0])
        time.sleep(time_budget.GAP_S * 1.5)  # a pause: the next request is a new burst
        assert "x∈[" in views.summary(big(5)[0])
        # What cannot fit even a fresh budget is sampled at once, not started and overrun.
        time_budget.set_budget_ms(1)
        time.sleep(time_budget.GAP_S * 1.5)
        assert "x∈~[" in views.summary(big(6, 4_000_000)[0])
    finally:
        time_budget.set_budget_ms(before)


def test_one_slow_computation_does_not_price_big_tensors_out_for_good():
    # An exact computation slowed by other work (40 ms for 10^6 elements) raises the
    # estimate past what a 10 ms budget fits; each later burst brings it halfway back to
    # the first guess, so exact figures return instead of staying sampled for the session.
    before_ms, before_ns = time_budget.budget_ms(), time_budget._ns_per_element
    time_budget.set_budget_ms(10)
    try:
        time_budget._ns_per_element = time_budget.FIRST_NS_PER_ELEMENT
        time_budget.charge(0.040, 1_000_000)
        time.sleep(time_budget.GAP_S * 1.5)
        assert not time_budget.allows_exact(1_000_000)  # a new burst: still priced out
        time.sleep(time_budget.GAP_S * 1.5)
        assert time_budget.allows_exact(1_000_000)  # the next one: it fits again
        assert time_budget._ns_per_element < 10.0
    finally:
        time_budget.set_budget_ms(before_ms)
        time_budget._ns_per_element = before_ns


class _Stops:
    """A debugger whose thread is suspended at one stop after another (``core.debugger``'s
    protocol; pydevd's gives its frames tracker of the suspension)."""

    def __init__(self) -> None:
        self.stop: object = object()

    def suspension(self) -> object:
        return self.stop

    def count_as_library(self, directory: str) -> None:
        pass


def test_a_new_stop_starts_a_new_burst_however_soon_it_comes():
    # A continue to the next loop iteration stops again within GAP_S: its Locals request
    # must get its own budget, not what the previous stop's request left.
    from tf_debug_repr.core import debugger

    before_ms, before_ns = time_budget.budget_ms(), time_budget._ns_per_element
    stops = _Stops()
    debugger.install(stops)
    time_budget.set_budget_ms(10)
    try:
        time_budget._ns_per_element = time_budget.FIRST_NS_PER_ELEMENT
        assert time_budget.allows_exact(1_000_000)
        time_budget.charge(0.020, 0)  # this stop's request spent its budget
        assert not time_budget.allows_exact(1_000_000)
        stops.stop = object()  # stopped again, at once
        assert time_budget.allows_exact(1_000_000)
    finally:
        debugger.install(None)  # type: ignore[arg-type]
        time_budget.set_budget_ms(before_ms)
        time_budget._ns_per_element = before_ns
