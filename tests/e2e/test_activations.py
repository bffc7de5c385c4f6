"""Activations and the batch from compiled steps, and a dataset's preview, read as VS Code
reads them in a real debugpy session."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

from ..conftest import Stopped, program_path, start_stopped

pytestmark = pytest.mark.e2e

MARKERS = ("CALLBACK_BREAKPOINT", "LOOP_BREAKPOINT", "PREVIEW_BREAKPOINT")


class InTurn:
    """One session on activations_fit.py (capture and fusion as by default), stopped at its
    markers in the program's order: the tests below that read it with those settings share it,
    each asking for its stop (``at``), to which the session goes on (a session each before:
    the same program started three times, to the same stops). A test run alone gets there too."""

    def __init__(self, out: str) -> None:
        self.out = out
        self.path = program_path("activations_fit.py")
        self.session = start_stopped(self.path, markers=list(MARKERS), env={"TFDR_OUT": out})
        self.lines = {line_of(self.path, m): m for m in MARKERS}
        self.hits = [self._marker()]

    def _marker(self) -> str:
        return self.lines[self.session.client.top_frame(self.session.thread_id)["line"]]

    def at(self, marker: str, hit: int = 1) -> Stopped:
        """The session at the ``hit``-th stop at ``marker``; the stops before it are passed."""
        while not (self.hits[-1] == marker and self.hits.count(marker) == hit):
            gone = MARKERS.index(self.hits[-1]) > MARKERS.index(marker)
            assert not gone and self.hits.count(marker) < hit, f"{marker} passed: {self.hits}"
            self.session.resume_to_next_stop()
            self.hits.append(self._marker())
        return self.session


@pytest.fixture(scope="module")
def in_turn(tmp_path_factory) -> Iterator[InTurn]:
    shared = InTurn(str(tmp_path_factory.mktemp("activations") / "after.npz"))
    yield shared
    shared.session.client.close()


def _model(s):
    found = s.evaluate("model")
    assert found["variablesReference"], found
    return {v.name: v for v in s.client.variables(found["variablesReference"])}


def _output_row(s, layer):
    rows = [c for c in s.children(layer) if c.name.startswith("→ output")]
    assert len(rows) == 1, [c.name for c in s.children(layer)]
    return rows[0]


def _true(s, expression: str) -> None:
    result = s.evaluate(expression, "repl")["result"]
    assert result == "True", (expression, result)


@pytest.mark.parametrize("fusion", [False, True])
def test_compiled_fit_outputs_equal_a_recompute(debug_session, request, fusion):
    if fusion:  # the settings of the shared session
        s = request.getfixturevalue("in_turn").at("CALLBACK_BREAKPOINT")
    else:
        s = debug_session("activations_fit.py", "CALLBACK_BREAKPOINT", env={"TFDR_NO_FUSION": "1"})
    s.evaluate("__tfdr_expected = recompute(keep.before)", "repl")
    rows = _model(s)
    for i, (name, mark) in enumerate(
        [
            ("hidden (Dense)", "dead ReLU: "),
            ("squash (Dense)", "saturated "),
            ("out (Dense)", "saturated "),
        ]
    ):
        row = _output_row(s, rows[name])
        assert row.name == "→ output (in compiled step 'one_step_on_data')", row.name
        assert row.evaluate_name and "activation(" in row.evaluate_name, row.evaluate_name
        # a tensor row like others: figures and the counts in its summary, values inside
        assert "float32[16," in row.value and mark in row.value, row.value
        assert row.reference, row
        got = f"({row.evaluate_name}).numpy()"
        if not fusion or i == 0:  # bit for bit (ReLU: the fused kernel rounds alike)
            _true(s, f"__import__('numpy').array_equal({got}, __tfdr_expected[{i}])")
        else:  # Grappler fuses MatMul+BiasAdd+Tanh/Sigmoid: within a rounding of eager
            _true(
                s, f"__import__('numpy').allclose({got}, __tfdr_expected[{i}], rtol=0, atol=1e-6)"
            )
    # the batch the step was given, after the data adapter
    group = next(c for c in s.children(_model_row(s)) if c.name.startswith("last step"))
    parts = s.child_map(group)
    assert set(parts) == {"inputs", "targets"}, parts
    assert "float32[16, 12]" in parts["inputs"].value, parts["inputs"].value
    _true(s, f"__import__('numpy').array_equal(({parts['inputs'].evaluate_name}).numpy(), x[48:])")
    _true(s, f"__import__('numpy').array_equal(({parts['targets'].evaluate_name}).numpy(), y[48:])")


def _model_row(s):
    found = s.evaluate("model")
    from tf_debug_repr.hosts.demo.dap_client import Variable

    return Variable("model", found["result"], "", found["variablesReference"], "model", found)


def test_subclassed_model_shows_the_layers_its_call_reached(in_turn):
    s = in_turn.at("LOOP_BREAKPOINT", 3)  # the third step has run
    net = s.locals()["net"]
    rows = s.child_map(net)
    # sublayers held by attributes are rows by those names (as stock names them)
    reached = [n for n in rows if n in ("first", "second")]
    assert len(reached) == 2, list(rows)
    for name in reached:
        row = _output_row(s, rows[name])
        assert "compiled step 'step'" in row.name, row.name
    first = _output_row(s, rows[reached[0]])
    assert "dead ReLU" in first.value, first.value
    # the last step's batch (16 rows) through the first layer, as it was before that step
    assert "float32[16, 8]" in first.value, first.value
    # (the same ops eagerly: never the layer itself, whose call would be kept in its turn)
    recompute = (
        "__import__('tensorflow').nn.relu(__import__('tensorflow').matmul(x[32:48], before[0])"
        " + before[1]).numpy()"
    )
    _true(s, f"__import__('numpy').array_equal(({first.evaluate_name}).numpy(), {recompute})")
    unused = "unused"
    assert not any(c.name.startswith("→ output") for c in s.children(rows[unused]))
    # the model's own output is the second layer's
    _true(
        s,
        "__import__('numpy').array_equal(__import__('tf_debug_repr').layer_output(net).numpy(),"
        " __import__('tf_debug_repr').layer_output(net.second).numpy())",
    )


def test_dataset_preview_leaves_the_programs_iterator_alone(in_turn):
    s = in_turn.at("PREVIEW_BREAKPOINT")
    out = in_turn.out  # where the program writes what it read after the stop
    ds = s.locals()["ds"]
    row = s.child_map(ds)["preview"]
    assert row.value.startswith("expand to read 3 elements from a fresh iterator"), row.value
    for _ in range(2):  # twice: each read is a fresh iterator
        found = s.evaluate(row.evaluate_name)  # the row as shown: read when expanded
        assert found["result"] == row.value, found
        elements = s.client.variables(found["variablesReference"])
        assert [e.name for e in elements] == ["read", "[0]", "[1]", "[2]"], elements
        assert elements[0].value.startswith("3 elements read from a fresh iterator"), elements
        _true(
            s,
            f"__import__('numpy').array_equal(({row.evaluate_name}).element(1).numpy(), expected[1])",
        )
    s.client.resume(s.thread_id)
    s.client.wait_event("terminated", timeout=120)
    with np.load(out) as saved:
        assert bool(saved["same"]), saved["second"]


def _weights(directory, name: str, env: dict | None) -> list[np.ndarray]:
    out = str(directory / f"{name}.npz")
    full = {"TFDR_OUT": out, "TF_CPP_MIN_LOG_LEVEL": "2", **(env or {})}
    if env is None:
        subprocess.run(
            [sys.executable, program_path("compiled_identical.py")],
            env={**os.environ, **full},
            check=True,
            timeout=300,
        )
    else:
        s = start_stopped("compiled_identical.py", "END", env=full)
        try:
            kept = s.evaluate(
                "str(getattr(__import__('tf_debug_repr').layer_output(fitted.layers[0]), 'shape', None))",
                "repl",
            )["result"]
            on = full.get("TF_DEBUG_REPR_ACTIVATIONS") != "0"
            assert ("16, 16" in kept) == on, kept  # the capture ran (or did not)
        finally:
            s.client.close()
    with np.load(out) as saved:
        return [saved[k] for k in sorted(saved.files, key=lambda k: int(k.split("_")[1]))]


@pytest.fixture(scope="module")
def identical_runs(tmp_path_factory) -> dict[str, list[np.ndarray]]:
    """compiled_identical.py's final weights with no debugger, under the plugin as by default
    (capture on) and with the capture off: one run each, read by both tests below (each ran
    its own no-debugger and default runs before)."""
    directory = tmp_path_factory.mktemp("identical")
    return {
        "plain": _weights(directory, "plain", None),
        "off": _weights(directory, "off", {"TF_DEBUG_REPR_ACTIVATIONS": "0"}),
        "on": _weights(directory, "on", {}),
    }


def test_compiled_training_is_bit_identical_under_the_debugger(identical_runs):
    """No breakpoint in compiled code: a @tf.function loop, fit and fit with XLA train to the
    same bytes under the debugger as without it (from test_compiled_breakpoints.py)."""
    plain, debugged = identical_runs["plain"], identical_runs["on"]
    assert len(plain) == len(debugged) == 12
    for a, b in zip(plain, debugged, strict=True):
        assert a.tobytes() == b.tobytes()


def test_training_results_are_identical_with_activation_capture_on_and_off(identical_runs):
    plain, off, on = (identical_runs[k] for k in ("plain", "off", "on"))
    assert len(plain) == len(off) == len(on) == 12
    for a, b, c in zip(plain, off, on, strict=True):
        assert a.tobytes() == b.tobytes() == c.tobytes()
