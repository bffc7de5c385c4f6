"""End to end: the Variables pane's time budget for exact figures, in a real debugpy session."""

from __future__ import annotations

import pytest

from ..conftest import start_stopped

pytestmark = pytest.mark.e2e


def test_each_stop_gets_its_own_budget_however_soon_it_comes():
    # A continue to the next iteration stops again within the pause that ends a burst
    # (tf_debug_repr.core.time_budget.GAP_S): the new stop's Locals must still start with a whole
    # budget, so its first big tensor gets exact figures. (When the stops fell into one
    # burst, the time since the first stop's request had spent this one's budget: sampled.)
    s = start_stopped("budget_loop.py", env={"TF_DEBUG_REPR_EXACT_MS": "20"})
    try:
        for stop in range(5):
            local = s.locals()
            assert local["a_first"].value.startswith("float32[131072] x∈["), (stop, local)
            s.resume_to_next_stop()
    finally:
        s.client.close()
