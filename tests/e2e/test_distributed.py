"""End to end: tf.distribute values under a MirroredStrategy over two logical CPU devices:
one child per replica with its device, whether mirrored replicas agree, a divergence
flagged, sync-on-read variables aggregated, expressions evaluated in the program's frame."""

from __future__ import annotations

import numpy as np
import pytest

from ..conftest import start_stopped
from .test_kinds import assert_expressions_evaluate
from .test_viewer_payload import cells, fetch

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def s():
    session = start_stopped("kinds_distributed.py")
    yield session
    session.client.close()


def test_mirrored_variable_replicas_and_agreement(s):
    weights = s.locals()["weights"]
    assert weights.value.startswith(
        "MirroredVariable 'weights' replicas equal, 2 replicas (CPU:0, CPU:1): "
        "float32[3] x∈[1, 3] μ=2 σ=0.8165 n=3 CPU:0"
    )
    children = s.child_map(weights)
    assert children["max |Δ| between replicas"].value == "0.0"
    assert children["[0] CPU:0"].value.startswith("float32[3] x∈")
    assert children["[0] CPU:0"].value.endswith(" CPU:0 [1., 2., 3.] Variable 'weights'")
    assert children["[1] CPU:1"].value.startswith("float32[3] x∈")
    assert children["[1] CPU:1"].value.endswith(" CPU:1 [1., 2., 3.] Variable 'weights/replica_1'")
    device = s.evaluate(f"{children['[1] CPU:1'].evaluate_name}.device")["result"]
    assert device.endswith("device:CPU:1'")
    assert assert_expressions_evaluate(s, weights) == 4


def test_diverged_replicas_stand_out(s):
    diverged = s.locals()["diverged"]
    assert diverged.value.startswith(
        "MirroredVariable 'diverged' ‼ replicas differ, max |Δ|=0.5, 2 replicas (CPU:0, CPU:1)"
    )
    children = s.child_map(diverged)
    assert children["max |Δ| between replicas"].value == "0.5"
    assert s.child_map(children["[1] CPU:1"])["[1]"].value == "2.5"


def test_sync_on_read_variable_is_aggregated(s):
    counter = s.locals()["counter"]
    # replica 0 added 1, replica 1 added 2: the SUM read is 3.
    assert counter.value == (
        "SyncOnReadVariable 'counter' SUM of 2 replicas (CPU:0, CPU:1): 3.0 float32 CPU:0"
    )
    children = s.child_map(counter)
    assert children["SUM (read)"].value == "3.0 float32 CPU:0"
    assert children["[0] CPU:0"].value == "1.0 float32 CPU:0 Variable 'counter' non-trainable"
    assert children["[1] CPU:1"].value == (
        "2.0 float32 CPU:1 Variable 'counter/replica_1' non-trainable"
    )
    assert assert_expressions_evaluate(s, counter) == 5


def test_per_replica_values(s):
    per_replica = s.locals()["per_replica"]
    assert per_replica.value == (
        "PerReplica 2 replicas (CPU:0, CPU:1); [0]: float32[2] x∈[0, 0] μ=0 σ=0 n=2 CPU:0 [0., 0.]"
    )
    children = s.child_map(per_replica)
    assert children["[1] CPU:1"].value == "float32[2] x∈[10, 10] μ=10 σ=0 n=2 CPU:1 [10., 10.]"
    assert children["max |Δ| between replicas"].value == "10.0"
    assert assert_expressions_evaluate(s, per_replica) == 3


def test_keras_weights_under_the_strategy(s):
    kernel = s.locals()["kernel"]
    assert kernel.value.startswith("float32[3, 2] x∈")
    assert kernel.value.endswith("mirrored ×2 Variable 'sequential/dense/kernel'")
    value = s.child_map(kernel)["value"]
    assert value.value.startswith("MirroredVariable 'sequential/dense/kernel' replicas equal")
    mean = s.locals()["mean"]
    assert mean.value == "Mean 'mean' result=0 (state: total, count)"
    total = s.child_map(mean)["total"]
    assert total.value.endswith("sync-on-read ×2 SUM Variable 'mean/total' non-trainable")


def test_debug_console_prints_the_values(s):
    text = s.evaluate("weights", "repl")["result"]
    assert text.splitlines()[0].startswith("MirroredVariable 'weights' replicas equal")
    assert text.splitlines()[1] == "[1., 2., 3.]"
    assert s.evaluate("counter", "clipboard")["result"] == "3."


def test_distributed_values_show_their_first_replica_or_the_aggregate(s):
    """The tensor viewer's payloads (test_viewer_payload.py's ``fetch``) of the values
    above: read last, from the same session (its own session of the program before)."""
    p = fetch(s, "diverged")
    assert p["kind"] == "distributed variable" and p["device"].endswith("CPU:0")
    assert "‼ replicas differ" in p["summary"]
    assert p["summary"].endswith("· showing replica 0 of 2 (CPU:0)")
    assert cells(p).tolist() == [[1.0, 2.0, 3.0]]
    p = fetch(s, "counter")  # sync-on-read: what the program would read
    assert p["summary"].endswith("· showing the SUM of 2 replicas") and cells(p).tolist() == [[3.0]]
    p = fetch(s, "per_replica")
    assert p["kind"] == "per-replica value" and cells(p).tolist() == [[0.0, 0.0]]
    p = fetch(s, "kernel")  # a Keras weight created in the strategy's scope
    program = s.evaluate("kernel.numpy().tolist()", "repl")["result"]
    assert p["shape"] == [3, 2] and "mirrored ×2" in p["summary"]
    np.testing.assert_allclose(cells(p), np.array(eval(program), np.float32))
