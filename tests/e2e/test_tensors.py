"""End to end: a real debugpy adapter, a real TensorFlow program stopped at a breakpoint,
and the DAP answers VS Code would get for eager tensors and variables."""

from __future__ import annotations

import ast
import math

import numpy as np
import pytest

from tf_debug_repr.hosts.demo.dap_client import DapError

from ..conftest import Stopped, start_stopped

pytestmark = pytest.mark.e2e

PYDEVD_GROUPS = {
    "special variables",
    "function variables",
    "class variables",
    "protected variables",
}


@pytest.fixture(scope="module")
def s():
    session = start_stopped("tensors.py")
    yield session
    session.client.close()


def names(children) -> list[str]:
    return [c.name for c in children if c.name not in PYDEVD_GROUPS]


def real(s: Stopped, expression: str):
    """A value computed by the program itself, as Python data."""
    return ast.literal_eval(s.evaluate(f"repr({expression})", "repl")["result"].strip("'\""))


def test_summary_lines_are_one_plain_readable_line(s):
    local = s.locals()
    assert (
        local["small"].value
        == "float32[2, 3] x∈[1, 6.5] μ=3.583 σ=1.835 n=6 CPU:0 [[1. , 2. , 3. ], [4. , 5. , 6.5]]"
    )
    assert local["scalar"].value == "3.25 float32 CPU:0"
    assert local["weights"].value.startswith("float32[3, 4] x∈[0, 1.375]")
    assert local["weights"].value.endswith(" Variable 'weights'")
    assert local["frozen"].value.startswith("int32[3] ")
    assert local["frozen"].value.endswith(" Variable 'frozen' non-trainable")
    assert local["empty"].value == "float32[0, 3] CPU:0 empty"
    for name in (
        "small",
        "scalar",
        "vector",
        "long_axis",
        "bad",
        "weights",
        "frozen",
        "big",
        "empty",
        "handle",
    ):
        value = local[name].value
        assert not value.startswith("<tf."), value
        assert "\x1b" not in value and "\n" not in value
        assert len(value) <= 300
        assert "<error" not in value, value


def test_children_are_elements_numpy_and_facts_in_order(s):
    small = s.locals()["small"]
    children = s.children(small)
    assert names(children) == ["[0]", "[1]", "numpy", "shape", "dtype", "device", "stats"]
    by_name = {c.name: c for c in children}
    assert by_name["numpy"].type == "ndarray"
    assert by_name["shape"].value == "(2, 3)"
    assert by_name["dtype"].value == "float32"
    assert by_name["device"].value.endswith("CPU:0")
    row = s.children(by_name["[1]"])
    leaves = [c for c in row if c.name.startswith("[")]
    assert [c.name for c in leaves] == ["[0]", "[1]", "[2]"]
    assert [c.value for c in leaves] == ["4.0", "5.0", "6.5"]
    assert all(c.reference == 0 and c.type == "float32" for c in leaves), (
        "leaf scalars must not be expandable"
    )


def test_leaf_values_equal_the_real_values(s):
    weights = s.locals()["weights"]
    expected = real(s, "weights.numpy().tolist()")
    rows = [c for c in s.children(weights) if c.name.startswith("[")]
    assert len(rows) == 3
    for i, row in enumerate(rows):
        leaves = [c for c in s.children(row) if c.name.startswith("[")]
        got = [float(np.float32(c.value)) for c in leaves]
        assert got == [float(np.float32(x)) for x in expected[i]]


def walk(s: Stopped, var, depth: int):
    for child in s.children(var):
        if child.name in PYDEVD_GROUPS:
            continue
        yield child
        if depth > 1 and child.reference and child.type != "ndarray":
            yield from walk(s, child, depth - 1)


@pytest.mark.parametrize("name", ["small", "weights", "bad", "scalar", "frozen"])
def test_every_child_expression_evaluates_to_that_child(s, name):
    checked = 0
    for child in walk(s, s.locals()[name], 3):
        if child.type == "Note" and child.name in ("sampled", "sampled extremes"):
            assert s.evaluate(child.evaluate_name)["result"] == repr(child.value)
            continue
        assert child.evaluate_name, f"{name}/{child.name} has no evaluateName"
        try:
            result = s.evaluate(child.evaluate_name, "watch")
        except DapError as exc:  # pragma: no cover - the assertion message is the point
            pytest.fail(f"{child.evaluate_name!r} does not evaluate: {exc}")
        shown = result["result"]
        if child.type in ("float32", "float", "int", "bool"):
            # A leaf: the expression gives a 0-d tensor (or number) of the same value.
            number = shown.removeprefix("‼ ").split()[0]
            assert (
                (number == child.value)
                or math.isclose(float(number), float(child.value), rel_tol=1e-6)
                or (math.isnan(float(number)) and math.isnan(float(child.value)))
            ), (child.evaluate_name, shown, child.value)
        elif child.type == "EagerTensor" or child.type == "AxisRange":
            assert shown == child.value or child.type == "AxisRange", (
                child.evaluate_name,
                shown,
                child.value,
            )
        checked += 1
    assert checked >= (4 if name == "scalar" else 5)  # a scalar: value, shape, dtype, device


def test_long_axes_are_grouped_into_ranges(s):
    local = s.locals()
    vector_children = names(s.children(local["vector"]))
    assert vector_children[:10] == [f"[{a}:{a + 100}]" for a in range(0, 1000, 100)]
    top = s.child_map(local["long_axis"])
    ranges = [n for n in top if n.startswith("[")]
    assert ranges == [f"[{a}:{a + 10000}]" for a in range(0, 250_000, 10_000)]
    middle = s.children(top["[10000:20000]"])
    assert [c.name for c in middle][:2] == ["[10000:10100]", "[10100:10200]"] and len(middle) == 100
    leaves = s.children(middle[1])
    assert len(leaves) == 100 and leaves[50].name == "[10150]"
    assert leaves[50].evaluate_name == "long_axis[10150]"
    assert leaves[50].value == "int32[1] [10150] CPU:0"  # one element: its value, no figures
    assert s.evaluate(leaves[50].evaluate_name)["result"] == leaves[50].value
    assert middle[1].evaluate_name == "long_axis[10100:10200]"


def test_nan_and_inf_stand_out_with_where_and_how_many(s):
    bad = s.locals()["bad"]
    assert bad.value.startswith("float32[5] ‼ NaN×1 +Inf×1 -Inf×1 x∈[1, 3]")
    children = s.child_map(bad)
    report = s.child_map(children["‼ bad values"])
    assert (report["NaN"].value, report["+Inf"].value, report["-Inf"].value) == ("1", "1", "1")
    assert children["‼ bad values"].value == "NaN×1 (20.0%) +Inf×1 (20.0%) -Inf×1 (20.0%)"
    assert (report["NaN share"].value, report["+Inf share"].value) == ("0.2", "0.2")
    for key in ("NaN", "+Inf", "-Inf", "NaN share"):
        assert s.evaluate(report[key].evaluate_name)["result"] == report[key].value
    first = children["‼ first NaN/Inf at [1]"]
    assert first.value == "nan" and first.evaluate_name == "bad[1]"
    assert "nan" in s.evaluate(first.evaluate_name)["result"].lower()


def test_every_dtype_is_presented_without_error(s):
    container = s.locals()["dtypes"]
    assert container.value.startswith(
        "{'float16': float16[2, 3], 'bfloat16': bfloat16[2, 3], 'float32': float32[2, 3]"
    )
    dtypes = [c for c in s.children(container) if c.name.startswith("'")]
    assert len(dtypes) == 21
    for tensor in dtypes:
        label = tensor.name.strip("'")
        assert "<error" not in tensor.value, tensor.value
        dtype = {
            "scalar_string": "string",
            "scalar_bool": "bool",
            "scalar_int": "int64",
            "empty_int": "int32",
            "complex_bad": "complex64",
        }.get(label, label)
        assert dtype in tensor.value, tensor.value
        for child in walk(s, tensor, 2):
            assert "<error" not in child.value, (label, child.name, child.value)
    values = {c.name.strip("'"): c.value for c in dtypes}
    assert values["bfloat16"].startswith("bfloat16[2, 3] x∈[0, 5] μ=2.5")
    assert values["bool"].startswith("bool[2, 3] True×3 (50%) n=6 CPU:0")
    assert values["string"].startswith("string[2, 3] n=6 CPU:0 [[b'a', b'bc', b'def']")
    assert values["scalar_string"] == "b'hello' string CPU:0"
    assert values["complex_bad"].startswith("complex64[2] ‼ NaN×1 |z|∈[2.236, 2.236]")


def test_handles_and_composite_tensors(s):
    local = s.locals()
    assert local["handle"].value == "resource[] CPU:0 (a handle: no values to show)"
    assert names(s.children(local["handle"])) == ["shape", "dtype", "device"]
    assert local["sparse"].value.startswith("SparseTensor float32[3, 4] nnz=2 (16.7% dense)")
    assert names(s.children(local["sparse"])) == ["values", "indices", "dense_shape"]
    assert names(s.children(local["ragged"]))[:3] == ["[0]", "[1]", "[2]"]
    assert local["slices"].value.startswith("IndexedSlices float32[10, 4] rows=2")


def test_huge_tensor_statistics_are_bounded_and_say_so(s):
    big = s.locals()["big"]
    assert "μ≈" in big.value and "σ≈" in big.value
    # Exact extremes, or sampled ones marked ~ where the Locals request's time budget ran out.
    assert "x∈[-4.786, 4.703]" in big.value or "x∈~[" in big.value, big.value
    assert "x∈[-4.786, 4.703]" in s.evaluate("big", "hover")["result"]  # a hover: exact
    stats = s.child_map(s.child_map(big)["stats"])
    # Expanding computed the exact figures: the line shows them from then on.
    assert "x∈[-4.786, 4.703]" in s.locals()["big"].value
    for figure in ("min", "max", "mean", "std"):
        recomputed = s.evaluate(stats[figure].evaluate_name)["result"]
        assert math.isclose(float(recomputed), float(stats[figure].value), rel_tol=1e-6), figure
    if "sampled" in stats:  # mean/std of a sample, and the row says which
        assert stats["sampled"].value.startswith(
            "mean/std from every 16th element (62,500 of 1,000,000)"
        )
        assert s.evaluate(stats["sampled"].evaluate_name)["result"] == repr(stats["sampled"].value)
    else:  # the shown value's one pass (Δ since last stop) measured it whole: exact
        for figure, numpy in (("mean", "mean"), ("std", "std")):
            exact = s.evaluate(f"float(big.numpy().astype('float64').{numpy}())", "repl")
            assert math.isclose(float(exact["result"]), float(stats[figure].value), rel_tol=1e-6)


def test_watch_hover_console_and_clipboard(s):
    local = s.locals()
    watched = s.evaluate("weights", "watch")
    assert watched["result"] == local["weights"].value
    hovered = s.evaluate("weights * 2", "hover")
    assert hovered["result"].startswith("float32[3, 4] x∈[0, 2.75]")
    assert names(s.client.variables(hovered["variablesReference"]))[:4] == [
        "[0]",
        "[1]",
        "[2]",
        "numpy",
    ]
    indexed = s.evaluate("[small, scalar][0]", "watch")
    assert indexed["result"] == local["small"].value
    console = s.evaluate("small", "repl")["result"]
    assert console.splitlines() == [local["small"].value, "[[1. , 2. , 3. ],", " [4. , 5. , 6.5]]"]
    copied = s.evaluate("small", "clipboard")["result"]
    assert copied == "[[1. , 2. , 3. ],\n [4. , 5. , 6.5]]"
    huge = s.evaluate("big", "clipboard")["result"]
    assert len(huge) < 200_000 and huge.endswith("… first 10 of 1,000 rows shown")


COLUMN = "tf.reshape(tf.range(64, dtype=tf.float32), [64, 1])"


def test_debug_console_prints_each_value_once_and_says_where_the_rest_is(s):
    # A scalar: its summary line is its value, printed once (it printed twice).
    assert s.evaluate("scalar", "repl")["result"] == "3.25 float32 CPU:0"
    # One element: its value, without a range, mean and std of that one value.
    one = s.evaluate("tf.constant([[1.5]])", "repl")["result"]
    assert one == "float32[1, 1] [[1.5]] CPU:0", one
    # A [64, 1] column: 64 lines would not fit, so the first and last rows that do (it
    # printed 38 rows, "...", the last row, and no word about the rest), then where the
    # rest is.
    lines = s.evaluate(COLUMN, "repl")["result"].splitlines()
    assert lines[0].startswith("float32[64, 1] x∈[0, 63]"), lines[0]
    assert len(lines) <= 42, len(lines)
    values = lines[1:-1]
    gap = values.index(" ...,")
    shown = [float(v.strip(" [],")) for v in values if v != " ...,"]
    head, tail = shown[:gap], shown[gap:]
    assert head == list(range(len(head))) and tail == list(range(64 - len(tail), 64))
    assert len(head) == len(tail) >= 15, (len(head), len(tail))
    assert lines[-1].startswith("(64 elements, summarised. The rest: Copy Value"), lines[-1]
    assert "evaluate .numpy() of it" in lines[-1]
    # What the line names gives every value.
    whole = s.evaluate(f"{COLUMN}.numpy()", "repl")["result"]
    assert "..." not in whole and whole.count("[") == 65, whole


def test_datasets_and_iterators_are_not_consumed(s):
    local = s.locals()
    assert local["dataset"].value == "BatchDataset of int64[None] cardinality=4"
    assert local["iterator"].value == "Iterator over int64[None] (not advanced by the debugger)"
    for name in ("dataset", "iterator"):
        list(walk(s, local[name], 2))
        for context in ("watch", "hover", "repl", "clipboard"):
            s.evaluate(name, context)
    s.client.resume(s.thread_id)
    s.client.wait_event("terminated")
    assert "first batch [0, 2, 4]" in "".join(s.client.output)
