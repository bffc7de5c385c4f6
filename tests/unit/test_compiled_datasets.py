"""A tf.data function made to run as Python (``eager.datasets``), on real TensorFlow without
a debugger: the same element spec and the same elements in the same order as the compiled
dataset, the user's function called once per element with eager values, nested and dict
structures, and parallel transformations made sequential give the same elements."""

from __future__ import annotations

import threading

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from tensorflow.python.data.ops import map_op, structured_function  # noqa: E402

from tf_debug_repr.eager import breakpoints, datasets  # noqa: E402


@pytest.fixture(autouse=True)
def installed() -> None:
    """tf.data's function wrapper wrapped, as a session does (without a client it decides
    nothing: every dataset is made as ever)."""
    assert datasets.install()


def _as_python_dataset(source, func, make=map_op._MapDataset, **kwargs):
    """``make(source, func)`` with its function run as Python: what a breakpoint does."""
    wrapper = structured_function.StructuredFunctionWrapper(func, "Dataset.map()", dataset=source)
    datasets.as_python(wrapper, "Dataset.map(func)")
    datasets._local.reuse = wrapper
    try:
        return make(source, func, **kwargs)
    finally:
        datasets._local.reuse = None


def _elements(dataset) -> list:
    return [tf.nest.map_structure(lambda t: t.numpy().tolist(), e) for e in dataset]


def test_a_map_function_run_as_python_gives_the_compiled_elements_in_order():
    source = tf.data.Dataset.from_tensor_slices(
        {"x": np.arange(10, dtype="float32").reshape(5, 2), "y": np.arange(5)}
    )
    seen = []

    def normalize(element):
        seen.append(element["y"])
        return (element["x"] - 4.0) / 2.0, {"label": element["y"] * 3, "weight": 1.0}

    compiled = source.map(normalize)
    assert [type(t).__name__ for t in seen] == ["SymbolicTensor"]  # traced once
    expected = _elements(compiled)
    seen.clear()
    eager = _as_python_dataset(source, normalize)
    assert [type(t).__name__ for t in seen] == ["SymbolicTensor"]  # its trace: no other
    seen.clear()
    assert eager.element_spec == compiled.element_spec
    assert _elements(eager) == expected
    assert [type(t).__name__ for t in seen] == ["EagerTensor"] * 5
    assert [int(t) for t in seen] == list(range(5))  # each element, in order


def test_a_map_function_run_as_python_runs_on_tf_data_threads_named_for_it():
    names = []

    def record(x):
        names.append(threading.current_thread().name)
        return x + 1

    source = tf.data.Dataset.range(3)
    eager = _as_python_dataset(source, record)
    names.clear()
    assert _elements(eager) == [1, 2, 3]
    assert names and set(names) == {"tf.data Dataset.map(func)"}, names


def _decided(transformation, *args, **kwargs):
    """``transformation(*args)`` as a breakpoint in its function decides it: the function
    run as Python, a parallel transformation made sequential where its order allows."""
    original_init = structured_function.StructuredFunctionWrapper.__init__

    def deciding_init(self, func, *a, **k):
        original_init(self, func, *a, **k)  # the plugin's: it reuses a decided one
        if getattr(self, "_tf_debug_repr_as_python", False):
            return
        datasets.as_python(self)
        datasets._local.decided = self

    structured_function.StructuredFunctionWrapper.__init__ = deciding_init
    try:
        return datasets._sequential_when_as_python(transformation)(*args, **kwargs)
    finally:
        structured_function.StructuredFunctionWrapper.__init__ = original_init
        assert datasets._local.reuse is None


def test_a_parallel_map_made_sequential_gives_the_parallel_maps_elements():
    source = tf.data.Dataset.range(20)
    calls = []

    def square(x):
        calls.append(x)
        return x * x

    expected = _elements(source.map(square, num_parallel_calls=4, deterministic=True).batch(3))
    sequential = _decided(map_op._map_v2, source, square, num_parallel_calls=4, deterministic=True)
    assert type(sequential).__name__ == "_MapDataset", type(sequential)
    calls.clear()
    assert _elements(sequential.batch(3)) == expected
    assert [int(t) for t in calls] == list(range(20))  # one call per element, in order


@pytest.mark.parametrize(
    ("cycle_length", "made"),
    [(2, "_InterleaveDataset"), (None, "_InterleaveDataset")],
)
def test_an_interleave_made_sequential_keeps_its_order(cycle_length, made):
    # With the default cycle length the sequential one is given the parallel one's.
    from tensorflow.python.data.ops import interleave_op

    source = tf.data.Dataset.range(4)

    def read(x):
        return tf.data.Dataset.from_tensors(x).repeat(3)

    for calls in (1, 2, tf.data.AUTOTUNE):  # the parallel one's cycle follows num_parallel_calls
        if cycle_length is not None and calls == tf.data.AUTOTUNE:
            continue
        expected = _elements(
            source.interleave(read, cycle_length=cycle_length, num_parallel_calls=calls)
        )
        decided = _decided(
            interleave_op._interleave,
            source,
            read,
            cycle_length=cycle_length,
            num_parallel_calls=calls,
        )
        assert type(decided).__name__ == made, (calls, type(decided))
        assert _elements(decided) == expected, calls


def test_a_filter_predicate_run_as_python_keeps_the_same_elements():
    source = tf.data.Dataset.range(10)

    def even(x):
        return x % 2 == 0

    from tensorflow.python.data.ops import filter_op

    wrapper = structured_function.StructuredFunctionWrapper(
        even, "Dataset.filter()", dataset=source
    )
    datasets.as_python(wrapper)
    datasets._local.reuse = wrapper
    try:
        eager = filter_op._FilterDataset(source, even)
    finally:
        datasets._local.reuse = None
    assert _elements(eager) == _elements(source.filter(even)) == [0, 2, 4, 6, 8]


def test_a_plan_knows_its_function_and_where_the_dataset_was_made():
    def parse(x):
        return x  # PARSE

    plan = datasets._Plan(parse, "Dataset.map()", eager=True)
    assert plan.name == "Dataset.map(parse)"
    assert plan.site.startswith("test_compiled_datasets.py:")
    path = breakpoints.debugger_client.canonical_path(__file__)
    line = parse.__code__.co_firstlineno + 1
    assert plan.regions.breakpoint_in({path: {line: object()}}) == (path, line)
    assert plan.regions.breakpoint_in({path: {line + 5: object()}}) is None


def test_a_cycle_length_not_known_here_is_said():
    cpus = datasets._max_parallelism()
    assert datasets._parallel_cycle_length(None, cpus + 1)[0] is None  # fails as plain
    assert "more than the" in datasets._parallel_cycle_length(None, cpus + 1)[1]
    with tf.Graph().as_default():
        symbolic = tf.constant(2, tf.int64)
        cycle, why = datasets._parallel_cycle_length(None, symbolic)
        assert cycle is None and "num_parallel_calls is a tensor" in why
        cycle, why = datasets._parallel_cycle_length(symbolic, 2)
        assert cycle is None and "cycle_length is a tensor" in why
