"""report(): the frame's TF values as Markdown and JSON, bounded, debuggee text escaped."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

import tf_debug_repr  # noqa: E402
from tf_debug_repr.hosts import report as state_report  # noqa: E402

from .hostile_values import hostile_names, hostile_str  # noqa: E402


def _rows(text: str) -> dict[str, list[str]]:
    """The value table's rows by name (cells split on unescaped pipes)."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("| name "):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows[cells[0]] = cells
    return rows


def test_reads_the_callers_frame_with_facts_of_each_value():
    def frame():
        bad = tf.constant([[1.0, 2.0], [float("nan"), float("inf")]])
        weight = tf.Variable(tf.ones([3, 2]), name="kernel")
        ints = tf.range(5)
        count = 3  # not a TF value: not reported
        del count
        return tf_debug_repr.report(), bad, weight, ints

    text, *_ = frame()
    assert text.startswith("## TensorFlow state at frame() line")
    rows = _rows(text)
    assert set(rows) >= {"bad", "weight", "ints"}, rows
    assert "count" not in rows
    name, summary, shape, dtype, device, nan_inf = rows["bad"]
    assert summary.startswith("float32[2, 2]") and shape == "[2, 2]" and dtype == "float32"
    assert device == "CPU:0"
    assert nan_inf == "‼ NaN×1 +Inf×1 first at [1, 0]"
    assert rows["weight"][5] == "none" and "Variable 'kernel'" in rows["weight"][1]
    assert rows["ints"][5] == "–"  # integers hold no NaN


def test_json_has_the_same_facts():
    def frame():
        bad = tf.constant([0.0, float("-inf")])
        return tf_debug_repr.report(format="json"), bad

    text, _ = frame()
    data = json.loads(text)
    (entry,) = [v for v in data["values"] if v["name"] == "bad"]
    assert (entry["nan"], entry["posinf"], entry["neginf"]) == (0, 0, 1)
    assert entry["first_bad"] == [1] and entry["shape"] == "[2]"
    assert data["left_out"] == [] and data["where"].startswith("frame() line")


def test_a_dict_of_names_and_one_value():
    text = tf_debug_repr.report({"a": tf.zeros([2]), "n": 1})
    assert list(_rows(text)) == ["a"]
    assert list(_rows(tf_debug_repr.report(tf.zeros([3])))) == ["value"]
    with pytest.raises(ValueError):
        tf_debug_repr.report({}, format="html")


def test_model_layers_with_parameter_counts():
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(3, name="first"), keras.layers.Dense(2)]
    )
    text = tf_debug_repr.report({"model": model})
    assert "### Model model: 23 params" in text
    assert "| first | Dense | 15 |" in text


def test_gradients_and_their_norms(gradient_hooks):
    w = tf.Variable([3.0, 4.0], name="w")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w)
    tape.gradient(loss, [w])  # the gradient is 2w = [6, 8], norm 10
    text = tf_debug_repr.report({"w": w})
    assert "### Gradients" in text
    (line,) = [x for x in text.splitlines() if x.startswith("| w | 10 |")]
    assert "‖g‖=10" in line
    data = json.loads(tf_debug_repr.report({"w": w}, format="json"))
    assert data["values"][0]["gradients"][0]["norm"] == pytest.approx(10.0)


def test_hostile_names_and_strings_are_text_never_markup(tmp_path: Path):
    marker = tmp_path / "ran"
    names = {name: tf.zeros([1]) for name in hostile_names(marker)}
    names[hostile_str("k", marker)] = tf.zeros([2])
    names["<img src=x onerror=alert(1)>"] = tf.Variable([1.0], name="a|b`c`<script>[x](http://e)")
    names["**bold** _em_ ~~s~~ $x$"] = tf.zeros([3])
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, name="<b>|<i>`x`")])
    names["m"] = model
    text = tf_debug_repr.report(names)
    assert not marker.exists()
    assert "<" not in text and ">" not in text.replace("→", "")  # no HTML at all
    for line in text.splitlines():
        if line.startswith("|"):
            # every row keeps its cells: no pipe of the debuggee's splits one
            cells = re.split(r"(?<!\\)\|", line)
            assert len(cells) in (5, 8, 4), line
        assert "](" not in line and "http://" not in line
        assert not re.search(r"(?<!\\)`", line), line  # no code span opens
        assert not re.search(r"(?<!\\)\*\*", line), line
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "\\~\\~s\\~\\~" in text and "\\$x\\$" in text
    # A str subclass's own methods never ran: its exact text is its name.
    assert "| k |" in text
    data = json.loads(tf_debug_repr.report(names, format="json"))
    assert "<img src=x onerror=alert(1)>" in [v["name"] for v in data["values"]]
    assert not marker.exists()


def test_markdown_text_escapes():
    assert state_report.markdown_text("a|b") == "a\\|b"
    assert state_report.markdown_text("`x`") == "\\`x\\`"
    assert state_report.markdown_text("<a href='x'>") == "&lt;a href='x'&gt;"
    assert state_report.markdown_text("line\nbreak") == "line break"
    assert state_report.markdown_text("[a](b)") == "[a]\\(b)"
    assert state_report.markdown_text("float32[64, 10]") == "float32[64, 10]"


def test_a_frame_of_5000_tensors_is_bounded_and_says_what_was_left_out():
    names = {f"t{i}": tf.constant([float(i)]) for i in range(5_000)}
    start = time.perf_counter()
    text = tf_debug_repr.report(names)
    seconds = time.perf_counter() - start
    assert len(text) <= state_report.LIMIT
    assert len(_rows(text)) == state_report.MAX_VALUES
    assert f"**Left out:** 4,900 of 5,000 TF values (only the first {state_report.MAX_VALUES}" in (
        text
    )
    assert "t100, t101," in text and "… 4,880 more." in text
    assert seconds < 20, seconds
    small = tf_debug_repr.report(names, limit=3_000)
    assert len(small) <= 3_000
    assert "**Cut:**" in small and "**Left out:**" in small
    data = json.loads(tf_debug_repr.report(names, format="json", limit=5_000))
    assert len(json.dumps(data, ensure_ascii=False)) <= 5_000
    assert len(data["values"]) + data["left_out_count"] == 5_000 and data["cut"] > 0
    assert data["left_out"][:2] == [f"t{len(data['values'])}", f"t{len(data['values']) + 1}"]


def test_looking_records_nothing_on_a_tape():
    z = tf.Variable([1.0, float("nan")])
    with tf.GradientTape() as tape:
        text = tf_debug_repr.report({"z": z})
    assert "NaN×1" in text  # z was read ...
    assert tape.watched_variables() == ()  # ... and no tape saw it


def test_public():
    assert "report" in tf_debug_repr.__all__
