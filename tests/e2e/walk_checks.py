"""What a walk checks on a row: does the value of its expression show what the row shows?
Shared by tests/e2e/test_real_programs.py, test_keras_io_walk.py and real_suite.py."""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from tf_debug_repr.hosts.demo.dap_client import DapError, Variable

NARROW_FLOATS = ("float32", "float16", "bfloat16")
# pydevd's own groups: no evaluateName, and their contents are stock debugpy's.
GROUPS = ("special variables", "function variables", "class variables", "protected variables")


# Element rows (``[i]``, ``[i, j]``) read per tensor, list or dict at each level: a person
# reads the first few items; the rest are the same rows at other indices (and each costs an
# indexing op in the program: a 4-d batch's three levels are over a thousand evaluations).
ELEMENTS = 4


def first_elements(rows: list[Variable]) -> list[Variable]:
    """``rows`` less the element rows past the first ``ELEMENTS``."""
    elements = [r for r in rows if r.name.startswith("[")]
    if len(elements) <= ELEMENTS:
        return rows
    skipped = {id(r) for r in elements[ELEMENTS:]}
    return [r for r in rows if id(r) not in skipped]


# A watched expression's tensor is compared with what it gave at the previous stop (the
# Watch pane's ``Δ since last stop``): the Variables pane's row has no such mark.
WATCH_CHANGE = re.compile(
    r" (?:‼ ?)?Δ(?:=0 since last stop|‖·‖=\S+ since stop \d+| frozen \d+ stops| shape changed)"
)
# and, from its third stop, a sparkline of its norm's history (docs/history.md): the tensor
# a Watch expression gives is tracked by that expression, which the Variables row is not.
WATCH_HISTORY = re.compile(r" ‖·‖[▁▂▃▄▅▆▇█]+")


# The figures of a summary line; sampled ones (``~``, ``≈``) where a request's time budget ran
# out, so the same value can read exact in one request and sampled in the next.
FIGURES = re.compile(r" x∈~?\[[^\]]*\]| μ[=≈]\S+| σ[=≈]\S+")


def same_value(row: Variable, result: str) -> bool:
    """Does the watch value of a row's expression show what the row shows?"""
    result = WATCH_HISTORY.sub("", WATCH_CHANGE.sub("", result, count=1), count=1)
    row = dataclasses.replace(
        row, value=WATCH_HISTORY.sub("", WATCH_CHANGE.sub("", row.value, count=1), count=1)
    )
    if result == row.value:
        return True
    sampled = ("x∈~[", " μ≈", " σ≈")
    if any(mark in text for mark in sampled for text in (result, row.value)):
        # the same value, its figures sampled once (extremes or moments): the rest alike
        return FIGURES.sub("", result) == FIGURES.sub("", row.value)
    if row.value.lstrip("-+") in ("nan", "inf") and result.startswith("‼ "):
        # a NaN or Inf element: its 0-d tensor's line carries the ‼ flag, the element's row
        # is the number, which says it itself (TF's text-generation tutorial's -inf mask)
        result = result.removeprefix("‼ ")
    if row.type == "Note":  # a line of text: its expression gives that text, quoted
        return result == repr(row.value)
    if row.type == "StatsNode":  # the figures of the tensor its expression gives
        return row.value.removeprefix("n=").split(" ", 1)[-1] in result
    if row.type in NARROW_FLOATS:  # float32 text of a value the expression gives as float64
        try:
            narrow = getattr(np, row.type) if row.type != "bfloat16" else np.float32
            return narrow(float(result)) == narrow(float(row.value))
        except ValueError:
            pass
    if row.type == "bytes":  # a string tensor's element: its 0-d tensor, the text cut to fit
        text, found, _ = result.rpartition(" string ")
        return bool(found) and row.value.startswith(text.removesuffix("…"))
    # A scalar element shown as its number (a Python int/bool/complex, or a float named
    # after its dtype); its expression gives that 0-d tensor, shown as number, dtype, device.
    return result.startswith(f"{row.value} ") and result.count(" ") == 2


def same_count(session, row: Variable) -> bool:
    """A group node (``14 variables, 27,170 values``) whose expression gives the plain
    sequence: the sequence has as many items as the node says."""
    head = row.value.split(" ", 1)[0].replace(",", "")
    if not head.isdigit():
        return False
    try:
        return session.evaluate(f"len({row.evaluate_name})")["result"] == head
    except DapError:
        return False
