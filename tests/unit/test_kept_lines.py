"""What a training loop's Locals reads at every stop without a hand-off to the bounded-call
worker (issue 27): a Keras loss's line kept per object until one of its attributes is
assigned, and a learning rate that is only TF's and Keras's code read in place; a class of
the program's own still goes through the bounded call at each look."""

from __future__ import annotations

import gc

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.core import bounded  # noqa: E402
from tf_debug_repr.core.tf_types import library_class  # noqa: E402
from tf_debug_repr.views import metrics  # noqa: E402


@pytest.fixture(autouse=True)
def fresh():
    views.build_table()
    metrics.forget_lines()
    yield
    metrics.forget_lines()


@pytest.fixture
def bounded_calls(monkeypatch):
    """The ``what`` of every bounded call made."""
    seen: list[str] = []
    real = bounded.call

    def spy(fn, *args, **kwargs):
        seen.append(kwargs.get("what", ""))
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(bounded, "call", spy)
    return seen


def test_library_classes():
    assert library_class(keras.optimizers.Adam)
    assert library_class(keras.losses.SparseCategoricalCrossentropy)
    assert library_class(keras.optimizers.schedules.ExponentialDecay)

    class Mine(keras.optimizers.Adam):
        pass

    class Plain:
        pass

    assert not library_class(Mine) and not library_class(Plain)


def test_a_keras_loss_line_is_kept_until_an_attribute_is_assigned(bounded_calls):
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    first = views.summary(loss)
    assert "from_logits=True" in first and "reduction=sum_over_batch_size" in first
    assert len(bounded_calls) == 1  # get_config, once
    assert views.summary(loss) == first and len(bounded_calls) == 1  # kept: no call
    loss.from_logits = False  # what its config reads
    assert "from_logits=False" in views.summary(loss) and len(bounded_calls) == 2
    loss.reduction = "sum"
    assert "reduction=sum " in views.summary(loss) + " " and len(bounded_calls) == 3
    assert "reduction=sum " in views.summary(loss) + " " and len(bounded_calls) == 3


def test_a_dict_the_loss_holds_changed_in_place_reads_it_again(bounded_calls):
    loss = keras.losses.BinaryCrossentropy()
    views.summary(loss)
    assert len(bounded_calls) == 1
    loss._fn_kwargs["label_smoothing"] = 0.5  # the dict itself is the same object
    views.summary(loss)
    assert len(bounded_calls) == 2


def test_a_loss_of_the_programs_class_is_read_at_each_look(bounded_calls):
    setting = {"alpha": 1}

    class MyLoss(keras.losses.MeanSquaredError):
        def get_config(self):  # reads what no attribute of the loss holds
            return {**super().get_config(), "alpha": setting["alpha"]}

    loss = MyLoss()
    assert "alpha=1" in views.summary(loss)
    setting["alpha"] = 2
    assert "alpha=2" in views.summary(loss)
    assert len(bounded_calls) == 2


def test_a_config_that_failed_is_not_kept(monkeypatch):
    loss = keras.losses.MeanSquaredError()
    real = bounded.call
    tries: list[int] = []

    def hangs_once(fn, *args, **kwargs):
        tries.append(1)
        if len(tries) == 1:
            raise bounded.TimedOut("get_config did not return")
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(bounded, "call", hangs_once)
    views.summary(loss)
    assert "MeanSquaredError" in views.summary(loss) and len(tries) == 2  # asked again
    views.summary(loss)
    assert len(tries) == 2  # the whole line, kept


def test_a_kept_line_goes_with_its_loss():
    loss = keras.losses.MeanSquaredError()
    views.summary(loss)
    assert id(loss) in metrics._lines
    key = id(loss)
    del loss
    gc.collect()
    assert key not in metrics._lines


def test_a_keras_learning_rate_is_read_in_place_and_follows_assignments(bounded_calls):
    opt = keras.optimizers.Adam(1e-3)
    assert "lr=0.001 " in views.summary(opt)
    opt.learning_rate = 0.25
    assert "lr=0.25 " in views.summary(opt)
    assert bounded_calls == []


def test_a_keras_schedule_is_evaluated_in_place_at_the_current_iteration(bounded_calls):
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True)
    opt = keras.optimizers.SGD(schedule)
    assert "lr=0.1 (ExponentialDecay)" in views.summary(opt)
    opt.iterations.assign(10)  # what a step does
    assert "lr=0.05 (ExponentialDecay)" in views.summary(opt)
    assert bounded_calls == []


def test_the_programs_optimizer_or_schedule_class_is_bounded(bounded_calls):
    class MyAdam(keras.optimizers.Adam):
        pass

    class MyDecay(keras.optimizers.schedules.ExponentialDecay):
        pass

    assert "lr=0.001 " in views.summary(MyAdam(1e-3))
    assert "lr=0.1 (MyDecay)" in views.summary(keras.optimizers.SGD(MyDecay(0.1, 10, 0.5)))
    assert bounded_calls == ["the Variable schedule", "the MyDecay schedule"]


def test_a_keras_models_layers_are_read_in_place(bounded_calls):
    """``Sequential``'s ``layers`` is Keras's property over its own list: no hand-off; a
    model class of the program's that overrides it is read bounded (its code)."""
    from tf_debug_repr.views import models

    models.forget_structures()
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="first")])
    assert "1 layer" in views.summary(model)  # its structure, with its sublayers
    assert [layer.name for layer in models._structure(model)[0].subs] == ["first"]
    assert "reading .layers" not in bounded_calls

    class Mine(keras.Sequential):
        @property
        def layers(self):
            return list(super().layers)

    mine = Mine([keras.Input((4,)), keras.layers.Dense(2, name="second")])
    assert "1 layer" in views.summary(mine)
    assert [layer.name for layer in models._structure(mine)[0].subs] == ["second"]
    assert bounded_calls.count("reading .layers") == 1
    models.forget_structures()
