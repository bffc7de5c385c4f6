"""Calls into the program, bounded in time: a view that runs the program's code (a metric's
``result()``, a schedule's ``__call__``, a property, a ``__repr__``) or reads a value over
the network (a variable on a remote worker) must never hang the debugger.

The call runs on a worker thread of the plugin's own while the caller waits at most
``SECONDS``. Past the bound the caller gets ``TimedOut`` (its row says so) and goes on;
the worker is left to finish, and is used again once it has. At most ``WORKERS`` workers
exist: when every one is still inside a call that never returned, later calls are refused
at once; while one is, later calls get a shorter bound, so that a refresh of many rows
waits about one bound however many of them hang.

The workers are marked as pydevd marks its own threads (``pydev_do_not_trace``,
``is_pydev_daemon_thread``): the program's code run there stops at no breakpoint and the
thread is not listed in the Call Stack. The debugger's trace function, which
``threading.settrace`` gives every new thread, sees the mark at the thread's first call and
turns itself off for that thread (pydevd's own daemon threads go the same way; under
``sys.monitoring`` the mark is read as well); the workers never call ``sys.settrace``
themselves, which pydevd reports on stderr as a ``PYDEV DEBUGGER WARNING`` against the
program's session (and refuses under ``sys.monitoring``). Their thread-local TF state is
empty: off every tape and outside any graph being traced, as an observer should be.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

SECONDS = 1.0
# While an earlier call still hangs, later ones get a quarter of the bound: a refresh of a
# frame holding several hanging values waits about one bound, not one per value.
HUNG_SECONDS = SECONDS / 4
WORKERS = 8


class TimedOut(Exception):
    """A bounded call that did not return within its bound (or was not started)."""


class _Worker:
    def __init__(self) -> None:
        self.ready = threading.Condition()
        self.job: Callable[[], None] | None = None
        self.busy = False
        thread = threading.Thread(target=self._run, name="tf_debug_repr bounded calls")
        thread.daemon = True
        thread.pydev_do_not_trace = True  # type: ignore[attr-defined]
        thread.is_pydev_daemon_thread = True  # type: ignore[attr-defined]
        self.thread = thread
        thread.start()

    def _run(self) -> None:
        while True:
            with self.ready:
                while self.job is None:
                    self.ready.wait()
                job = self.job
            try:
                job()
            finally:
                # the last call's function and arguments are not held while the worker
                # waits for the next one (a value shown once stayed alive until then)
                del job
                with self.ready:
                    self.job = None
                    self.busy = False

    def submit(self, job: Callable[[], None]) -> None:
        with self.ready:
            self.job = job
            self.ready.notify()


_workers: list[_Worker] = []
_lock = threading.Lock()
_running: dict[tuple[str, int | None], _Worker] = {}


def _idle_worker() -> _Worker | None:
    with _lock:
        for worker in _workers:
            if not worker.busy:
                worker.busy = True
                return worker
        if len(_workers) >= WORKERS:
            return None
        worker = _Worker()
        worker.busy = True
        _workers.append(worker)
        return worker


def warm() -> None:
    """Start one idle worker now (the plugin calls this once TF is imported and a client
    is looking), not inside the first request that calls into the program: started under
    a paused debugger, its thread took most of the first stop's Locals (~90 ms of 150)."""
    with _lock:
        if not _workers:
            _workers.append(_Worker())


def _on_worker() -> bool:
    current = threading.current_thread()
    return any(worker.thread is current for worker in _workers)


def call(fn: Callable[..., T], *args: Any, seconds: float | None = None, what: str = "") -> T:
    """``fn(*args)``, or ``TimedOut`` once ``seconds`` (``SECONDS``) have passed without it
    returning. Its exceptions are raised here. Called from a worker (a bounded call inside
    a bounded call), it runs there directly: the outer bound covers it."""
    if _on_worker():
        return fn(*args)
    key = _key(fn, args, what)
    label = key[0]
    if key in _running:
        raise TimedOut(f"{label}: not called again, an earlier call has not returned")
    worker = _idle_worker()
    if worker is None:
        raise TimedOut(
            f"{label}: not called, {WORKERS} earlier calls into the program have not returned"
        )
    done = threading.Event()
    outcome: list[Any] = []

    def job() -> None:
        try:
            outcome.append(_outcome(fn, args))
        finally:
            _running.pop(key, None)
            done.set()

    bound = _bound(seconds)
    _running[key] = worker
    worker.submit(job)
    if not done.wait(bound):
        raise TimedOut(f"{label} did not return within {_seconds(bound)} (it still runs)")
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def call_each(
    calls: Sequence[tuple[Callable[..., Any], tuple[Any, ...], str]],
    seconds: float | None = None,
) -> list[tuple[bool, Any]]:
    """``fn(*args)`` for each ``(fn, args, what)`` of ``calls``, in order, one worker taking
    them one after another: one hand-off for all where ``call`` made one each (a
    transformer's ~50 attribute reads, ~0.16 ms a hand-off, more on busy cores). Each call
    is bounded as ``call`` bounds it, from the moment the one before it returned: a call
    that hangs is that one's ``TimedOut``, and the calls after it go on from another
    worker (with the shorter bound, as while any call hangs). Gives ``(True, value)`` or
    ``(False, the exception it raised or TimedOut)`` per call."""
    if _on_worker():  # inside a bounded call: run here, the outer bound covers them
        return [_outcome(fn, args) for fn, args, _ in calls]
    found: list[tuple[bool, Any] | None] = [None] * len(calls)
    keys = [_key(fn, args, what) for fn, args, what in calls]
    start = 0
    while start < len(calls):
        start = _run_from(calls, keys, found, start, seconds)
    return [item if item is not None else (False, TimedOut("not called")) for item in found]


def _key(fn: Callable[..., Any], args: tuple[Any, ...], what: str) -> tuple[str, int | None]:
    """A call's label and the object it is on: the same call still running from an
    earlier look is not started again, or one hung property would take every worker."""
    label = what or getattr(fn, "__qualname__", None) or "the call"
    return label, (id(args[0]) if args else None)


def _bound(seconds: float | None) -> float:
    """The seconds a call may take: ``SECONDS`` or the caller's, shorter while any call
    hangs."""
    bound = SECONDS if seconds is None else seconds
    return min(bound, HUNG_SECONDS) if _running else bound


def _outcome(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[bool, Any]:
    try:
        return True, fn(*args)
    except BaseException as exc:  # handed to the caller, as if raised there
        return False, exc


def _run_from(
    calls: Sequence[tuple[Callable[..., Any], tuple[Any, ...], str]],
    keys: list[tuple[str, int | None]],
    found: list[tuple[bool, Any] | None],
    start: int,
    seconds: float | None,
) -> int:
    """Run ``calls[start:]`` on one worker until one hangs; the index to go on from."""
    worker = _idle_worker()
    if worker is None:
        for i in range(start, len(calls)):
            found[i] = (
                False,
                TimedOut(
                    f"{keys[i][0]}: not called, {WORKERS} earlier calls "
                    "into the program have not returned"
                ),
            )
        return len(calls)
    bound = _bound(seconds)
    # The caller sleeps until the worker is done, waking only when the call running has
    # had its bound: a wake-up per call would make the two threads trade the GIL at each
    # one (the interpreter's 5 ms switch interval: slower than one hand-off per call).
    lock = threading.Lock()
    done = threading.Event()
    state: dict[str, Any] = {"at": start, "since": time.monotonic(), "abandoned": False}

    def job() -> None:
        for i in range(start, len(calls)):
            with lock:
                if state["abandoned"]:
                    return
                state["at"], state["since"] = i, time.monotonic()
            key = keys[i]
            if key in _running:  # the same call from an earlier look, still running
                message = f"{key[0]}: not called again, an earlier call has not returned"
                outcome: tuple[bool, Any] = (False, TimedOut(message))
            else:
                _running[key] = worker
                try:
                    fn, args, _ = calls[i]
                    outcome = _outcome(fn, args)
                finally:
                    _running.pop(key, None)
            with lock:
                if state["abandoned"]:
                    return  # the caller gave this call up as hung and went on without it
                found[i] = outcome
            del outcome
        with lock:
            state["at"] = len(calls)
        done.set()

    worker.submit(job)
    while True:
        with lock:
            at, since = state["at"], state["since"]
        if at >= len(calls):
            return at
        left = since + bound - time.monotonic()
        if left > 0:
            done.wait(left)
            continue
        with lock:  # the call running has had its bound: it hangs, unless it just returned
            if state["at"] != at or found[at] is not None:
                continue
            state["abandoned"] = True
        found[at] = (
            False,
            TimedOut(f"{keys[at][0]} did not return within {_seconds(bound)} (it still runs)"),
        )
        return at + 1


def _seconds(value: float) -> str:
    return f"{value:g} s"


# Devices whose reads timed out (a remote worker gone): device -> when. Reads of their
# values are refused at once for a while, so that a refresh of many rows never waits the
# bound once per row.
_SILENT: dict[str, float] = {}
SILENT_SECONDS = 30.0


def on_device(device: str, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` reading values that live on ``device`` (a remote worker), bounded."""
    since = _SILENT.get(device)
    if since is not None and time.monotonic() - since < SILENT_SECONDS:
        raise TimedOut(
            f"not read: {device} did not answer within {_seconds(SECONDS)} "
            f"{time.monotonic() - since:.0f} s ago"
        )
    try:
        found = call(fn, *args, what=f"reading a value on {device}")
    except TimedOut:
        _SILENT[device] = time.monotonic()
        raise
    _SILENT.pop(device, None)
    return found


# Values whose repr is the interpreter's own (no program code runs).
_PLAIN = (int, float, bool, complex, str, bytes, type(None))


def repr_of(obj: Any) -> str:
    """``repr(obj)``, bounded unless the interpreter itself writes it."""
    if type(obj) in _PLAIN:
        return repr(obj)
    return call(repr, obj, what=f"repr() of a {type(obj).__name__}")
