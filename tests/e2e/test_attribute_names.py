"""Every name stock debugpy shows on an object users hold is a row of that name under the
plugin (issue 26): parts held in attributes (a subclassed model's sublayers, a weight under an
attribute's name, a ``tf.Module``'s submodules in attributes, lists and dicts), a functional
model, traced and restored functions and their concrete functions, a loaded SavedModel object,
a checkpoint and its manager (tests/programs/attribute_names.py).

Stock's names are read as the real-program suite reads them (``_objects``: each local and each
object a local holds, two levels); here they must be there by name, not only through a row's
expression (whose head is pydevd's, the last path that listed the object)."""

from __future__ import annotations

import pytest

from tf_debug_repr.hosts.demo.dap_client import Variable

from ..conftest import Stopped, start_stopped
from .real_suite import _reachable
from .test_keras_io_walk import COVERED, _objects, _stock_names

pytestmark = pytest.mark.e2e

PROGRAM = "attribute_names.py"
# The objects whose parts sit in attributes, each a local of the program.
HOLDERS = {"wrapper", "net", "loaded", "checkpoint", "manager", "traced", "signature"}


@pytest.fixture(scope="module")
def stock() -> dict[str, set[str]]:
    session = start_stopped(PROGRAM, env={"TF_DEBUG_REPR_DISABLE": "1"})
    try:
        return {e: _stock_names(session, rows) for e, rows in _objects(session).items()}
    finally:
        session.client.close()


@pytest.fixture(scope="module")
def s():
    session = start_stopped(PROGRAM)
    yield session
    session.client.close()


def rows_of(s: Stopped, expression: str) -> dict[str, Variable]:
    answer = s.evaluate(expression)
    assert answer["variablesReference"], f"{expression} is not expandable"
    return {row.name: row for row in s.client.variables(answer["variablesReference"])}


def test_every_name_stock_shows_is_a_row_of_that_name(stock, s):
    ours = _objects(s)
    compared = [e for e in stock if e.split(".")[0] in HOLDERS]
    # each holder, and the objects they hold: a sublayer, a submodule, a signature's parts
    assert set(compared) >= HOLDERS and len(compared) >= 20, sorted(stock)
    lost = []
    for expression in compared:
        if expression not in ours:
            lost.append(f"{expression} is not expandable")
            continue
        shown, _ = _reachable(s, ours[expression])
        lost += [f"{expression}.{n}" for n in sorted(stock[expression] - shown - COVERED)]
    assert not lost, "\n".join(lost)


def test_parts_held_by_attributes_are_their_rows(s):
    wrapper = rows_of(s, "wrapper")
    for name, kind in (("body", "Functional"), ("block", "Block"), ("final_layer", "Dense")):
        row = wrapper[name]
        assert row.type == kind and row.reference, (name, row)
        assert row.evaluate_name.endswith(f".{name}"), row.evaluate_name
        assert s.evaluate(f"{row.evaluate_name} is wrapper.{name}")["result"] == "True"
    assert not [n for n in wrapper if n.endswith(("(Functional)", "(Block)", "(Dense)"))]
    # a Block's list and dict attributes, and its layer under a name of the program's
    block = rows_of(s, "wrapper.block")
    assert {"stack", "heads", "norm_layer"} <= set(block)
    assert block["norm_layer"].type == "LayerNormalization"
    assert len([n for n in block if n.endswith(" (Dense)")]) == 4  # the list's and dict's
    # a weight held under another name than its own ("g")
    scale = rows_of(s, "wrapper.scale")
    assert scale["gain_vector"].evaluate_name.endswith(".gain_vector") and "g" not in scale
    # a functional model's layers are in Keras's list only: named by themselves
    functional = rows_of(s, "functional")
    assert "out (Dense)" in functional
    assert functional["out (Dense)"].evaluate_name.endswith(".layers[2]")


def test_module_functions_saved_objects_and_checkpoints_by_attribute_names(s):
    net = rows_of(s, "net")
    assert {"first", "towers", "towers[0]", "towers[1]", "by_name", "by_name['a']"} <= set(net)
    # TF's ListWrapper of variables reads as a list of variables (stock: each variable's
    # repr, numpy values and all), and its expression gives that line
    scales = net["scales"]
    assert scales.type == "ListWrapper", scales
    assert scales.value.startswith("3 variables, 32 B: [float32[2, 2] Variable 's0'"), scales
    assert s.evaluate(scales.evaluate_name)["result"] == scales.value
    assert "numpy=" in s.evaluate(scales.evaluate_name, "clipboard")["result"]  # stock's repr
    # Keras 3's TrackedList of layers reads as a plain list of them does: each layer in brief
    stack = rows_of(s, "wrapper.block")["stack"]
    assert stack.type == "TrackedList", stack
    assert stack.value.startswith("[12 params: kernel[2, 4] bias[4], Dense 'dense_1', "), stack
    signature = rows_of(s, "signature")
    for name in ("structured_input_signature", "structured_outputs", "captured_inputs"):
        assert signature[name].evaluate_name.endswith(f".{name}"), signature[name]
    assert signature["structured_outputs"].reference  # a dict of specs, expandable
    call = rows_of(s, "net.__call__")
    assert call["input_signature"].value.startswith("(TensorSpec float32[None, 3]")
    loaded = rows_of(s, "loaded")
    assert {"first", "towers", "bias", "signatures"} <= set(loaded), sorted(loaded)
    assert loaded["bias"].type in ("UninitializedVariable", "ResourceVariable")
    checkpoint = rows_of(s, "checkpoint")
    assert {"net", "model", "save_counter"} <= set(checkpoint)
    assert checkpoint["model"].type == "Wrapper"
    manager = rows_of(s, "manager")
    assert manager["latest_checkpoint"].value.endswith("ckpt-1'")
    assert s.evaluate(manager["checkpoints"].evaluate_name)["result"].count("ckpt-") == 1
