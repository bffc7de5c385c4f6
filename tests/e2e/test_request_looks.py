"""End to end (issue 27): pydevd asks for each row of Locals apart; the rows of one
request read the compiled steps' counters once for all (a tensor's row, none), a new
request reads them again, and a step run between two requests (a Watch that trains)
shows in the next one's rows, each equal to the norms of the gradients the step
returned."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e

COMPILED = "__import__('tf_debug_repr.gradients.compiled', fromlist=['_'])"
# The program's own count of the counter reads (``_look_now``: one read of each site's
# counter), kept in the module: installed once, at the first stop.
COUNT = (
    "(lambda c: setattr(c, '_look_now', (lambda real, seen: lambda: seen.append(1) or real())"
    f"(c._look_now, c.__dict__.setdefault('_e2e_looks', []))))({COMPILED})"
)
LOOKS = f"len({COMPILED}._e2e_looks)"
NORMS = "[float(np.linalg.norm(g.numpy())) for g in grads]"


def shown_norm(line: str) -> tuple[float, str]:
    found = re.search(r"∇‖g‖=([0-9.e+-]+)@(SGD iteration \d+)", line)
    assert found is not None, line
    return float(found.group(1)), found.group(2)


def looks(s) -> int:
    return int(s.evaluate(LOOKS, "repl")["result"])


def test_one_request_reads_the_counters_once_and_a_step_between_requests_shows(debug_session):
    s = debug_session("training_loop_rows.py")
    s.evaluate("np = __import__('numpy')", "repl")
    s.evaluate(COUNT, "repl")
    for iteration in range(3):
        before = looks(s)
        rows = {name: row.value for name, row in s.locals().items()}
        assert looks(s) == before + 1, (before, looks(s))  # one site: one read a request
        norms = [float(n) for n in s.evaluate(NORMS, "repl")["result"].strip("[]").split(",")]
        # the rows of that one request, each this step's (weights of <= 65,536 elements:
        # the ring's norms are exact in float32; a row shows 4 significant digits)
        norm, label = shown_norm(rows["kernel"])
        assert label == f"SGD iteration {iteration}" and norm == pytest.approx(
            norms[0], rel=1e-3
        ), (rows["kernel"], norms)
        total, label = shown_norm(rows["model"])
        assert label == f"SGD iteration {iteration}"
        assert total == pytest.approx(sum(n * n for n in norms) ** 0.5, rel=1e-3), rows["model"]
        for tensor in ("t0", "t1", "t2", "x", "y"):
            assert "∇" not in rows[tensor], rows[tensor]
        # a Watch that trains: the next request's rows show the new step
        before = looks(s)
        s.evaluate("globals().__setitem__('grads', train_step(x, y))", "repl")
        if iteration == 0:
            # tensors' rows of another request read no counter at all
            s.evaluate("t0", "watch")
            s.evaluate("t1", "hover")
            assert looks(s) == before, (before, looks(s))
