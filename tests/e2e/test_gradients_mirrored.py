"""An eager MirroredStrategy step over 2 logical CPU devices, in a real debug session:
each replica's thread records its own gradient, kept apart by replica, each equal to
what that replica returned, labelled by the optimizer's iteration."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e

NP = "__import__('numpy')"


def test_each_replica_keeps_its_own_gradient(debug_session):
    s = debug_session("grad_mirrored.py")
    kernel = s.locals()["kernel"]
    assert re.search(
        r"∇‖g‖=[0-9.e-]+@SGD iteration 0 of loss \(replica [01]\) Variable '", kernel.value
    ), kernel.value
    child = s.child_map(kernel)["∇ gradient"]
    assert re.match(r"∇ of loss \(replica [01]\), SGD iteration 0 ‖g‖=", child.value), child.value
    targets = s.child_map(child)["all targets"]
    assert targets.value.startswith("2 targets"), targets.value
    rows = s.children(targets)
    assert [r.name for r in rows] == [
        "loss at grad_mirrored.py:20, replica 0",
        "loss at grad_mirrored.py:20, replica 1",
    ]
    for replica, row in enumerate(rows):
        assert f"CPU:{replica}" in row.value, row.value  # computed on that replica's device
        parts = s.child_map(row)
        assert parts["applied by"].value.startswith("SGD at iteration 0"), parts["applied by"]
        same = s.evaluate(
            f"bool({NP}.array_equal({parts['numpy'].evaluate_name}, "
            f"kernel_grads[{replica}].numpy()))"
        )
        assert same["result"] == "True", (replica, parts["numpy"].evaluate_name)
    # The replicas saw different halves of the batch: their gradients differ.
    differ = s.evaluate(f"bool({NP}.array_equal(kernel_grads[0], kernel_grads[1]))")
    assert differ["result"] == "False"
