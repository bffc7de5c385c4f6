"""A Keras 3 model's structure is told unchanged without Keras's walk of ``weights``
(views/models.py ``_Watch``: the classic Inspector's refresh and a training loop's stops
ask at every look), and every change of structure is still seen: a layer added or removed
at any depth, a model built, a weight replaced by another of the same shape, a layer or a
variable frozen. Each test fails when the part of the watch that sees its change is left out."""

from __future__ import annotations

import sys
from typing import Any

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.views import models  # noqa: E402

pytestmark = pytest.mark.skipif(
    not keras.__version__.startswith("3"), reason="the watch reads Keras 3's own lists"
)


@pytest.fixture(autouse=True)
def fresh():
    views.build_table()
    models.forget_structures()
    yield
    models.forget_structures()


class Block(keras.layers.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.parts = [keras.layers.Dense(4), keras.layers.Dense(4)]

    def call(self, x):
        for part in self.parts:
            x = part(x)
        return x


class Deep(keras.Model):
    def __init__(self, depth: int) -> None:
        super().__init__()
        self.blocks = [keras.layers.Dense(4) for _ in range(depth)]
        self.block = Block()

    def call(self, x):
        for block in self.blocks:
            x = block(x)
        return self.block(x)


def deep(depth: int = 3) -> Any:
    model = Deep(depth)
    model(tf.ones((1, 4)))
    return model


def unlocked(layer: Any, change: Any) -> None:
    """``change()`` with the layer's tracker unlocked, as Keras's own ``enable_lora`` and
    ``quantize`` do: a built layer refuses new state otherwise."""
    layer._tracker.unlock()
    try:
        change()
    finally:
        layer._tracker.lock()


def built_dense() -> Any:
    layer = keras.layers.Dense(4)
    layer.build((None, 4))
    return layer


def weights_walks(call: Any, owner: type | None = None) -> int:
    """How many times Keras's own ``Layer.weights`` (or ``owner``'s) ran during ``call()``
    (a profile hook that only counts)."""
    code = (owner or keras.layers.Layer).weights.fget.__code__
    count = 0

    def hook(frame, event, arg):
        nonlocal count
        if event == "call" and frame.f_code is code:
            count += 1

    sys.setprofile(hook)
    try:
        call()
    finally:
        sys.setprofile(None)
    return count


def test_an_unchanged_model_is_told_so_without_walking_its_weights():
    model = deep()
    first = models.summary_key(model)
    assert models._structures[model].watch is not None
    again: list[Any] = []
    assert weights_walks(lambda: again.append(models.summary_key(model))) == 0
    assert again == [first]
    assert weights_walks(lambda: views.summary(model)) == 0
    # a class that defines ``weights`` itself is walked as before, and still right
    assert weights_walks(lambda: models.forget_structures() or models.summary_key(model)) > 0


def changed(model: Any, change: Any) -> tuple[str, str]:
    """(summary before, after) of ``change(model)``; the key must differ."""
    before_key, before = models.summary_key(model), views.summary(model)
    assert models.summary_key(model) == before_key  # nothing changed yet
    change(model)
    assert models.summary_key(model) != before_key
    after = views.summary(model)
    models.forget_structures()
    assert views.summary(model) == after  # what a fresh look says
    return before, after


def test_a_layer_appended_or_popped_at_the_top_is_seen():
    model = deep()
    before, after = changed(model, lambda m: unlocked(m, lambda: m.blocks.append(built_dense())))
    assert "4 layers" in before and "5 layers" in after
    before, after = changed(model, lambda m: m.blocks.pop())
    assert "5 layers" in before and "4 layers" in after


def test_a_layer_appended_deep_inside_is_seen():
    model = deep()
    block = model.block
    before, after = changed(
        model, lambda m: unlocked(block, lambda: block.parts.append(built_dense()))
    )
    assert before.startswith("100 params") and after.startswith("120 params")


def test_a_weight_replaced_by_one_of_the_same_shape_is_seen():
    model = deep()
    layer = model.block.parts[1]
    old = layer.bias

    def replace() -> None:
        del layer.bias  # Keras's tracker removes it from the layer's list
        layer.bias = layer.add_weight(shape=(4,), initializer="zeros", name="bias")

    before, after = changed(model, lambda m: unlocked(layer, replace))
    assert before == after  # the same counts: only the weight's identity tells
    weights = models._structure(model)[0].weights  # type: ignore[union-attr]
    assert any(w is layer.bias for w in weights) and all(w is not old for w in weights)


def test_a_layer_frozen_deep_inside_is_seen():
    model = deep()

    def freeze(m: Any) -> None:
        m.block.parts[0].trainable = False

    before, after = changed(model, freeze)
    assert "non-trainable" not in before and "(20 non-trainable)" in after


def test_lora_enabled_deep_inside_is_seen():
    model = deep()
    before, after = changed(model, lambda m: m.block.parts[0].enable_lora(2))
    assert before.startswith("100 params") and after.startswith("116 params")
    assert "(16 non-trainable)" in after  # the kernel LoRA froze


def test_a_variable_frozen_on_its_own_is_seen():
    model = deep()

    def freeze(m: Any) -> None:
        m.block.parts[1].kernel.trainable = False

    before, after = changed(model, freeze)
    assert "(16 non-trainable)" in after


def test_a_model_built_by_its_first_call_is_seen():
    class Flat(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.flatten = keras.layers.Flatten()

        def call(self, x):
            return self.flatten(x)

    model = Flat()
    before, after = changed(model, lambda m: m(tf.ones((1, 2, 2))))
    assert before.startswith("not built yet") and not after.startswith("not built yet")


def test_a_sequential_model_grown_popped_and_rebuilt_is_seen():
    model = keras.Sequential([keras.layers.Dense(3)])
    models.summary_key(model)
    assert models._structures[model].watch is not None
    before, after = changed(model, lambda m: m.build((None, 2)))
    assert before.startswith("not built yet") and after.startswith("9 params")
    before, after = changed(model, lambda m: m.add(keras.layers.Dense(2)))
    assert "17 params" in after
    before, after = changed(model, lambda m: m.pop())
    assert after.startswith("9 params")


def test_a_class_that_defines_weights_itself_is_walked():
    class Own(keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = keras.layers.Dense(2)

        @property
        def weights(self):  # the program's: its answer is the one to show
            return list(self.dense.weights)

        def call(self, x):
            return self.dense(x)

    model = Own()
    model(tf.ones((1, 3)))
    first = models.summary_key(model)
    assert models._structures[model].watch is None
    again: list[Any] = []
    assert weights_walks(lambda: again.append(models.summary_key(model)), Own) == 1
    assert again == [first]


def test_a_sublayer_built_later_is_seen():
    model = Deep(2)  # never called: its layers have no weights yet
    before, after = changed(model, lambda m: m.blocks[0].build((None, 4)))
    assert "20 params" in after and "20 params" not in before


def test_a_nested_sequential_grown_after_its_build_replaced_its_list_is_seen():
    class Holder(keras.layers.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.head = keras.Sequential([keras.layers.Flatten()])

    holder = Holder()
    head = holder.head
    first = models.summary_key(holder)
    assert models._structures[holder].watch is not None  # a TrackedList _layers is read too
    head.build((None, 2, 2))  # a new _layers, [InputLayer, Flatten]: no weights yet
    assert models.summary_key(holder) == first
    before, after = changed(holder, lambda h: head.add(keras.layers.Dense(3)))
    assert "15 params" in after and "15 params" not in before
