"""The one table of kinds, and the pure parts of the new views, on real TF objects."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.core.tf_types import Kind, kind_of  # noqa: E402
from tf_debug_repr.views import distribute as distribute_views  # noqa: E402
from tf_debug_repr.views import optimizers as optimizer_views  # noqa: E402


def test_every_kind_has_exactly_one_view():
    table = views.build_table()
    assert set(table) == set(Kind)
    assert views.build_table() is table  # built once


def test_kinds_of_values_beside_tensors():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    ta = tf.TensorArray(tf.float32, size=1)
    expected = {
        Kind.SHAPE: tf.TensorShape([1, 2]),
        Kind.TYPE_SPEC: tf.TensorSpec([None], tf.int32),
        Kind.TENSOR_ARRAY: ta,
        Kind.SHOULD_USE: ta.write(0, 1.0),
        Kind.OPTIMIZER: keras.optimizers.Adam(),
        Kind.LR_SCHEDULE: keras.optimizers.schedules.CosineDecay(0.1, 100),
        Kind.METRIC: keras.metrics.AUC(),
        Kind.LOSS: keras.losses.Huber(),
        Kind.KERAS_LAYER: model,  # a Keras model is a layer, never a plain tf.Module
        Kind.TF_MODULE: tf.Module(),
        Kind.TAPE: tf.GradientTape(),
    }
    for kind, value in expected.items():
        assert kind_of(value) is kind, (kind, type(value))
        assert views.handles(type(value))
    assert kind_of(keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD())) is Kind.OPTIMIZER


def test_handles_never_imports_tensorflow():
    code = (
        "import sys; from tf_debug_repr import views;"
        "assert not views.handles(int) and not views.handles(dict);"
        "print('tensorflow' in sys.modules, 'keras' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_keras_values_are_left_alone_without_tensorflow():
    """Keras on another backend: its classes match by name, but their views would run TF
    ops, so nothing is claimed while TensorFlow is not imported (and nothing imports it)."""
    code = (
        "import sys; from tf_debug_repr import views\n"
        "Metric = type('Metric', (), {'__module__': 'keras.src.metrics.metric'})\n"
        "Mean = type('Mean', (Metric,), {})\n"
        "from tf_debug_repr.core.tf_types import kind_of_type\n"
        "print(kind_of_type(Mean).name, views.handles(Mean), 'tensorflow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["METRIC", "False", "False"]


def test_graph_tensor_array_is_described_without_adding_ops():
    seen = {}

    @tf.function(autograph=False)
    def traced():
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[3])
        graph = tf.compat.v1.get_default_graph()
        before = len(graph.get_operations())
        seen["summary"] = views.summary(ta)
        seen["children"] = [c.name for c in views.children(ta)]
        seen["added"] = len(graph.get_operations()) - before
        return ta.write(0, tf.ones([3])).stack()

    traced()
    assert seen["summary"] == (
        "TensorArray float32 element_shape=[3] (symbolic: in a graph, no values while tracing)"
    )
    assert seen["children"] == ["values", "element_shape", "dtype"]
    assert seen["added"] == 0


def test_slots_go_to_the_weight_with_the_longest_matching_name():
    short = keras.Variable(np.zeros(2, np.float32), name="w")
    longer = keras.Variable(np.zeros(3, np.float32), name="w_1")  # 'w_' is a prefix of 'w_1_'
    opt = keras.optimizers.SGD(0.1, momentum=0.9)
    opt.build([short, longer])
    slots = optimizer_views.slots_by_weight(opt)
    assert tuple(slots["w"]["momentum"].shape) == (2,)
    assert tuple(slots["w_1"]["momentum"].shape) == (3,)
    assert [list(g.slots) for g in slots.groups] == [["momentum"], ["momentum"]]


def test_unbuilt_optimizer_and_metric_do_not_raise():
    opt = keras.optimizers.Adam(1e-3, name="fresh")
    assert views.summary(opt) == "Adam 'fresh' lr=0.001 iterations=0 not built yet"
    rows = {c.name: c.resolve() for c in views.children(opt)}
    assert str(rows["slots"]).startswith("none yet")
    # a metric that makes its state at its first update: not built yet is a state, no error
    f1 = keras.metrics.F1Score()
    assert views.summary(f1) == "F1Score 'f1_score' not built yet (state: none)"
    result = {c.name: c for c in views.children(f1)}["result"]
    assert str(result.resolve()) == "not built yet" and result.expression is None
    # Keras's CompileMetrics before the first step (keras-io's knowledge distillation)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    compile_metrics = model._compile_metrics
    assert views.summary(compile_metrics) == (
        "CompileMetrics 'compile_metrics' not built yet (state: none)"
    )
    model.fit(np.zeros((4, 2)), np.zeros((4, 3)), verbose=0)
    assert views.summary(compile_metrics).startswith("CompileMetrics 'compile_metrics' result={")


def test_callable_learning_rate_is_not_called():
    calls = []

    def lr():
        calls.append(1)
        return 0.5

    opt = keras.optimizers.SGD(lr)
    assert "lr=<callable>" in views.summary(opt)
    assert calls == []


def test_replica_difference_rules():
    nan = float("nan")
    same = np.array([1.0, nan, np.inf])
    assert distribute_views._difference(same, same.copy()) == 0.0
    assert distribute_views._difference(np.array([1.0, nan]), np.array([1.0, 2.0])) == math.inf
    assert distribute_views._difference(np.array([1, 5]), np.array([1, 2])) == 3.0
    assert distribute_views._difference(np.array([b"a"]), np.array([b"b"])) == math.inf


def test_symbolic_items_in_lists_say_so():
    @tf.function
    def traced(x):
        # as the debugger calls it (not through AutoGraph, which converts what a trace calls)
        seen["text"] = tf.autograph.experimental.do_not_convert(views.container_summary)([x, x * 2])
        return x

    seen = {}
    traced(tf.ones([2, 3]))
    assert seen["text"] == "[symbolic float32[2, 3], symbolic float32[2, 3]]"
    assert views.container_summary([tf.ones([2])]) == "[float32[2]]"


def test_loss_and_schedule_without_config():
    class Halving(keras.optimizers.schedules.LearningRateSchedule):
        def __call__(self, step):
            return 0.1 / (1.0 + tf.cast(step, tf.float32))

    assert views.summary(Halving()) == "Halving()"
    assert [c.name for c in views.children(Halving())] == ["config"]
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.zeros((4, 2)), np.zeros((4, 1)), verbose=0)
    compile_loss = model._compile_loss  # get_config raises NotImplementedError
    assert views.summary(compile_loss) == "CompileLoss 'compile_loss' reduction=sum_over_batch_size"
    rows = {c.name: c for c in views.children(compile_loss)}
    # a line saying so (with no expression: evaluating get_config() would raise)
    assert str(rows["config"].resolve()) == "none: CompileLoss has no get_config()"
    assert rows["config"].expression is None


def _fake_class(qualified: str, *bases: type) -> type:
    """A class whose MRO carries ``qualified``, as a Keras we do not have installed names it."""
    module, _, name = qualified.rpartition(".")
    cls = type(name, bases or (object,), {})
    cls.__module__ = module
    cls.__qualname__ = name
    return cls


@pytest.mark.parametrize("root", ["keras.src", "tf_keras.src", "keras"])
def test_keras_2_classes_have_the_keras_3_kinds(root):
    """Keras 2 (TF 2.13-2.15's built-in Keras, tf_keras, Keras <= 2.12; issue 15): its
    metrics are layers and its layers tf.Modules, yet each reads as its own kind."""
    module = _fake_class("tensorflow.python.module.module.Module")
    layer = _fake_class(f"{root}.engine.base_layer.Layer", module)
    expected = {
        _fake_class(f"{root}.engine.training.Model", layer): Kind.KERAS_LAYER,
        _fake_class(f"{root}.layers.core.dense.Dense", layer): Kind.KERAS_LAYER,
        _fake_class(
            f"{root}.metrics.base_metric.Mean",
            _fake_class(f"{root}.metrics.base_metric.Metric", layer),
        ): Kind.METRIC,
        _fake_class(
            f"{root}.losses.MeanSquaredError", _fake_class(f"{root}.losses.Loss")
        ): Kind.LOSS,
        _fake_class(
            f"{root}.optimizers.adam.Adam",
            _fake_class(f"{root}.optimizers.optimizer._BaseOptimizer", module),
        ): Kind.OPTIMIZER,
        _fake_class(
            f"{root}.optimizers.legacy.adam.Adam",
            _fake_class(f"{root}.optimizers.legacy.optimizer_v2.OptimizerV2"),
        ): Kind.OPTIMIZER,
        _fake_class(
            f"{root}.optimizers.schedules.learning_rate_schedule.LearningRateSchedule"
        ): Kind.LR_SCHEDULE,
    }
    assert {f"{c.__module__}.{c.__name__}": kind_of(c()) for c in expected} == {
        f"{c.__module__}.{c.__name__}": kind for c, kind in expected.items()
    }


def test_keras_3_0_to_3_6_variables_are_keras_variables():
    """Keras named its variable class ``KerasVariable`` until 3.7 (issue 15)."""
    base = _fake_class("keras.src.backend.common.variables.KerasVariable")
    tf_backend = _fake_class("keras.src.backend.tensorflow.core.Variable", base)
    assert kind_of(tf_backend()) is Kind.KERAS_VARIABLE
