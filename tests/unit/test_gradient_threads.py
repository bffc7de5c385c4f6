"""Gradient capture from several Python threads at once (eager MirroredStrategy runs each
replica on its own thread): every record right, nothing lost, the byte count consistent."""

from __future__ import annotations

import threading

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr.gradients import capture  # noqa: E402

THREADS = 8
ROUNDS = 30


@pytest.fixture(autouse=True)
def hooks():
    capture.install_tape_hooks(tf)
    capture.install_keras_hooks(keras)
    capture.set_enabled(True)


def test_threads_computing_gradients_at_once_lose_nothing():
    shared = tf.Variable([1.0, 1.0])  # every thread's tape asks for it
    # A new variable per round that all threads meet for the first time at once.
    fresh = [tf.Variable([2.0]) for _ in range(ROUNDS)]
    own = [tf.Variable(np.full(4, i + 1.0, np.float32)) for i in range(THREADS)]
    returned: list[list] = [[] for _ in range(THREADS)]
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def work(i: int) -> None:
        try:
            for r in range(ROUNDS):
                start.wait()
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(own[i] * own[i]) * float(r + 1) + tf.reduce_sum(
                        shared
                    ) * float(i + 1)
                    loss += tf.reduce_sum(fresh[r])
                returned[i].append(tape.gradient(loss, [own[i], shared, fresh[r]]))
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert not capture.failures, capture.failures

    for i in range(THREADS):
        record = capture.record_of(own[i]).latest
        assert record.count == ROUNDS  # one per call, none lost
        assert record.gradient is returned[i][-1][0]
        # d/dv sum(v*v)*(r+1) = 2v(r+1); v = i+1 in 4 places: norm 4(i+1)(r+1)
        expected = [4.0 * (i + 1) * (r + 1) for r in range(ROUNDS)]
        assert [n for _, _, n in record.norms()] == pytest.approx(expected)
        assert [n for n, _, _ in record.norms()] == list(range(1, ROUNDS + 1))
        # Every call at that line counted once, whichever thread made it: distinct numbers.
        labels = [label for _, label, _ in record.norms()]
        assert len(set(labels)) == ROUNDS and all(label.startswith("call #") for label in labels)

    for r in range(ROUNDS):  # first met by every thread at once: one record, all counted
        assert capture.record_of(fresh[r]).latest.count == THREADS

    shared_record = capture.record_of(shared).latest
    assert len(capture.record_of(shared).targets) == 1  # one site, one target name
    assert shared_record.count == THREADS * ROUNDS
    lasts = [returned[i][-1][1] for i in range(THREADS)]
    assert any(shared_record.gradient is g for g in lasts)
    # Every norm in the shared history is one some thread's gradient had.
    possible = {round(float(np.sqrt(2)) * (i + 1), 4) for i in range(THREADS)}
    assert {round(n, 4) for _, _, n in shared_record.norms()} <= possible

    # The budget's count equals the bytes the records hold.
    with capture._lock:
        held = {
            id(target): target.kept_bytes
            for _, source in capture._entries.values()
            for target in source.targets.values()
        }
    assert sum(held.values()) == capture.retained_bytes()


def test_threads_applying_with_one_optimizer_label_their_own_records():
    v = [keras.Variable(np.ones(3, np.float32) * (i + 1)) for i in range(THREADS)]
    optimizer = keras.optimizers.SGD(0.0)
    optimizer.build(v)
    start = threading.Barrier(THREADS)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            start.wait()
            for _ in range(5):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(v[i] * v[i])
                (g,) = tape.gradient(loss, [v[i]])
                optimizer.apply_gradients([(g, v[i])])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    iterations = set()
    for i in range(THREADS):
        record = capture.record_of(v[i]).latest
        assert record.count == 5 and record.applied_by == "SGD" and record.applied is None
        labels = [label for _, label, _ in record.norms()]
        assert all(label.startswith("SGD ") and " iteration " in label for label in labels), labels
        iterations.update(int(label.rsplit(" ", 1)[1]) for label in labels)
    assert iterations <= set(range(THREADS * 5))
