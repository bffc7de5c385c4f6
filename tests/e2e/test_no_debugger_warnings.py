"""End to end (issue 32 item 4): a session that looks at big values (a Keras model, its
optimizer and metrics, whose rows read the program's properties through the plugin's
bounded calls, and a tensor of a million elements) prints no line that a plain run of
the program lacks: pydevd's ``PYDEV DEBUGGER WARNING: sys.settrace() should not be used``
came from the bounded calls' worker thread, which replaced the debugger's trace function."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..conftest import program_path, start_stopped

pytestmark = pytest.mark.e2e

PROGRAM = "kinds_training.py"
WARNINGS = ("PYDEV DEBUGGER WARNING", "sys.settrace()")


def test_looking_at_big_values_prints_no_debugger_warning():
    plain = subprocess.run(
        [sys.executable, program_path(PROGRAM)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"TF_CPP_MIN_LOG_LEVEL": "2", "PATH": "/usr/bin:/bin"},
    )
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert not [w for w in WARNINGS if w in plain.stdout + plain.stderr]

    s = start_stopped(PROGRAM)
    try:
        local = s.locals()
        for name in ("model", "optimizer", "mean_loss", "accuracy", "scaled", "loss_fn"):
            for row in s.children(local[name]):  # each row's kept attributes: bounded reads
                if row.reference and row.name in ("layers", "hidden", "out", "variables"):
                    s.children(row)
        big = s.evaluate("tf.reshape(tf.range(1_000_000, dtype=tf.float32), [1000, 1000])")
        assert big["result"].startswith("float32[1000, 1000]"), big
        assert s.client.variables(int(big["variablesReference"]))  # its rows, read
        # the bounded calls ran on their worker thread (the warning's source before)
        workers = "len(__import__('tf_debug_repr.core.bounded', fromlist=['_workers'])._workers)"
        assert int(s.evaluate(workers, "repl")["result"]) >= 1
        s.client.resume(s.thread_id)
        s.client.wait_event("terminated", timeout=120)
        output = "".join(s.client.output)
        assert "after 2.0 9.0" in output, output[-2000:]
        assert not [w for w in WARNINGS if w in output], output[-3000:]
    finally:
        s.client.close()
