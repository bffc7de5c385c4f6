"""Issue 15 item 7: views of loaded SavedModel objects, tf.functions (traced and restored),
concrete functions, checkpoints and checkpoint managers, on real TF objects. Each row's
expression gives its value; nothing is traced or created by looking."""

from __future__ import annotations

import os
import re

import pytest

tf = pytest.importorskip("tensorflow")

from tf_debug_repr import _expr, views  # noqa: E402
from tf_debug_repr.core.tf_types import Kind  # noqa: E402
from tf_debug_repr.core.view_model import Note  # noqa: E402

ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # a property making a new object at each read


class Adder(tf.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = tf.Variable([1.0, 2.0, 3.0], name="w")
        self.inner = tf.Module(name="inner")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def __call__(self, x):
        return {"y": x + self.w}

    @tf.function(jit_compile=True)
    def double(self, a):
        return a * 2.0


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    views.build_table()
    module = Adder()
    module.double(tf.constant(1.0))
    module.double(tf.constant([1.0, 2.0]))
    path = str(tmp_path_factory.mktemp("saved"))
    tf.saved_model.save(module, path, signatures={"serving_default": module.__call__})
    return module, tf.saved_model.load(path)


def _rows(value) -> dict:
    return {c.name: c for c in views.children(value)}


def _evaluate(child, value):
    expression = child.expression
    text = expression("v") if callable(expression) else "v" + expression
    return eval(text, {"v": value})


def _text(value) -> str:
    if isinstance(value, Note):
        return str(value)
    kind = views.kind_of(value)
    if kind is not None or hasattr(value, "summary"):
        return views.summary(value)
    text = views.container_summary(value) if type(value) in (list, tuple, dict) else None
    return ADDRESS.sub("", text if text is not None else repr(value))


def _check_expressions(value) -> int:
    checked = 0
    for child in views.children(value):
        shown = child.resolve()
        assert "<error" not in _text(shown), (child.name, _text(shown))
        if child.expression is None or child.name == "private attributes":
            continue
        found = _evaluate(child, value)
        if isinstance(found, list) and hasattr(shown, "summary"):  # a group of the list
            assert views.summary(shown).startswith(f"{len(found)} "), child.name
        else:
            assert _text(found) == _text(shown), child.name
        checked += 1
    return checked


def test_kinds(saved):
    module, loaded = saved
    assert views.kind_of(loaded) is Kind.SAVED_OBJECT
    assert views.kind_of(loaded.double) is views.kind_of(module.double) is Kind.FUNCTION
    assert views.kind_of(loaded.signatures) is Kind.SIGNATURES
    assert views.kind_of(loaded.signatures["serving_default"]) is Kind.CONCRETE_FUNCTION


def test_loaded_object_shows_signatures_functions_variables_children(saved):
    _, loaded = saved
    text = views.summary(loaded)
    assert text == (
        "loaded SavedModel object: signatures serving_default; "
        "1 variable, 1 loaded object, 2 restored functions"
    ), text
    rows = _rows(loaded)
    assert list(rows)[:5] == [  # each by the attribute reaching it (stock's name)
        "w",
        "inner",
        "restored function __call__",
        "double",
        "signatures",
    ]
    assert rows["w"].resolve() is loaded.w and rows["w"].expression == ".w"
    assert rows["double"].resolve() is loaded.double and rows["double"].expression == ".double"
    assert views.summary(rows["all variables"].resolve()) == "1 variable, 3 values"
    assert rows["tensorflow_version"].resolve() == tf.__version__  # other attributes follow
    assert "private attributes" in rows
    signatures = views.summary(loaded.signatures)
    assert (
        signatures == "1 signature: serving_default (x: float32[None, 3]) -> {y: float32[None, 3]}"
    )
    assert _check_expressions(loaded) >= 8
    assert _check_expressions(loaded.signatures) == 1


def test_restored_and_traced_functions(saved):
    module, loaded = saved
    text = views.summary(module.double)
    assert text.startswith("tf.function 'double' (Adder.double at test_saved_objects.py:")
    assert "traced 4×, 4 concrete functions, XLA (jit_compile)" in text  # 2 calls, 2 for saving
    rows = _rows(module.double)
    assert rows["times traced"].resolve() == 4
    assert rows["XLA (jit_compile)"].resolve() is True
    assert len(rows["concrete functions"].resolve()) == 4
    assert str(rows["input_signature"].resolve()).startswith("None: a new trace")
    call = _rows(module.__call__)
    assert call["input_signature"].resolve() == module.__call__.input_signature
    assert call["input_signature"].expression == ".input_signature"
    restored = _rows(loaded.double)
    assert str(restored["defined at"].resolve()).startswith("restored from a SavedModel")
    # a restored function's own attribute, by its name
    assert len(restored["concrete_functions"].resolve()) == 2
    assert restored["concrete_functions"].expression == ".concrete_functions"
    for function in (module.double, module.__call__, loaded.double, loaded.__call__):
        before = function.experimental_get_tracing_count()
        assert _check_expressions(function) >= 5
        assert function.experimental_get_tracing_count() == before  # looking traces nothing


def test_concrete_function(saved):
    _, loaded = saved
    function = loaded.signatures["serving_default"]
    assert views.summary(function) == (
        "ConcreteFunction (x: float32[None, 3]) -> {y: float32[None, 3]}, 1 captured"
    )
    rows = _rows(function)
    # the attributes by their own names (stock debugpy's), each its expression
    for name in ("structured_input_signature", "structured_outputs", "captured_inputs"):
        assert rows[name].expression == f".{name}", name
    assert rows["structured_outputs"].resolve() == function.structured_outputs
    assert not {"input specs", "output specs", "captured inputs"} & set(rows)
    assert rows["graph ops"].resolve() > 0
    assert "inputs" in rows and "inputs (2)" not in rows
    assert _check_expressions(function) >= 6


def test_checkpoint_and_manager(tmp_path):
    views.build_table()
    module = Adder()
    step = tf.Variable(0)
    fresh = tf.train.Checkpoint(model=module, step=step)
    assert views.summary(fresh) == "Checkpoint tracking model (Adder), step (variable); no save yet"
    rows = _rows(fresh)
    assert str(rows["save_counter"].resolve()).startswith("not created yet")
    assert rows["model"].resolve() is module and rows["model"].expression == ".model"
    _check_expressions(fresh)
    assert fresh._save_counter is None  # looking created no counter
    manager = tf.train.CheckpointManager(fresh, str(tmp_path / "ck"), max_to_keep=3)
    manager.save()
    step.assign_add(1)
    manager.save()
    text = views.summary(manager)
    assert text == (
        f"CheckpointManager {str(tmp_path / 'ck')!r}: 2 checkpoints kept (max 3), "
        "latest ckpt-2; saved 2×"
    ), text
    rows = _rows(manager)
    assert [os.path.basename(p) for p in rows["checkpoints"].resolve()] == ["ckpt-1", "ckpt-2"]
    assert rows["latest_checkpoint"].expression == ".latest_checkpoint"
    assert int(rows["save counter"].resolve().numpy()) == 2
    assert _check_expressions(manager) >= 6
    assert _check_expressions(fresh) >= 3
    assert "saved 2×" in views.summary(fresh)


def test_facade_functions(saved):
    module, loaded = saved
    assert len(_expr.concrete_functions(module.double)) == 4
    assert _expr.saved_variables(loaded) == [loaded.w]
