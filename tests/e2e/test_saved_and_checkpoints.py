"""End to end: TF's SavedModel and checkpoint guides (tests/programs/saved_and_checkpoints.py)
stopped under a real debugpy adapter. Every local is walked three levels deep: no
``<error``, every expression evaluates to its row; the loaded object, the restored and
traced functions, the checkpoint and its manager show their facts, and a dict of dicts of
tensors shows the plugin's brief text (issue 15 items 6 and 7)."""

from __future__ import annotations

import re

import pytest

from ..conftest import Stopped, start_stopped
from .test_real_programs import GROUPS, same_count, same_value

pytestmark = pytest.mark.e2e

DEPTH = 3
# Values the plugin leaves to stock debugpy (a function's graph and its C++ internals,
# whose multi-line reprs pydevd cuts): not descended into.
STOCK_TYPES = ("FuncGraph", "Graph", "module")
ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # a property making a new object at each read


@pytest.fixture(scope="module")
def s():
    session = start_stopped("saved_and_checkpoints.py")
    yield session
    session.client.close()


def _walk(s: Stopped, rows, path: str, depth: int, problems: list[str]) -> int:
    checked = 0
    for row in rows:
        if row.name in GROUPS:
            continue
        checked += 1
        where = f"{path}/{row.name}"
        if "<error" in row.value:
            problems.append(f"{where}: shows {row.value!r}")
        if row.evaluate_name:
            result = s.evaluate(row.evaluate_name)["result"]
            fresh = ADDRESS.sub("", result) == ADDRESS.sub("", row.value)
            if not (same_value(row, result) or fresh or same_count(s, row)):
                problems.append(f"{where}: {row.evaluate_name!r} gives {result[:120]!r}")
        # private attributes: one level (TF's internals, stock's values below them)
        stock = row.type in STOCK_TYPES or row.name == "private attributes"
        if row.reference and depth > 0 and not stock:
            checked += _walk(s, s.children(row), where, depth - 1, problems)
    return checked


def test_every_local_three_levels_deep(s):
    problems: list[str] = []
    checked = _walk(s, list(s.locals().values()), "", DEPTH, problems)
    assert checked > 150
    assert not problems, "\n".join(problems)


def test_loaded_object_and_functions(s):
    local = s.locals()
    imported = s.child_map(local["imported"])
    assert local["imported"].value.startswith(
        "loaded SavedModel object: signatures serving_default;"
    )
    assert "v" in imported and "restored function __call__" in imported
    assert imported["v"].evaluate_name == "imported.v"
    assert imported["restored function __call__"].evaluate_name == "imported.__call__"
    call = s.child_map(imported["restored function __call__"])
    assert call["input_signature"].value == "(TensorSpec float32[] 'x',)"
    assert (
        local["serving"].value
        == "ConcreteFunction (x: float32[]) -> {output_0: float32[]}, 1 captured"
    )
    # pydevd files a tf.function (a descriptor: a "routine") in its function group
    mutate = s.evaluate("mutate")
    assert mutate["result"].startswith(
        "tf.function 'mutate' (CustomModule.mutate at saved_and_checkpoints.py:"
    ), mutate["result"]
    assert "traced 2×, 2 concrete functions" in mutate["result"], mutate["result"]
    rows = {r.name: r for r in s.client.variables(mutate["variablesReference"])}
    assert rows["times traced"].evaluate_name == "mutate.experimental_get_tracing_count()"
    assert rows["concrete functions"].value.startswith("[(new_v: float32[]) -> ")


def test_checkpoint_and_manager(s):
    local = s.locals()
    assert local["ckpt"].value == (
        "Checkpoint tracking net (Module), opt_step (variable), step (variable); saved 2×"
    )
    manager = local["manager"].value
    assert "2 checkpoints kept (max 3), latest ckpt-2; saved 2×" in manager, manager
    rows = s.child_map(local["manager"])
    assert rows["latest_checkpoint"].value.endswith("ckpt-2'")
    assert rows["latest_checkpoint"].evaluate_name == "manager.latest_checkpoint"
    assert rows["save counter"].value.endswith(" Variable 'save_counter' non-trainable")


def test_dict_of_dicts_of_tensors_in_brief(s):
    assert s.locals()["weights"].value == (
        "{'dense': {'kernel': float32[8, 4], 'bias': float32[4]}, 'head': {'kernel': float32[4, 1]}}"
    )
