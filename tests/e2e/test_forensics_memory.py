"""End to end: ``tf_debug_repr.memory()`` in the Watch pane and the Debug Console lists the
selected frame's biggest tensor first with its true size, and a Keras model's bytes."""

from __future__ import annotations

import re

import pytest

from ..conftest import start_stopped

pytestmark = pytest.mark.e2e

MEMORY = "__import__('tf_debug_repr').memory()"


@pytest.fixture(scope="module")
def s():
    session = start_stopped("forensics_memory.py", "BREAKPOINT inner")
    yield session
    session.client.close()


def _size_of(s, expression: str, frame_id: int) -> int:
    """The true size in bytes, computed by the program itself."""
    text = s.client.evaluate(
        f"{expression}.shape.num_elements() * {expression}.dtype.size", frame_id, "repl"
    )["result"]
    return int(text)


def _rows(s, result: dict) -> list:
    assert result["variablesReference"], result
    return s.client.variables(result["variablesReference"])


def test_memory_lists_the_frames_biggest_tensor_first_with_its_true_size(s):
    result = s.evaluate(MEMORY, "watch")
    assert "in inner() line" in result["result"], result["result"]
    rows = _rows(s, result)
    first = rows[0]
    assert first.name.startswith("scratch "), [r.name for r in rows]
    assert _size_of(s, "scratch", s.frame_id) == 1_000_000
    assert "977 KiB" in first.name  # 1,000,000 B
    assert "768 KiB" in rows[1].name and rows[1].name.startswith("activations ")
    # The row is the tensor itself, under an expression that reaches it in the frame.
    assert first.evaluate_name == "scratch"
    assert first.value.startswith("float32[500, 500]"), first.value
    names = [r.name.split()[0] for r in rows]
    assert names.index("labels") > 0 and "activations" in names
    shares = [float(m.group(1)) for r in rows if (m := re.search(r" ([\d.]+)%$", r.name))]
    assert shares == sorted(shares, reverse=True)


def test_memory_reads_the_frame_selected_in_the_call_stack(s):
    frames = s.client.request("stackTrace", {"threadId": s.thread_id, "levels": 5})["stackFrames"]
    caller = next(f for f in frames if f["name"] == "main")
    result = s.client.evaluate(MEMORY, caller["id"], "watch")
    assert "in main() line" in result["result"]
    rows = _rows(s, result)
    # images (64·32·32·3 float32) beats every weight, the bool masks and the float16 halves.
    assert rows[0].name.startswith("batch['images'] "), [r.name for r in rows]
    assert _size_of(s, "batch['images']", caller["id"]) == 786_432
    assert "768 KiB" in rows[0].name
    by_name = {r.name.split()[0]: r for r in rows}
    assert "2 KiB" in by_name["batch['masks'][0]"].name  # bool: one byte per element
    assert "1.95 KiB" in by_name["halves"].name  # float16: two bytes per element
    model = next(r for r in rows if r.name == "model model")
    # 8·16+16 + 16·2+2 = 178 params, 712 B; Adam: iterations, lr, 2 slots per weight.
    assert model.value.startswith("178 params 712 B (712 B trainable), Adam 10 variables")
    devices = next(r for r in rows if r.name == "devices")
    assert "host: in use" in devices.value and "no allocator counters" in devices.value


def test_memory_in_the_debug_console_prints_a_table(s):
    text = s.evaluate(MEMORY, "repl")["result"]
    lines = text.splitlines()
    assert lines[0].startswith("memory in inner() line"), text
    table = [line for line in lines if line.startswith("    ")]
    assert table[0].split()[0] == "scratch" and "977 KiB" in table[0], text


def test_keras_model_has_a_memory_row_whose_expression_evaluates(s):
    frames = s.client.request("stackTrace", {"threadId": s.thread_id, "levels": 5})["stackFrames"]
    caller = next(f for f in frames if f["name"] == "main")
    scope = s.client.locals_reference(caller["id"])
    model = next(v for v in s.client.variables(scope) if v.name == "model")
    row = next(c for c in s.client.variables(model.reference) if c.name == "memory")
    assert row.value.startswith("178 params 712 B")
    again = s.client.evaluate(row.evaluate_name, caller["id"], "watch")["result"]
    assert again == row.value
    params = {c.name: c for c in s.client.variables(row.reference)}
    assert params["param bytes"].value == "712"
    assert s.client.evaluate(params["param bytes"].evaluate_name, caller["id"])["result"] == "712"
