"""Keras layers and models, and ``tf.Module``s, as users hold them (issue 15): modules
without ``super().__init__()`` or holding Keras 3 models read right. Each child's
expression is evaluated as pydevd would."""

from __future__ import annotations

import keras
import tensorflow as tf

from tf_debug_repr import views


def resolve_expression(expression, parent: str) -> str:
    return expression(parent) if callable(expression) else parent + expression


def rows_of(obj) -> dict:
    rows = views.children(obj)
    names = [row.name for row in rows]
    assert len(names) == len(set(names)), "a name twice (PyCharm looks rows up by name)"
    return {row.name: row for row in rows}


class DeepDream(tf.Module):
    """TF's DeepDream tutorial: a module whose __init__ never calls super().__init__()."""

    def __init__(self, model) -> None:
        self.model = model


def small_model() -> keras.Model:
    return keras.Sequential([keras.Input((2,)), keras.layers.Dense(3)])


def test_module_without_super_init_reads_without_error():
    dream = DeepDream(small_model())
    summary = views.summary(dream)
    assert summary == "DeepDream, 2 variables, 9 params"
    rows = rows_of(dream)
    assert rows["model"].resolve() is dream.model


def test_module_holding_a_keras_model_counts_its_parameters():
    class Holder(tf.Module):
        def __init__(self) -> None:
            super().__init__(name="holder")
            self.model = small_model()
            self.scale = tf.Variable(2.0)

    holder = Holder()
    assert views.summary(holder) == "Holder 'holder', 3 variables, 10 params"
    rows = rows_of(holder)
    frame = {"m": holder}
    assert eval(resolve_expression(rows["params"].expression, "m"), frame) == 10
    every = eval(resolve_expression(rows["all variables"].expression, "m"), frame)
    assert len(every) == 3 and rows["all variables"].resolve().summary().startswith("3 ")
