"""The e2e viewer walk (tests/e2e/viewer_walk.py) against the extension it stands for:
the rows it views are those viewer/types.js tags, the expressions those
viewer/expression.js builds (asked of node itself); and its checks catch broken payloads."""

from __future__ import annotations

import base64
import copy
import json
import shutil
import subprocess

import numpy as np
import pytest

from tests.e2e import viewer_walk
from tf_debug_repr.hosts.demo.dap_client import Variable
from tf_debug_repr.viewer.payload import build

NODE = shutil.which("node")

ROWS = [
    *[(t, "float32[2] x∈[0, 1]") for t in sorted(viewer_walk.viewable_types())],
    ("Variable", "float32[4, 2] x∈[-1, 1] n=8 CPU:0 Variable 'dense/kernel'"),
    ("Variable", "<Variable path=dense/kernel, shape=(4, 2), dtype=float32>"),
    ("Variable", "Variable(x)"),  # another library's class of that name
    ("Variable", "<Variables of a sympy thing>"),
    ("float32", "0.5"),
    ("Note", "float32"),
    ("list", "[float32[2]]"),
    ("ResourceVariableX", "float32[2]"),
    ("", "float32[2]"),
    # rows that hold no numbers to draw (the contract's no_numbers): not offered
    ("EagerTensor", "string[32] n=32 CPU:0 [b'a', b'bb']"),
    ("EagerTensor", "b'hello' string CPU:0"),
    ("EagerTensor", "resource[] CPU:0 (a handle: no values to show)"),
    ("ResourceVariable", "b'a' string CPU:0 Variable 'v'"),
    ("RaggedTensor", "RaggedTensor string[2, None] rows=2 ragged_rank=1 values: string[3]"),
    ("SparseTensor", "SparseTensor string[1, 2] nnz=1 (50.0% dense) values: string[1]"),
    ("TensorArray", "TensorArray string size=1 element_shape=[], 1 of 1 written"),
    ("ndarray", "array([b'a', b'bb'], dtype=object)"),
    ("ndarray", "array([b'xxx'],\n      dtype=object)"),
    ("ndarray", "array(['a'], dtype='<U1')"),
    ("ndarray", "array(['2020-01-01'], dtype='datetime64[D]')"),
    ("ndarray", "array([None, {'a': 1}], dtype=object)"),
    # ... and their numeric neighbours: offered
    ("EagerTensor", "1.5 float32 CPU:0"),
    ("EagerTensor", "(1+2j) complex128 CPU:0"),
    ("ndarray", "array([0., 0., 0.], dtype=float32)"),
    ("ndarray", "array([[1, 2]])"),
    ("TensorArray", "TensorArray float32 size=3 element_shape=[], 3 of 3 written"),
]
NAMES = [
    "x",
    "  model.layers[0].kernel  ",
    "grads[0]",
    "__import__('tf_debug_repr').gradient_info(generator.trainable_weights[0])",
    '__import__("tf_debug_repr").gradient_info(w)',
    "__import__('tf_debug_repr').gradient_info(w).gradient.numpy(",
    "__import__('tf_debug_repr').gradient_info(w), (1)",
    "x  # a comment",
    "f(\n  1)",
    "d['a)b']",
]

NODE_SCRIPT = """
const types = require(process.argv[1] + '/types.js');
const expr = require(process.argv[1] + '/expression.js');
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
console.log(JSON.stringify({
  viewable: types.VIEWABLE_TYPES,
  ambiguous: Object.keys(types.AMBIGUOUS_TYPES),
  tagged: input.rows.map(([type, value]) => types.menuContextFor({ type, value }) !== undefined),
  expressions: input.names.map((evaluateName) => {
    const target = expr.targetOf({ variable: { name: 'v', evaluateName } });
    return expr.viewPayloadExpression(target.expression, {});
  }),
}));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed (scripts/test.sh needs it)")
def test_the_same_rows_and_expressions_as_the_extension():
    answer = subprocess.run(
        [NODE, "-e", NODE_SCRIPT, str(viewer_walk.EXTENSION_SRC)],
        input=json.dumps({"rows": ROWS, "names": NAMES}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    js = json.loads(answer.stdout)
    assert set(js["viewable"]) == viewer_walk.viewable_types()
    assert set(js["ambiguous"]) == set(viewer_walk.ambiguous_types())
    rows = [Variable("v", value, type_, 0, "v", {}) for type_, value in ROWS]
    assert [viewer_walk.is_tagged(r) for r in rows] == js["tagged"]
    ours = [viewer_walk.payload_expression(viewer_walk.viewable_expression(n)) for n in NAMES]
    assert ours == js["expressions"]


def test_the_expression_is_the_documented_one():
    assert viewer_walk.payload_expression(viewer_walk.viewable_expression(" w ")) == (
        "__import__('tf_debug_repr').view_payload((w), axes=None, index=None, region=None, "
        "part=None)"
    )


# --------------------------------------------------------------------------- checks


def _row(value: str, type_: str = "EagerTensor") -> Variable:
    return Variable("v", value, type_, 0, "v", {})


@pytest.fixture(scope="module")
def good():
    values = np.linspace(-1, 1, 600, dtype=np.float32).reshape(20, 30)
    values[3, 4] = np.nan
    return build(values)


def test_a_sound_payload_passes(good):
    assert good["error"] is None
    assert viewer_walk.check_payload(None, _row("float32[20, 30] ‼ NaN×1"), "v", good) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda p: p["histogram"]["counts"].__setitem__(0, p["histogram"]["counts"][0] + 1),
            "!= n",
        ),
        (lambda p: p["stats"].__setitem__("nan", 0), "!= n"),
        (lambda p: p["stats"].__setitem__("n", 599), "stats n=599"),
        (lambda p: p["histogram"]["edges"].pop(), "edges"),
        (lambda p: p["slice"].__setitem__("height", 20000), "over the budget"),
        (lambda p: p["slice"].__setitem__("values", p["slice"]["values"][:8]), "float32"),
        (lambda p: p["slice"].__setitem__("max", 7.0), "outside"),
        (lambda p: p.__setitem__("slice", None), "no slice"),
        (lambda p: p.__setitem__("dtype", "float64"), "dtype"),
        (lambda p: p.__setitem__("shape", [30, 20]), "shape"),
        (lambda p: p.__setitem__("error", "no values: it is symbolic here"), "holds numbers"),
    ],
)
def test_a_broken_payload_is_caught(good, change, expected):
    p = copy.deepcopy(good)
    change(p)
    problems = viewer_walk.check_payload(None, _row("float32[20, 30] ‼ NaN×1"), "v", p)
    assert any(expected in x for x in problems), problems


def test_marks_in_a_clean_value_are_caught():
    p = build(np.ones((4, 4), np.float32))
    p["slice"]["mask"] = base64.b64encode(bytes([0] * 15 + [1])).decode()
    assert viewer_walk.check_figures(p) == ["NaN/Inf marks in a value that has none"]


def test_errors_allowed_only_as_explanations_of_valueless_rows():
    symbolic = _row("symbolic float32[None, 20] 'x:0' ← Placeholder", "SymbolicTensor")
    p = {"version": 1, "error": "no value: Keras's build pass runs call() once on symbolic inputs"}
    assert viewer_walk.check_payload(None, symbolic, "x", p) == []
    raw = {**p, "error": "AttributeError: 'SymbolicTensor' object has no attribute 'numpy'"}
    assert "not an explanation" in viewer_walk.check_payload(None, symbolic, "x", raw)[0]
    pictured = build(np.ones(3, np.float32))
    assert (
        "got a picture"
        in viewer_walk.check_payload(
            None, _row("symbolic float32[3]", "SymbolicTensor"), "x", pictured
        )[0]
    )


@pytest.mark.parametrize(
    "value",
    [
        np.array(["a", "bc"]),
        np.zeros((2, 0), np.float32),
    ],
)
def test_valueless_rows_of_real_payloads_pass(value):
    import tensorflow as tf

    from tf_debug_repr import views

    tensor = tf.constant(value)
    row = _row(views.summary(tensor))
    p = build(tensor)
    assert p["error"] and viewer_walk.check_payload(None, row, "v", p) == []


def test_row_dtype_shape_reads_summaries():
    read = viewer_walk.row_dtype_shape
    assert read(_row("float32[8, 28, 28, 1] x∈[0, 1] n=6,272 CPU:0")) == ("float32", [8, 28, 28, 1])
    assert read(_row("float32[32, 1] x∈[-0.4, 0.4] n=32 CPU:0 Variable 'd/kernel'")) == (
        "float32",
        [32, 1],
    )
    assert read(_row("symbolic float32[None, 20, 16] 'x:0'")) == ("float32", [None, 20, 16])
    assert read(_row("int64[] = 3 CPU:0")) == ("int64", [])
    assert read(_row("array([1., 2.], dtype=float32)")) is None
