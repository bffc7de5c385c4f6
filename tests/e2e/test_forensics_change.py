"""End to end: ``Δ since last stop`` on variables looked at at an earlier stop (expanded,
hovered, or their model expanded): the exact norm of the change, the steps between the
stops, unchanged and frozen weights, and expressions that evaluate."""

from __future__ import annotations

import os

import pytest

from ..conftest import attach_stopped, listening_debuggee, program_path, start_stopped

pytestmark = pytest.mark.e2e

NAME = "Δ since last stop"
TRUTH = (
    "float(__import__('numpy').linalg.norm("
    "w.numpy().astype('float64') - previous.astype('float64')))"
)


def _short(value: float) -> str:
    from tf_debug_repr.core import formatting

    return formatting.number(value)


@pytest.fixture(scope="module")
def s():
    session = start_stopped("forensics_change.py", "BREAKPOINT")
    yield session
    session.client.close()


def _child(s, var, name):
    return next(c for c in s.children(var) if c.name == name)


TRIPLED = "w * 4.0"  # exact in float32, as `scaled`


def _watched_delta(s, expression: str, truth: float) -> None:
    """The ``Δ since last stop`` row under a Watch expression's tensor: its own expression
    names the watch expression's change by its key (file, function, expression as quoted
    literals), so it gives that row's value wherever it is evaluated, without evaluating
    the watch expression again (which would give another tensor)."""
    watched = s.evaluate(expression, "watch")
    delta = next(c for c in s.client.variables(watched["variablesReference"]) if c.name == NAME)
    file = program_path("forensics_change.py")
    assert delta.evaluate_name == (
        "__import__('tf_debug_repr').change_since_last_stop("
        f"watch=({file!r}, '<module>', {expression!r}))"
    ), delta.evaluate_name
    for context in ("watch", "repl", "hover"):
        assert s.evaluate(delta.evaluate_name, context)["result"] == delta.value, context
    norm = next(c for c in s.children(delta) if c.name == "‖Δ‖")
    assert float(norm.value) == pytest.approx(truth, rel=1e-12)
    assert norm.evaluate_name == delta.evaluate_name + ".change.norm"
    assert float(s.evaluate(norm.evaluate_name, "repl")["result"]) == float(norm.value)


def test_change_since_last_stop_across_four_stops(s):
    # stop 1: expand w and the model, hover over `still`: all tracked from now on.
    first = s.locals()
    assert "Δ" not in first["w"].value
    # expanding is looking: nothing to show yet (no row until there is a change)
    assert NAME not in [c.name for c in s.children(first["w"])]
    assert NAME not in [c.name for c in s.children(first["model"])]
    assert s.evaluate("__import__('tf_debug_repr').change_since_last_stop(w)")["result"] == "None"
    assert "Variable" in s.evaluate("still", "hover")["result"]
    assert "Δ" not in s.evaluate("scaled", "watch")["result"]  # watched: tracked by expression
    assert "Δ" not in s.evaluate(TRIPLED, "watch")["result"]  # a new tensor at each evaluation

    # stop 2: w moved by the program's noise; the model trained 3 steps.
    s.resume_to_next_stop()
    now = s.locals()
    truth = float(s.evaluate(TRUTH, "repl")["result"])
    assert truth > 0.5
    delta = _child(s, now["w"], NAME)
    assert delta.value.startswith("‖Δ‖="), delta.value
    figures = s.child_map(delta)
    assert float(figures["‖Δ‖"].value) == pytest.approx(truth, rel=1e-12)
    assert float(s.evaluate(figures["‖Δ‖"].evaluate_name)["result"]) == float(figures["‖Δ‖"].value)
    assert figures["changed"].value == "12" and figures["of"].value == "12"
    assert f"Δ‖·‖={delta.value.split('=')[1].split(',')[0]} since stop" in now["w"].value
    # the largest change is where the program's own difference is largest
    where = s.evaluate(
        "tuple(int(i) for i in __import__('numpy').unravel_index("
        "abs(w.numpy().astype('float64') - previous.astype('float64')).argmax(), (3, 4)))",
        "repl",
    )["result"]
    assert figures["at"].value == "[" + where.strip("()") + "]"
    assert s.evaluate(delta.evaluate_name)["result"] == delta.value
    assert "Δ=0 since last stop" in now["still"].value
    # the watch `scaled` gives a new tensor at each stop: its change is twice w's
    watched = s.evaluate("scaled", "watch")
    assert f"Δ‖·‖={_short(2 * truth)} since stop" in watched["result"], watched["result"]
    scaled_delta = next(
        c for c in s.client.variables(watched["variablesReference"]) if c.name == NAME
    )
    norm = next(c for c in s.children(scaled_delta) if c.name == "‖Δ‖")
    assert float(norm.value) == pytest.approx(2 * truth, rel=1e-12)
    assert s.evaluate(scaled_delta.evaluate_name)["result"] == scaled_delta.value
    _watched_delta(s, TRIPLED, 4 * truth)
    weights = s.child_map(_child(s, now["model"], NAME))
    head = weights["sequential/head/kernel"]
    assert "3 gradient steps between" in head.value, head.value
    assert s.evaluate(head.evaluate_name)["result"] == head.value
    assert weights["sequential/fixed/kernel"].value.startswith("unchanged")

    # stop 3: w not changed this time; stop 4: w changed again, `still` frozen 3 stops.
    s.resume_to_next_stop()
    assert "Δ=0 since last stop" in s.locals()["w"].value
    s.resume_to_next_stop()
    last = s.locals()
    truth = float(s.evaluate(TRUTH, "repl")["result"])
    figures = s.child_map(_child(s, last["w"], NAME))
    assert float(figures["‖Δ‖"].value) == pytest.approx(truth, rel=1e-12)
    assert "‼Δ frozen 3 stops" in last["still"].value, last["still"].value
    # the Watch `w * 4.0` was not evaluated at stop 3: its change is since stop 2
    _watched_delta(s, TRIPLED, 4 * truth)
    model_delta = _child(s, last["model"], NAME)
    assert model_delta.value.startswith(
        "‼ 2 frozen (sequential/fixed/kernel, sequential/fixed/bias)"
    ), model_delta.value
    rows = s.children(model_delta)
    assert [r.name for r in rows[:2]] == ["sequential/fixed/kernel", "sequential/fixed/bias"]
    assert "frozen" in rows[0].value
    # The model was not looked at in stop 3: its change is since stop 2, and both stops
    # come after the optimizer's first step, so its iterations count the steps.
    head = next(r for r in rows if r.name == "sequential/head/kernel")
    assert "(stop 2 → 4, 6 optimizer steps between)" in head.value, head.value


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reads Linux's socket table")
def test_change_since_last_stop_in_attach_mode():
    """``python -m debugpy --listen … --wait-for-client``, VS Code attaching: the same
    change, exact, at the second stop."""
    program = program_path("forensics_change.py")
    with listening_debuggee(program) as port:
        s = attach_stopped(program, port)
        try:
            s.children(s.locals()["w"])  # looked at: tracked from now on
            s.resume_to_next_stop()
            truth = float(s.evaluate(TRUTH, "repl")["result"])
            delta = _child(s, s.locals()["w"], NAME)
            norm = s.child_map(delta)["‖Δ‖"]
            assert float(norm.value) == pytest.approx(truth, rel=1e-12)
        finally:
            s.client.close()
