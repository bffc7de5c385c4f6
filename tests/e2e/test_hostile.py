"""End to end, hostile values (issue 16): in a real debugpy session, adding every row the
plugin shows to Watch (DAP evaluate of every evaluateName, as VS Code sends it) never runs
the program's text, and no row of a 20 MB string is slow (tests/programs/hostile_names.py)."""

from __future__ import annotations

import ast
import json
import re
import time

import pytest

from ..conftest import start_stopped
from .test_report import _report

pytestmark = pytest.mark.e2e

ROOTS = ["module", "layer", "opt", "keyed", "big"]
# Containers the plugin leaves to pydevd: their children's expressions are stock's.
STOCK_TYPES = {"dict", "list", "tuple"}
ROW_SECONDS = 3.0  # a Variables request; the 20 MB string took seconds per refresh before


@pytest.fixture(scope="module")
def marker(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile") / "MARKER"


@pytest.fixture(scope="module")
def s(marker):
    session = start_stopped("hostile_names.py", env={"HOSTILE_MARKER": str(marker)})
    yield session
    session.client.close()


def walk(s, var, depth, seen):
    """Every row under ``var`` to ``depth`` levels, each Variables request timed."""
    if depth == 0 or not var.reference or var.reference in seen or len(seen) > 300:
        return []
    if var.type in STOCK_TYPES:
        return []  # pydevd's own rows (its dict resolver reprs keys: stock's flaw, left)
    seen.add(var.reference)
    start = time.perf_counter()
    rows = s.children(var)
    assert time.perf_counter() - start < ROW_SECONDS, var.name
    found = list(rows)
    for row in rows:
        found += walk(s, row, depth - 1, seen)
    return found


def test_the_report_of_hostile_names_and_strings_runs_nothing_and_stays_text(s, marker):
    """``tf_debug_repr.report()`` (test_report.py's ``_report``, as the extension asks for it)
    and the inline values of the hostile names: the first reads of the file's session (a
    session of their own before, in test_report.py), so they meet the program as it stopped."""
    start = time.perf_counter()
    text = _report(s)
    seconds = time.perf_counter() - start
    data = json.loads(_report(s, "json"))
    names = json.dumps(["module", "layer", "opt", "keyed", "big", "NAMES", "CODE"])
    inline = s.client.evaluate(
        f"__import__('tf_debug_repr').inline_values({names!r})", s.frame_id, "clipboard"
    )
    found = json.loads(ast.literal_eval(inline["result"]))
    assert not marker.exists()
    assert seconds < 10, seconds  # with a 20 MB string tensor in the frame
    assert "<" not in text and "](" not in text
    for line in text.splitlines():
        if line.startswith("| "):
            # every row keeps its columns, whatever a name or a summary holds
            assert len(re.split(r"(?<!\\)\|", line)) in (4, 5, 8), line
    rows = {v["name"] for v in data["values"]}
    assert {"module", "layer", "opt", "keyed", "big"} <= rows, rows
    assert set(found) == {"module", "layer", "opt", "big"}, found  # TF values; keyed is a dict


def test_adding_every_row_to_watch_never_runs_the_programs_text(s, marker):
    local = s.locals()
    rows, seen = [], set()
    for name in ROOTS + ["module.by_key"]:
        if name not in local:
            continue
        rows += walk(s, local[name], 3, seen)
    names = [r.evaluate_name for r in rows if r.evaluate_name]
    assert len(names) > 50, len(names)
    # the dict attribute with a hostile key is the plugin's view, its key quoted
    assert "layer.options['o']" in names, [n for n in names if "options" in n]
    for expression in names:
        s.evaluate(expression, "watch")
        assert not marker.exists(), f"{expression!r} ran the marker"
    # the hostile rows are there, reachable through getattr with a quoted literal
    assert any(n.startswith("getattr(module, ") for n in names)
    assert "module.by_key" in names


def test_memory_rows_never_run_the_programs_text(s, marker):
    report = s.evaluate("__import__('tf_debug_repr').memory()", "watch")
    from tf_debug_repr.hosts.demo.dap_client import Variable

    root = Variable(
        "memory()", report["result"], report.get("type", ""), report["variablesReference"], None, {}
    )
    for row in walk(s, root, 3, set()):
        if row.evaluate_name:
            s.evaluate(row.evaluate_name, "watch")
            assert not marker.exists(), row.evaluate_name
