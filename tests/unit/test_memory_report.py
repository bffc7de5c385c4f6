"""memory(): sizes from shapes and dtypes, the caller's frame, dedup of shared variables."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

import tf_debug_repr  # noqa: E402
from tf_debug_repr.forensics import memory as memory_report  # noqa: E402


def test_bytes_text():
    assert memory_report.bytes_text(512) == "512 B"
    assert memory_report.bytes_text(2048) == "2 KiB"
    assert memory_report.bytes_text(1_000_000) == "977 KiB"
    assert memory_report.bytes_text(3 * 1024**3) == "3 GiB"


def test_called_by_the_program_it_reads_the_callers_frame_largest_first():
    def frame_with_tensors():
        wide = tf.zeros([300, 10], tf.float64)  # 24,000 B
        narrow = tf.zeros([300, 10], tf.int8)  # 3,000 B
        weight = tf.Variable(tf.zeros([50, 50]))  # 10,000 B
        alias = weight
        nested = {"a": [tf.zeros([7])]}
        del narrow, alias, nested
        return tf_debug_repr.memory(), wide, weight

    report, *_ = frame_with_tensors()
    assert report.where.startswith("frame_with_tensors() line")
    sizes = [(f.expression, f.nbytes) for f in report.found]
    # ``del``ed names are gone; one variable under two names is counted once.
    assert sizes == [("wide", 24_000), ("weight", 10_000)], sizes
    assert report.total == 34_000


def test_containers_two_levels_deep_and_no_deeper():
    def frame():
        deep = {"a": [tf.zeros([3])], "b": [[tf.zeros([4])]]}
        return tf_debug_repr.memory(), deep

    report, _ = frame()
    assert [f.expression for f in report.found] == ["deep['a'][0]"]


def test_keras_variable_counts_its_tf_variable_once():
    keras = pytest.importorskip("keras")

    def frame():
        layer = keras.layers.Dense(4)
        layer.build((3,))
        kernel = layer.kernel
        return tf_debug_repr.memory(), layer, kernel

    report, *_ = frame()
    assert [(f.expression, f.nbytes) for f in report.found] == [
        ("kernel", 48),
        ("layer.weights[1]", 16),
    ]


def test_a_mirrored_variable_counts_each_replica_on_its_device(two_cpus):
    from .conftest import answer

    found = answer(two_cpus, "memory_of_a_mirrored_variable")
    assert found == [["w.values[0]", 4000, "CPU:0"], ["w.values[1]", 4000, "CPU:1"]]


def test_a_module_holding_a_keras_model_counts_its_weights():
    keras = pytest.importorskip("keras")

    class Holder(tf.Module):
        def __init__(self):
            super().__init__()
            self.net = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4)])
            self.scale = tf.Variable(1.0)

    def frame():
        holder = Holder()
        return tf_debug_repr.memory(), holder

    report, holder = frame()
    found = {f.expression: f.nbytes for f in report.found}
    assert sum(found.values()) == (3 * 4 + 4 + 1) * 4, found
    for expression in found:  # each expression names the very variable counted
        value = eval(expression, {"holder": holder})
        assert value.shape.num_elements() * 4 == found[expression], expression


def test_memory_in_watch_before_any_tensor_leaves_tf_config_working(two_cpus):
    # A fresh process: TF imported, its runtime not started; memory() is evaluated (as
    # the Watch pane would), then the program configures its devices. That raised
    # ("cannot be modified after being initialized") when memory() listed logical devices.
    from .conftest import answer

    found = answer(two_cpus, "memory_before_the_runtime_starts")
    assert found == {"host_in_report": True, "logical_cpus": 2}
