"""Layer calls a compiled step could not keep, read as VS Code reads them in a real debugpy
session: a ``tf.cond`` branch's and a ``tf.while_loop`` body's layers, and a step under a
2-replica MirroredStrategy, each get a ``→ output (not kept)`` row saying why, whose
expression gives the same line; a layer called in the step's own graph keeps its output."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def _output_rows(s, name: str):
    layer = s.locals()[name]
    return [c for c in s.children(layer) if c.name.startswith("→ output")]


def test_control_flow_bodies_and_replicas_say_why_nothing_is_kept(debug_session):
    s = debug_session(
        "activations_control_flow.py",
        markers=["CONTROL_FLOW_BREAKPOINT", "MIRRORED_BREAKPOINT"],
    )
    kept = _output_rows(s, "plain")
    assert [r.name for r in kept] == ["→ output (in compiled step 'step')"], kept
    assert "float32[8, 4]" in kept[0].value, kept[0].value
    same = f"__import__('numpy').array_equal(({kept[0].evaluate_name}).numpy(), plain(x).numpy())"
    assert s.evaluate(same, "repl")["result"] == "True"
    for name, body in (("branch", "tf.cond"), ("looped", "tf.while_loop")):
        rows = _output_rows(s, name)
        assert [r.name for r in rows] == ["→ output (not kept)"], (name, rows)
        assert rows[0].value.startswith(
            f"not kept: called inside a {body} body of compiled step 'step'"
        ), rows[0].value
        assert s.evaluate(rows[0].evaluate_name)["result"] == rows[0].value

    s.resume_to_next_stop()  # MIRRORED_BREAKPOINT
    found = s.evaluate("mirrored.layers[0]")
    assert found["variablesReference"], found
    rows = [
        c for c in s.client.variables(found["variablesReference"]) if c.name.startswith("→ output")
    ]
    assert [r.name for r in rows] == ["→ output (not kept)"], rows
    assert rows[0].value.startswith(
        "not kept: compiled step 'replicated_step' runs under MirroredStrategy with 2 replicas"
    ), rows[0].value
    assert s.evaluate(rows[0].evaluate_name)["result"] == rows[0].value
