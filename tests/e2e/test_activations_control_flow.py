"""Layer calls inside a compiled step's control flow, read as VS Code reads them in a real
debugpy session: a ``tf.cond`` branch keeps the output of the run that ran it, and says
which run that was when the last run did not; a ``tf.while_loop`` body keeps its last
iteration's output and says how many iterations ran; each equal, bit for bit, to the
layer's output recomputed eagerly from the weights before that step. A step under a
2-replica MirroredStrategy keeps each replica's output, a child per replica."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def _output_rows(s, name: str):
    layer = s.locals()[name]
    return [c for c in s.children(layer) if c.name.startswith("→ output")]


def _equal(s, row, expected: str) -> None:
    same = f"__import__('numpy').array_equal(({row.evaluate_name}).numpy(), {expected})"
    assert s.evaluate(same, "repl")["result"] == "True", (row.name, expected)


def test_cond_branch_and_while_body_outputs_equal_a_recompute(debug_session):
    s = debug_session(
        "activations_control_flow.py",
        markers=["CONTROL_FLOW_BREAKPOINT", "MIRRORED_BREAKPOINT"],
    )
    # run 1: the branch ran
    for name, label in (
        ("plain", "→ output (in compiled step 'step')"),
        ("branch", "→ output (in compiled step 'step', tf.cond branch)"),
        ("looped", "→ output (in compiled step 'step', last of 3 tf.while_loop iterations)"),
    ):
        rows = _output_rows(s, name)
        assert [r.name for r in rows] == [label], (name, rows)
        assert "float32[8, 4]" in rows[0].value, rows[0].value
        assert s.evaluate(rows[0].evaluate_name)["result"] == rows[0].value
        _equal(s, rows[0], f"expected[{name!r}]")
    assert "dead ReLU" in _output_rows(s, "plain")[0].value

    s.resume_to_next_stop()  # run 2: the branch did not run
    rows = _output_rows(s, "branch")
    assert [r.name for r in rows] == [
        "→ output (in compiled step 'step', from its run 1: its tf.cond branch did not run "
        "in the last run (2))"
    ], rows
    assert "'branch'" not in s.evaluate("list(expected)", "repl")["result"]
    _equal(s, rows[0], "branch_expected")  # what run 1's branch gave, left as it was
    for name in ("plain", "looped"):
        rows = _output_rows(s, name)
        assert len(rows) == 1 and "from its run" not in rows[0].name, rows
        _equal(s, rows[0], f"expected[{name!r}]")

    s.resume_to_next_stop()  # MIRRORED_BREAKPOINT
    found = s.evaluate("mirrored.layers[0]")
    assert found["variablesReference"], found
    rows = [
        c for c in s.client.variables(found["variablesReference"]) if c.name.startswith("→ output")
    ]
    assert [r.name for r in rows] == [
        "→ output (in compiled step 'replicated_step', 2 replicas)"
    ], rows
    replicas = s.children(rows[0])
    assert [r.name for r in replicas] == ["[0] CPU:0", "[1] CPU:1"], replicas
    for replica, row in enumerate(replicas):  # each replica's own output
        assert "float32[8, 2]" in row.value, row.value
        _equal(s, row, f"result.values[{replica}].numpy()")
