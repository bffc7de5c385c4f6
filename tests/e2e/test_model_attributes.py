"""End to end: ``self`` in a custom Keras ``train_step`` (tests/programs/objects_train_step.py)
shows its sublayers and weights first, then every attribute stock debugpy shows: both
optimizers, the metric trackers, the hyperparameters, the loss function and a raw
``tf.Variable``, each as the plugin presents it, each expression evaluating in the frame
to what its row shows; private attributes in pydevd's protected group (issue 15)."""

from __future__ import annotations

import re

import pytest

from tf_debug_repr.hosts.demo.dap_client import Variable

from ..conftest import Stopped, start_stopped
from .test_real_programs import GROUPS, same_count, same_value

pytestmark = pytest.mark.e2e

PROGRAM = "objects_train_step.py"
# A method or class: pydevd's function and class groups, which the plugin leaves out.
CODE_TYPES = ("method", "function", "builtin_function_or_method", "method-wrapper", "type")
# Attributes the structured rows show as a whole (sublayer rows, weight rows, "trainable").
COVERED = {"layers", "weights", "trainable"}
ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # a property making a new object at each read


@pytest.fixture(scope="module")
def s():
    session = start_stopped(PROGRAM)
    yield session
    session.client.close()


def self_rows(session: Stopped) -> list[Variable]:
    return session.children(session.locals()["self"])


def by_name(rows: list[Variable]) -> dict[str, Variable]:
    return {row.name: row for row in rows}


def real_float(s: Stopped, expression: str) -> float:
    return float(s.evaluate(f"float({expression})", "repl")["result"].strip("'"))


def test_self_shows_optimizers_trackers_and_hyperparameters(s):
    rows = self_rows(s)
    names = [row.name for row in rows]
    plain = [name for name in names if name not in GROUPS]
    assert plain[:2] == ["discriminator", "generator"]  # by the attributes holding them
    # no pydevd group above them but the one for a function an attribute holds
    assert [name for name in names[:2] if name in GROUPS] in ([], ["function variables"])
    assert plain.index("label_noise") < plain.index("params") < plain.index("d_optimizer")
    row = by_name(rows)
    assert row["d_optimizer"].value.startswith("Adam 'adam' lr=0.0003 iterations=1 ")
    assert row["g_optimizer"].value.startswith("Adam 'adam_1' lr=0.001 iterations=1 ")
    d_loss = real_float(s, "self.d_loss_tracker.result()")
    assert row["d_loss_tracker"].value.startswith(f"Mean 'd_loss' result={d_loss:.4g} ")
    assert row["g_loss_tracker"].value.startswith("Mean 'g_loss' result=0 ")
    assert (row["latent_dim"].value, row["latent_dim"].type) == ("4", "int")
    assert row["temperature"].value == "0.5"
    assert row["label_noise"].value.startswith("0.05 float32 ")
    assert row["label_noise"].value.endswith(" Variable 'label_noise' non-trainable")
    assert row["label_noise"].evaluate_name == "self.label_noise"
    assert row["loss_fn"].value.startswith("BinaryCrossentropy 'binary_crossentropy' ")
    assert row["discriminator"].evaluate_name == "self.discriminator"
    assert row["discriminator"].type == "Sequential"
    assert "variables outside weights: label_noise[]" in s.locals()["self"].value
    # private attributes: one expansion away (stock shows some seventy of them inline)
    assert plain.index("private attributes") > plain.index("temperature")
    assert not [name for name in plain if name.startswith("_")]
    private = by_name(s.children(row["private attributes"]))
    assert private["_steps_seen"].value == "0"
    assert private["_steps_seen"].evaluate_name == "self._steps_seen"
    assert "train_step" not in names and "compile" not in names


def test_every_row_evaluates_to_what_it_shows(s):
    checked = 0
    rows = self_rows(s)
    for row in rows + s.children(by_name(rows)["private attributes"]):
        if row.name in GROUPS:
            continue
        assert "<error" not in row.value, (row.name, row.value)
        if not row.evaluate_name:
            continue
        result = s.evaluate(row.evaluate_name)["result"]
        fresh = ADDRESS.sub("", result) == ADDRESS.sub("", row.value)
        assert same_value(row, result) or same_count(s, row) or fresh, (
            row.name,
            row.evaluate_name,
            row.value,
            result,
        )
        checked += 1
    assert checked > 100


def data_rows(session: Stopped, rows: list[Variable], group: str) -> set[str]:
    """The names in one of pydevd's groups that are not methods or classes."""
    found = by_name(rows).get(group)
    if found is None:
        return set()
    return {row.name for row in session.children(found) if row.type not in CODE_TYPES}


def test_nothing_stock_debugpy_shows_is_lost(s):
    ours = self_rows(s)
    private = s.children(by_name(ours)["private attributes"])
    ours += private
    names = {row.name for row in ours}
    expressions = {row.evaluate_name for row in ours if row.evaluate_name}
    special = data_rows(s, private, "special variables")  # __dict__, __module__, …
    stock = start_stopped(PROGRAM, env={"TF_DEBUG_REPR_DISABLE": "1"})
    try:
        stock_rows = self_rows(stock)
        assert "d_optimizer" in by_name(stock_rows)  # stock, really: no structured rows
        assert "params" not in by_name(stock_rows)
        shown = [r.name for r in stock_rows if r.name not in GROUPS and r.type not in CODE_TYPES]
        stock_special = data_rows(stock, stock_rows, "special variables")
    finally:
        stock.client.close()
    lost = [
        name
        for name in shown
        if name not in names and f"self.{name}" not in expressions and name not in COVERED
    ]
    assert not lost
    assert len([name for name in shown if not name.startswith("_")]) > 40
    assert len([name for name in shown if name.startswith("_")]) > 50
    assert stock_special and not stock_special - special
    # what the covered attributes hold is there: sublayers, every weight, trainable
    assert "all weights" in names and "trainable" in names
