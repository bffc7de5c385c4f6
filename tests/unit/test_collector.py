"""The cyclic collector during a stop (``core.collector``): no full collection runs by
itself from a stop's first request until the debugger drops the stop, the young generations
are collected as ever, and the program's own settings are kept. The stops here are plain
objects standing in for pydevd's frames trackers (what ``debugger.suspension()`` returns);
``tests/e2e/test_stop_reads.py`` checks the same in a real debugpy session."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest

from tf_debug_repr.core import collector

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 14), reason="Python 3.14's incremental collector is left alone"
)


class Stop:
    """A suspension: any object that takes a weak reference."""


@pytest.fixture(autouse=True)
def collector_as_python_sets_it():
    program = gc.get_threshold()
    assert gc.isenabled() and not collector.paused() and program[2] < collector.NO_FULL
    yield program
    collector._paused_for = None
    gc.set_threshold(*program)
    gc.enable()


@pytest.fixture
def collections():
    """The generations of the collections that ran, in order."""
    ran: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "stop":
            ran.append(info["generation"])

    gc.callbacks.append(note)
    yield ran
    gc.callbacks.remove(note)


@pytest.fixture
def small_heap():
    """The process's objects set aside (``gc.freeze``) for the test, as in a small program:
    Python runs a full collection by itself only once the objects promoted since the last
    one reach a quarter of those it kept, which a worker that imported TensorFlow, or ran
    other tests before, did not reach with ``churn`` (the clean-clone run failed so).
    Garbage that other tests left is collected first."""
    gc.collect()
    gc.freeze()
    gc.collect()  # the oldest generation now holds only what the test makes
    yield
    gc.unfreeze()


class Node:
    """An object of a cycle that a weak reference can watch."""


def churn() -> None:
    """Allocations past every threshold, kept long enough to reach the old generation."""
    for _ in range(30):
        kept = [[] for _ in range(3_000)]
        del kept


def test_no_full_collection_from_the_first_request_until_the_stop_is_dropped(
    small_heap, collector_as_python_sets_it, collections
):
    stop = Stop()
    collector.hold_during(stop)
    assert collector.paused() and gc.isenabled()
    collector.hold_during(stop)  # the stop's next requests: nothing more
    churn()
    assert collections and 2 not in collections, collections  # young ones only
    del stop  # pydevd drops its tracker when the program resumes
    assert gc.get_threshold() == collector_as_python_sets_it and not collector.paused()
    collections.clear()
    churn()
    churn()
    assert 2 in collections, collections  # full ones again after the resume


def test_cyclic_garbage_of_the_stop_goes_and_every_explicit_collection_works(
    small_heap, collections
):
    stop = Stop()
    collector.hold_during(stop)
    cycle: list = []
    cycle.append(cycle)
    assert any(o is cycle for o in gc.get_referrers(cycle))  # the console's tools
    node = Node()
    node.me = node  # type: ignore[attr-defined]
    gone = weakref.ref(node)
    del cycle, node
    churn()  # a young collection takes the cycle, as under stock debugpy
    assert gone() is None
    assert 2 not in collections, collections
    old: list = []
    old.append(old)
    del old
    assert gc.collect() >= 1  # a collection the user asks for runs, over everything
    assert collections[-1] == 2
    del stop


def test_a_second_threads_stop_holds_it_again_after_the_first_resumes():
    first, second = Stop(), Stop()
    collector.hold_during(first)
    collector.hold_during(second)  # both threads suspended: held once
    del first
    assert not collector.paused() and gc.get_threshold()[2] < collector.NO_FULL
    collector.hold_during(second)
    assert collector.paused() and gc.get_threshold()[2] == collector.NO_FULL
    del second
    assert gc.get_threshold()[2] < collector.NO_FULL


def test_a_program_that_switched_it_off_or_set_its_thresholds_keeps_them():
    gc.disable()
    stop = Stop()
    collector.hold_during(stop)
    assert not collector.paused()
    del stop
    assert not gc.isenabled()  # not turned on by a resume
    gc.enable()
    stop = Stop()
    collector.hold_during(stop)
    gc.set_threshold(500, 5, 5)  # typed in the Debug Console during the stop
    del stop
    assert gc.get_threshold() == (500, 5, 5)


def test_the_switch_keeps_full_collections_during_stops(monkeypatch):
    monkeypatch.setenv(collector.KEEP_ENV, "1")
    stop = Stop()
    collector.hold_during(stop)
    assert not collector.paused() and gc.get_threshold()[2] < collector.NO_FULL


def test_nothing_without_a_stop_or_for_a_stop_without_weak_references(
    collector_as_python_sets_it,
):
    collector.hold_during(None)  # not suspended: a notebook's inspector, a direct call
    collector.hold_during(object())  # no weak reference: no sure sign of the stop's end
    assert gc.get_threshold() == collector_as_python_sets_it and not collector.paused()
