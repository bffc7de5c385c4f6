"""Calls into the program made to show a value are bounded in time (issue 16 item 11): a
metric's ``result()``, a schedule's ``__call__``, an overridden ``layers`` property, a
``__repr__`` of the program's class, any property read among a model's attributes. Past
the bound the row says so and the look goes on; the same hung call is not started again;
every view answers within a few bounds whatever hangs."""

from __future__ import annotations

import re
import threading
import time

import keras
import pytest
import tensorflow as tf

from tf_debug_repr import views
from tf_debug_repr.core import bounded

RELEASE = threading.Event()  # what every hung call here waits for; set after each test
HANG_SECONDS = 30  # a hung call ends by itself at the latest after this


def hang(*_args):
    RELEASE.wait(HANG_SECONDS)
    return 0.0


@pytest.fixture(autouse=True)
def released():
    RELEASE.clear()
    yield
    RELEASE.set()
    deadline = time.monotonic() + 10
    while bounded._running and time.monotonic() < deadline:  # the workers free again
        time.sleep(0.01)


def timed(fn, *args):
    start = time.perf_counter()
    found = fn(*args)
    return found, time.perf_counter() - start


def test_a_call_returns_raises_or_times_out():
    assert bounded.call(len, [1, 2]) == 2
    with pytest.raises(ZeroDivisionError):
        bounded.call(lambda: 1 / 0)
    start = time.perf_counter()
    with pytest.raises(bounded.TimedOut, match="did not return within 0.2 s"):
        bounded.call(hang, seconds=0.2, what="hang")
    assert time.perf_counter() - start < 1.0


def test_the_same_hung_call_is_not_started_again_and_workers_run_out():
    obj = object()
    with pytest.raises(bounded.TimedOut):
        bounded.call(hang, obj, seconds=0.1, what="a")
    start = time.perf_counter()
    with pytest.raises(bounded.TimedOut, match="not called again"):
        bounded.call(hang, obj, seconds=0.1, what="a")
    assert time.perf_counter() - start < 0.05  # refused at once
    # while one hangs, later calls get the shorter bound
    start = time.perf_counter()
    with pytest.raises(bounded.TimedOut, match=f"within {bounded.HUNG_SECONDS:g} s"):
        bounded.call(hang, object(), what="b")
    assert time.perf_counter() - start < bounded.SECONDS
    for n in range(bounded.WORKERS - 2):
        with pytest.raises(bounded.TimedOut, match="did not return"):
            bounded.call(hang, object(), seconds=0.1, what=f"c{n}")
    with pytest.raises(bounded.TimedOut, match=f"not called, {bounded.WORKERS} earlier calls"):
        bounded.call(len, [], what="d")
    RELEASE.set()
    deadline = time.monotonic() + 5
    while bounded._running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert bounded.call(len, [1]) == 1  # the workers are used again once they return


class HangingMean(keras.metrics.Mean):
    def result(self):
        hang()
        return super().result()


def test_a_metric_whose_result_hangs():
    metric = HangingMean(name="slow")
    text, seconds = timed(views.summary, metric)
    assert seconds < 2 * bounded.SECONDS, seconds
    assert text.startswith("HangingMean 'slow' result <timed out: HangingMean.result() did ")
    assert "(state: total, count)" in text
    rows = {c.name: c for c in views.children(metric)}
    with pytest.raises(bounded.TimedOut, match="not called again"):  # still running
        rows["result"].resolve()


class Schedule(keras.optimizers.schedules.LearningRateSchedule):
    def __call__(self, step):
        return hang()

    def get_config(self):
        return {"rate": 0.1}


def test_an_optimizer_whose_schedule_hangs():
    opt = keras.optimizers.SGD(learning_rate=Schedule())
    text, seconds = timed(views.summary, opt)
    assert seconds < 2 * bounded.SECONDS, seconds
    assert re.match(r"SGD 'sgd(_\d+)?' lr=<timed out> \(Schedule\) iterations=0", text), text
    rows, seconds = timed(views.children, opt)
    assert seconds < 0.5 and "learning_rate" in {r.name for r in rows}


class SlowLayers(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(2)

    @property
    def layers(self):
        hang()
        return [self.dense]

    @property
    def stuck(self):
        return hang()

    def call(self, x):
        return self.dense(x)


def test_a_model_whose_properties_hang():
    model = SlowLayers()
    model(tf.zeros([1, 3]))
    text, seconds = timed(views.summary, model)
    assert seconds < 2 * bounded.SECONDS, seconds
    assert "layers <timed out: reading .layers did not return within 1 s" in text, text
    rows, seconds = timed(views.children, model)
    # .layers is running still (refused at once); .stuck waits the bound once
    assert seconds < 3 * bounded.SECONDS, seconds
    row = {r.name: r for r in rows}
    assert str(row["layers"].resolve()).startswith("<timed out: reading .layers: not called ")
    assert str(row["stuck"].resolve()).startswith("<timed out: reading .stuck did not return")
    assert row["dense"].resolve() is model.dense  # Keras's own list, by the attribute holding it
    again, seconds = timed(views.children, model)
    assert seconds < 0.5 * bounded.SECONDS, seconds  # both still hung: refused at once


class Loud:
    def __repr__(self):
        return str(hang())


def test_a_container_holding_a_class_whose_repr_hangs():
    values = [tf.zeros([2]), Loud()]
    text, seconds = timed(views.container_summary, values)
    assert seconds < 2 * bounded.SECONDS, seconds
    assert text == "[float32[2] =0 n=2 CPU:0 [0, 0], Loud (repr timed out)]" or text.endswith(
        ", Loud (repr timed out)]"
    ), text


def test_a_fast_property_reads_as_before():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="d")])
    rows = {r.name: r for r in views.children(model)}
    assert rows["built"].resolve() is True
    assert not bounded._running


def test_a_worker_never_replaces_the_trace_function(monkeypatch):
    """pydevd warns (``PYDEV DEBUGGER WARNING``) against any ``sys.settrace`` call from
    outside ``threading`` while it debugs, and refuses one under ``sys.monitoring``: the
    worker leaves the trace function alone (pydevd turns itself off there, by the mark)."""
    import sys

    calls: list = []
    monkeypatch.setattr(sys, "settrace", lambda fn: calls.append(fn))
    worker = bounded._Worker()
    assert worker.thread.pydev_do_not_trace and worker.thread.is_pydev_daemon_thread
    done = threading.Event()
    worker.submit(done.set)
    assert done.wait(10)
    assert calls == []


def test_a_warmed_worker_takes_the_first_call_without_a_new_thread():
    """``warm`` (run once TF is imported and a client looks) starts one idle worker, so the
    first call at a stop starts no thread; it starts none when workers exist."""
    bounded.warm()
    threads = {t.ident for t in threading.enumerate()}
    assert bounded.call(lambda: threading.current_thread().name) == "tf_debug_repr bounded calls"
    count = len(bounded._workers)
    bounded.warm()
    assert len(bounded._workers) == count
    assert {t.ident for t in threading.enumerate()} <= threads


def test_a_worker_holds_nothing_of_a_call_once_it_returned():
    """The worker waits for its next call holding nothing of the last one: a value shown
    once through a bounded call (a loss's ``get_config``) is not kept alive by it."""
    import gc
    import weakref

    class Shown:
        def text(self) -> str:
            return "shown"

    shown = Shown()
    gone = weakref.ref(shown)
    assert bounded.call(shown.text, what="text") == "shown"
    del shown
    deadline = time.monotonic() + 5
    while gone() is not None and time.monotonic() < deadline:  # the worker's finally
        gc.collect()
        time.sleep(0.01)
    assert gone() is None


def _submits(monkeypatch) -> list:
    """The jobs handed to workers (each a thread hand-off), counted."""
    handed: list = []
    submit = bounded._Worker.submit

    def counted(self, job):
        handed.append(job)
        return submit(self, job)

    monkeypatch.setattr(bounded._Worker, "submit", counted)
    return handed


def test_a_batch_of_calls_is_one_hand_off_with_each_outcome_its_own(monkeypatch):
    handed = _submits(monkeypatch)
    found = bounded.call_each(
        [(len, ([1, 2],), "a"), (lambda: 1 / 0, (), "b"), (str.upper, ("x",), "c")]
    )
    assert len(handed) == 1
    assert found[0] == (True, 2) and found[2] == (True, "X")
    assert found[1][0] is False and isinstance(found[1][1], ZeroDivisionError)
    assert not bounded._running


def test_a_hanging_call_of_a_batch_costs_its_own_item_and_the_rest_go_on(monkeypatch):
    handed = _submits(monkeypatch)
    obj = object()
    calls = [(len, ([1],), "first"), (hang, (obj,), "stuck"), (len, ([1, 2],), "after")]
    found, seconds = timed(bounded.call_each, calls, 0.3)
    assert found[0] == (True, 1) and found[2] == (True, 2)
    ok, timed_out = found[1]
    assert not ok and isinstance(timed_out, bounded.TimedOut)
    assert str(timed_out) == "stuck did not return within 0.3 s (it still runs)"
    assert 0.3 <= seconds < 0.3 + bounded.HUNG_SECONDS, seconds
    assert len(handed) == 2  # the calls after the hung one: from another worker
    # looked at again: the hung call is not started again, the others are
    again, seconds = timed(bounded.call_each, calls, 0.3)
    assert seconds < 0.2, seconds
    assert again[0] == (True, 1) and again[2] == (True, 2)
    assert "not called again" in str(again[1][1])


def test_a_slow_call_of_a_batch_is_bounded_from_its_own_start():
    """Each call of a batch has the bound from when the one before it returned: calls
    that each return within it all give their values, whatever they take together."""
    found, seconds = timed(
        bounded.call_each, [(time.sleep, (0.15,), f"sleep {i}") for i in range(4)], 0.25
    )
    assert found == [(True, None)] * 4
    assert seconds >= 0.6, seconds


def test_a_model_whose_properties_hang_reads_the_rest_in_one_hand_off(monkeypatch):
    model = SlowLayers()
    model(tf.zeros([1, 3]))
    handed = _submits(monkeypatch)
    from tf_debug_repr.views import attributes

    found, seconds = timed(attributes.read_attributes, model)
    by_name = {a.name: a.value for a in found}
    # ``layers`` and ``stuck`` hang (the second at the shorter bound once the first does);
    # every other property of the model is read, on the worker that took over
    assert str(by_name["stuck"]).startswith("<timed out: reading .stuck did not return")
    assert str(by_name["layers"]).startswith("<timed out: reading .layers did not return")
    assert by_name["built"] is True and by_name["trainable"] is True
    assert seconds < bounded.SECONDS + 2 * bounded.HUNG_SECONDS, seconds
    assert len(handed) == 3, len(handed)  # one batch, taken over after each hung call
