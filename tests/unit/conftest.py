"""Fixtures shared by the unit tests."""

import pytest


@pytest.fixture
def gradient_hooks():
    """Gradient capture installed as the plugin installs it once TF is imported, and on."""
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    from tf_debug_repr.gradients import capture
    from tf_debug_repr.views import gradients as gradient_views

    capture.install_tape_hooks(tf)
    capture.install_keras_hooks(keras)
    gradient_views.register()
    capture.set_enabled(True)
    yield
    capture.set_enabled(True)


@pytest.fixture
def fresh_forensics():
    """The forensics features registered with the views as the plugin registers them, and
    their records empty before and after the test: no snapshot, no history, with the
    budgets the tests count on (snapshots 256 MiB, history 32 MiB; a test that sets
    another gets these back)."""
    pytest.importorskip("tensorflow")
    from tf_debug_repr import views
    from tf_debug_repr.forensics import features, history, snapshots

    def empty() -> None:
        snapshots.clear()
        history.clear()
        snapshots.set_budget_mb(256)
        history.set_budget_mb(32)

    views.build_table()
    features.register()
    empty()
    yield
    empty()


@pytest.fixture(scope="session")
def two_cpus() -> dict:
    """The answers of tests/unit/two_cpus_program.py: the checks that need TF in a fresh
    process with two logical CPUs, run as one program (once per test worker)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("tensorflow")
    program = Path(__file__).with_name("two_cpus_program.py")
    done = subprocess.run(
        [sys.executable, str(program)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def answer(two_cpus: dict, check: str):
    """One check's result; a check that raised in the program fails here with its traceback."""
    result = two_cpus[check]
    assert not (isinstance(result, dict) and "error" in result), result.get("error")
    return result
