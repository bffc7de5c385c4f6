"""How much time the summary lines of one request may spend on exact figures.

VS Code asks for every local's summary at each stop. Exact figures of a 10^6-element
tensor cost a few milliseconds (min, max and NaN counts read every element), so a frame of
sixteen such tensors would cost more than stock debugpy's whole Locals request. Summaries
therefore compute exact figures for what fits the budget left in the current burst of
requests (at the cost per element measured so far), and sampled figures (marked ``~``/``≈``)
for the rest: a tensor too big to fit any budget is sampled in the panes. Expanding a value (its ``stats`` child, its
elements) and hovering over it always compute exact figures, and a tensor's exact figures,
once computed, are what its summary shows from then on.

There is no request boundary in pydevd's API: a pause of ``GAP_S`` between two summaries
starts a new burst (one Locals request, or Locals and the Watch pane right after it).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator

ENV = "TF_DEBUG_REPR_EXACT_MS"
# The default, measured in benchmarks/debugger_overhead.py (docs/performance.md): stock
# debugpy takes >= 42 ms for any Locals request (its socket waits for a delayed ACK; the
# plugin's does not), so 15 ms of exact figures keeps a frame of sixteen 10^6-element
# tensors under half of stock's time, while every tensor up to ~300,000 elements in a
# typical frame still gets exact figures.
DEFAULT_MS = 15.0
GAP_S = 0.25  # a pause this long between summaries starts a new burst
# Exact figures cost about this much per element before any was measured (a float32 tensor
# on 2 CPU cores here: min, max and a 65,536-element sample for mean and std, 2-4 ms per
# 10^6). Each exact computation then refines it, so "what fits" follows the machine.
FIRST_NS_PER_ELEMENT = 3.0


def _from_env() -> float:
    try:
        return max(0.0, float(os.environ.get(ENV, DEFAULT_MS))) / 1e3
    except ValueError:
        return DEFAULT_MS / 1e3


_budget_s = _from_env()
_spent_s = 0.0
_last = 0.0
_ns_per_element = FIRST_NS_PER_ELEMENT
_local = threading.local()


def set_budget_ms(ms: float) -> None:
    """Change the budget (tests, benchmarks); ``TF_DEBUG_REPR_EXACT_MS`` sets it at start."""
    global _budget_s
    _budget_s = max(0.0, ms) / 1e3


def budget_ms() -> float:
    return _budget_s * 1e3


@contextlib.contextmanager
def exact() -> Iterator[None]:
    """Summaries inside compute exact figures whatever the budget (a hover, the console)."""
    depth = getattr(_local, "exact", 0)
    _local.exact = depth + 1
    try:
        yield
    finally:
        _local.exact = depth


def allows_exact(elements: int = 0) -> bool:
    """Do exact figures of ``elements`` elements fit what is left of the burst's budget
    (at the cost measured so far)? Starts a new burst after a pause."""
    global _spent_s, _last
    if getattr(_local, "exact", 0):
        return True
    now = time.perf_counter()
    if now - _last > GAP_S:
        _spent_s = 0.0
        _relax()
    _last = now
    return _spent_s + elements * _ns_per_element * 1e-9 <= _budget_s


def _relax() -> None:
    """At each new burst, an estimate above the first guess moves halfway back to it. One
    exact computation slowed by other work on the machine (a 20 ms preemption) would
    otherwise price every big tensor out of every later budget: none would be computed
    exactly again, so the estimate could never come down. A machine that is really that
    slow measures it again at its next exact computation."""
    global _ns_per_element
    if _ns_per_element > FIRST_NS_PER_ELEMENT:
        _ns_per_element = 0.5 * (_ns_per_element + FIRST_NS_PER_ELEMENT)


def charge(seconds: float, elements: int = 0) -> None:
    """Count ``seconds`` of exact-figure work on ``elements`` elements against the burst,
    and learn the cost per element from it."""
    global _spent_s, _last, _ns_per_element
    _spent_s += seconds
    _last = time.perf_counter()
    if elements > 0:
        _ns_per_element = 0.5 * _ns_per_element + 0.5 * (seconds * 1e9 / elements)
