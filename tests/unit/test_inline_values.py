"""inline_values(): the short form of the TF values among names, looked up, never evaluated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")

import tf_debug_repr  # noqa: E402
from tf_debug_repr.hosts import inline  # noqa: E402

from .hostile_values import hostile_names  # noqa: E402


def test_short_forms_of_the_tf_values_among_the_names(tmp_path: Path):
    marker = tmp_path / "ran"

    def frame():
        bad = tf.constant([[1.0, float("nan")], [float("nan"), 2.0]])
        step = 3
        big = tf.zeros([64, 10])
        names = ["bad", "step", "big", "missing", "tf", *hostile_names(marker), "bad", 7]
        return json.loads(tf_debug_repr.inline_values(json.dumps(names))), bad, step, big

    found, *_ = frame()
    assert list(found) == ["bad", "big"]  # TF values only, each once
    assert found["bad"].startswith("float32[2, 2] ‼ NaN×2"), found
    assert found["big"].startswith("float32[64, 10]") and len(found["big"]) <= inline.CHARS
    assert not marker.exists()


def test_not_json_or_not_a_list_answers_nothing():
    assert tf_debug_repr.inline_values("not json") == "{}"
    assert tf_debug_repr.inline_values('{"a": 1}') == "{}"


def test_bounded_in_names(monkeypatch):
    # The count bound alone: the time bound (SECONDS) is set out of reach, as a loaded
    # machine read 175 of the 200 names within it.
    monkeypatch.setattr(inline, "SECONDS", 600.0)
    names = {f"t{i}": tf.zeros([1]) for i in range(inline.MAX_NAMES + 50)}

    def frame():  # the names are the module's globals here
        return tf_debug_repr.inline_values(json.dumps(list(names)))

    globals().update(names)
    try:
        found = json.loads(frame())
    finally:
        for name in names:
            globals().pop(name)
    assert len(found) == inline.MAX_NAMES


def test_a_variable_keeps_its_gradient_norm_within_the_limit(gradient_hooks):
    w = tf.Variable(tf.fill([64, 10], 0.5), name="a_rather_long_variable_name_for_the_line")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * 3.0)
    tape.gradient(loss, [w])  # 3 everywhere: norm 3·√640 = 75.89
    found = json.loads(tf_debug_repr.inline_values(json.dumps(["w"])))
    assert found["w"].startswith("float32[64, 10] x∈[0.5, 0.5]"), found
    assert "∇‖g‖=75.89@" in found["w"] and len(found["w"]) <= inline.CHARS, found
