"""End to end: ``tf_debug_repr.report()`` evaluated at a breakpoint of a Keras training loop
through a real debugpy session, as the extension's "Copy TensorFlow state as Markdown" asks it
(``context: "clipboard"``), and in the Debug Console."""

from __future__ import annotations

import ast
import json
import re

import pytest

from ..conftest import start_stopped

pytestmark = pytest.mark.e2e

REPORT = "__import__('tf_debug_repr').report(format={!r})"


@pytest.fixture(scope="module")
def s():
    session = start_stopped("report_training.py", "BREAKPOINT")
    yield session
    session.client.close()


def _report(s, fmt: str = "markdown", frame_id: int | None = None) -> str:
    body = s.client.evaluate(REPORT.format(fmt), frame_id or s.frame_id, "clipboard")
    assert body.get("type") == "str", body
    return ast.literal_eval(body["result"])  # the repr of the str, as the extension reads it


def _row(text: str, name: str) -> list[str]:
    for line in text.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if cells and cells[0] == name:
            return cells
    raise AssertionError(f"no row {name!r} in\n{text}")


def test_the_report_at_a_breakpoint_of_a_training_step(s):
    text = _report(s)
    assert text.startswith("## TensorFlow state at train\\_step() line"), text[:200]
    # locals first, then the module's globals
    names = [line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| ")]
    assert names.index("loss") < names.index("model") < names.index("x"), names
    ratio = _row(text, "ratio")
    assert ratio[2:6] == ["[3]", "float32", "CPU:0", "‼ NaN×1 -Inf×1 first at [1]"], ratio
    assert _row(text, "loss")[5] == "none"
    assert _row(text, "grads")[1].startswith("4 tensors"), _row(text, "grads")
    # the model's layers with their parameter counts (4·8+8, 8·1+1), its name escaped
    assert "### Model model: 49 params" in text
    assert "| hidden | Dense | 40 |" in text and "| out\\|&lt;b&gt; | Dense | 9 |" in text
    # gradients the step computed, with their norms, as the Variables pane marks them
    assert "### Gradients" in text
    section = text[text.index("### Gradients") :]
    kernel = _row(section, "model.trainable\\_weights[0] (sequential/hidden/kernel)")
    assert float(kernel[1]) > 0 and "‖g‖=" in kernel[2], kernel
    # the same norm as the program's own gradient
    norm = s.evaluate("float(__import__('tensorflow').norm(grads[0]))", "repl")["result"]
    assert float(kernel[1]) == pytest.approx(float(norm), rel=1e-3)


def test_inline_values_of_the_names_on_the_lines_in_view(s):
    """What the extension's inline values provider evaluates: names as a JSON literal."""
    names = json.dumps(["tape", "loss", "model", "x", "y", "grads", "ratio", "step", "nope"])
    expression = f"__import__('tf_debug_repr').inline_values({names!r})"
    body = s.client.evaluate(expression, s.frame_id, "clipboard")
    found = json.loads(ast.literal_eval(body["result"]))
    # TF values only: ``step`` is an int, ``grads`` a list, ``nope`` is not in the frame
    assert set(found) == {"tape", "loss", "model", "x", "y", "ratio"}, found
    assert found["ratio"].startswith("float32[3] ‼ NaN×1 -Inf×1"), found
    assert found["x"].startswith("float32[16, 4] x∈[")
    assert all(len(v) <= 80 for v in found.values())


def test_gradients_of_variables_and_the_change_since_the_last_stop(s):
    data = json.loads(_report(s, "json"))
    model = next(v for v in data["values"] if v["name"] == "model")
    assert model["params"] == 49 and [layer["params"] for layer in model["layers"]] == [40, 9]
    s.resume_to_next_stop()
    text = _report(s)
    assert "### Δ since the last stop" in text, text
    change = _row(text[text.index("### Δ since the last stop") :], "model")
    assert re.match(r"4 of 4 weights changed ‖Δ‖=[\d.]+, stop 1 → 2", change[1]), change


def test_in_the_debug_console(s):
    body = s.evaluate("print(__import__('tf_debug_repr').report())", "repl")
    assert "error" not in body.get("type", "").lower(), body
    text = s.evaluate("__import__('tf_debug_repr').report()", "repl")["result"]
    assert "TensorFlow state at train" in text
