"""Hostile sizes from the program and the page: Save as .npy on strings never pads into
GiBs, and slice requests are size-checked before anything is built (issue 16, item 11)."""

from __future__ import annotations

import base64
import json
import time

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

import tf_debug_repr  # noqa: E402


def payload(value, **request):
    return json.loads(base64.b64decode(tf_debug_repr.view_payload(value, **request)))


def test_save_npy_refuses_strings_that_would_pad_into_gibs(tmp_path):
    # 120 KB of strings: one long, 20,000 short ones; padded to the longest, ~1.9 GiB.
    strings = tf.constant([b"x" * 100_000] + [b"y"] * 20_000)
    path = tmp_path / "s.npy"
    start = time.perf_counter()
    report = tf_debug_repr.save_npy(strings, str(path))
    assert time.perf_counter() - start < 5
    assert report.startswith("not saved: ValueError: strings padded to the longest"), report
    assert not path.exists()


def test_save_npy_still_writes_ordinary_strings(tmp_path):
    path = tmp_path / "words.npy"
    report = tf_debug_repr.save_npy(tf.constant([b"alpha", b"be", b""]), str(path))
    assert report.startswith("saved string[3]"), report
    assert np.load(path).tolist() == [b"alpha", b"be", b""]


@pytest.mark.parametrize(
    "request_",
    [
        {"index": [0] * 10_000_000},
        {"index": list(range(300))},
        {"region": [[0, 10**400], [0, 1]]},
        {"axes": [10**400, 0]},
        {"region": [[0, 1]] * 1_000_000},
        {"axes": ["x" * 10_000_000, 0]},
    ],
)
def test_slice_requests_of_any_size_are_refused_quickly_with_a_short_message(request_):
    w = tf.zeros([4, 5, 6])
    start = time.perf_counter()
    answer = payload(w, **request_)
    assert time.perf_counter() - start < 2
    assert answer["error"] and answer["bad_request"], answer
    assert len(answer["error"]) < 300, len(answer["error"])
