"""A subclassed Keras model's ``→ shape`` in its row, in a real debugpy session: none
while no symbolic call told it, then the shape once one has (its structure, kept between
stops, unchanged: the shape must not stay as it was)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def test_output_shape_shows_after_the_first_symbolic_call(debug_session):
    s = debug_session("subclassed_symbolic.py", markers=["EAGER_BREAKPOINT", "SYMBOLIC_BREAKPOINT"])
    before = s.locals()["net"].value
    assert before.startswith("18 params, 1 layer"), before
    assert "→" not in before, before
    s.resume_to_next_stop()
    after = s.locals()["net"].value
    assert after.startswith("18 params → [None, 3], 1 layer"), after
    assert s.evaluate("net", "watch")["result"] == after
