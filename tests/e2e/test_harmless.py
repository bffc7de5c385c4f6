"""End to end: inspecting values inside an active GradientTape changes nothing the
program computes (gradients, watched variables, random draws)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ..conftest import program_path

pytestmark = pytest.mark.e2e

NAMES = ["x", "w", "unused", "t", "y", "noise", "tape"]


def program_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(("watched", "grads", "random"))]


def test_looking_inside_a_tape_changes_nothing(debug_session):
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    plain = subprocess.run(
        [sys.executable, program_path("inside_tape.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    expected = program_lines(plain.stdout)
    assert len(expected) == 3 and "'x:0'" in expected[0] and "unused" not in expected[0]

    s = debug_session("inside_tape.py")
    for name in NAMES:
        result = s.evaluate(name, "watch")
        assert "<error" not in result["result"], result
        stack = [result["variablesReference"]]
        while stack:  # expand everything below it
            reference = stack.pop()
            for child in s.client.variables(reference) if reference else []:
                assert "<error" not in child.value, (name, child.name, child.value)
                if child.type not in ("ndarray", "module") and "variables" not in child.name:
                    stack.append(child.reference)
        for context in ("hover", "repl", "clipboard"):
            s.evaluate(name, context)
    s.client.resume(s.thread_id)
    s.client.wait_event("terminated")
    assert program_lines("".join(s.client.output)) == expected
