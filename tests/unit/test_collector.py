"""The cyclic collector during a stop (``core.collector``): its automatic runs are off from
a stop's first request until the debugger drops the stop, and left alone where the program
switched it off itself. The stops here are plain objects standing in for pydevd's frames
trackers (what ``debugger.suspension()`` returns); ``tests/e2e/test_stop_reads.py`` checks
the same in a real debugpy session."""

from __future__ import annotations

import gc

import pytest

from tf_debug_repr.core import collector


class Stop:
    """A suspension: any object that takes a weak reference."""


@pytest.fixture(autouse=True)
def collector_on():
    assert gc.isenabled() and not collector.paused()
    yield
    collector._paused_for = None
    gc.enable()


def test_off_from_the_first_request_until_the_stop_is_dropped():
    stop = Stop()
    collector.hold_during(stop)
    assert collector.paused() and not gc.isenabled()
    collector.hold_during(stop)  # the stop's next requests: nothing more
    assert collector.paused()
    del stop  # pydevd drops its tracker when the program resumes
    assert gc.isenabled() and not collector.paused()


def test_no_automatic_collection_during_the_stop_and_every_explicit_one_works():
    collected: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "stop":
            collected.append(info["generation"])

    gc.callbacks.append(note)
    try:
        stop = Stop()
        collector.hold_during(stop)
        junk = [[] for _ in range(50_000)]  # allocations past every threshold
        del junk
        assert collected == []
        cycle: list = []
        cycle.append(cycle)
        assert any(o is cycle for o in gc.get_referrers(cycle))  # the console's tools
        del cycle
        assert gc.collect() >= 1  # a collection the user asks for runs, over everything
        asked = len(collected)
        del stop
        junk = [[] for _ in range(50_000)]
        del junk
        assert len(collected) > asked, collected  # automatic ones again after the resume
    finally:
        gc.callbacks.remove(note)


def test_a_second_threads_stop_turns_it_off_again_after_the_first_resumes():
    first, second = Stop(), Stop()
    collector.hold_during(first)
    collector.hold_during(second)  # both threads suspended: off once
    del first
    assert gc.isenabled()
    collector.hold_during(second)
    assert not gc.isenabled()
    del second
    assert gc.isenabled()


def test_a_program_that_switched_it_off_keeps_it_off():
    gc.disable()
    stop = Stop()
    collector.hold_during(stop)
    assert not collector.paused()
    del stop
    assert not gc.isenabled()  # not turned on by a resume


def test_the_switch_keeps_it_running_during_stops(monkeypatch):
    monkeypatch.setenv(collector.KEEP_ENV, "1")
    stop = Stop()
    collector.hold_during(stop)
    assert gc.isenabled() and not collector.paused()


def test_nothing_without_a_stop_or_for_a_stop_without_weak_references():
    collector.hold_during(None)  # not suspended: a notebook's inspector, a direct call
    collector.hold_during(object())  # no weak reference: no sure sign of the stop's end
    assert gc.isenabled() and not collector.paused()
