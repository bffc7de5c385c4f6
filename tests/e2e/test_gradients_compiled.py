"""Gradients from compiled steps, with no switch: at a callback stop after compiled fit,
each weight's ∇ gradient row holds what the compiled step passed to the optimizer, equal to
an eager recompute from the weights before that step and its batch."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e


def gradient_rows(s, count: int) -> list:
    rows = []
    for i in range(count):
        weight = s.evaluate(f"model.trainable_weights[{i}]")
        children = {c.name: c for c in s.client.variables(weight["variablesReference"])}
        assert "∇ gradient" in children, (weight["result"], list(children))
        rows.append(children["∇ gradient"])
    return rows


# Bit for bit where the graph computes what eager ops compute; Grappler's fused
# MatMul+BiasAdd+Tanh (on by default) and XLA round differently, hence to 1e-5 there; two
# MirroredStrategy replicas each take half of the batch: the gradient applied is their sum.
@pytest.mark.parametrize(
    "env, exact",
    [
        ({"TFDR_NO_FUSION": "1"}, True),
        ({"TFDR_NO_FUSION": "1", "TFDR_WIDE": "1"}, True),
        ({"TFDR_CONV": "1"}, False),
        ({}, False),
        ({"TFDR_JIT": "1"}, False),
        ({"TFDR_MIRRORED": "1"}, False),
        # one replica: the strategy's scope makes the capture's own variables mirrored unless
        # they are made past it (NotImplementedError on their first write, before)
        ({"TFDR_MIRRORED": "one", "TFDR_NO_FUSION": "1"}, True),
    ],
    ids=[
        "graph-unfused",
        "graph-unfused-factored",
        "graph-conv-factored",
        "graph",
        "xla",
        "mirrored",
        "mirrored-one",
    ],
)
def test_compiled_fit_gradients_equal_an_eager_recompute(debug_session, env, exact):
    s = debug_session("grad_compiled_fit.py", marker="CALLBACK_BREAKPOINT", env=env)
    s.evaluate("expected = recompute(self.before)", "repl")
    rows = gradient_rows(s, 4)
    for i, row in enumerate(rows):
        # The fourth step of compiled fit: Adam's iteration 3, and the last 4 steps' norms.
        assert row.value.startswith("∇ Adam iteration 3 ‖g‖="), row.value
        parts = s.child_map(row)
        if env.get("TFDR_MIRRORED") != "1":  # under replicas only the last step's norm is known
            assert "last 4 gradients" in parts["‖g‖ history"].value, parts["‖g‖ history"].value
        assert "compiled tf.function" in parts["target"].value, parts["target"].value
        value = parts["value"].evaluate_name
        same = (
            f"bool(np.allclose(({value}).numpy(), expected[{i}], rtol=1e-5, atol=1e-7))"
            if not exact
            else f"bool(np.array_equal(({value}).numpy(), expected[{i}]))"
        )
        assert s.evaluate(same, "repl")["result"] == "True", (i, s.evaluate(value, "repl"))
        norm = f"abs({parts['‖g‖'].evaluate_name} - float(np.linalg.norm(expected[{i}])))"
        assert float(s.evaluate(norm, "repl")["result"]) < 1e-4
    model = s.evaluate("model")["result"]
    assert "∇‖g‖=" in model and "@Adam iteration 3," in model, model
    # The model's global norm comes from the step's ring of squared norms: exact (float32)
    # for weights of at most 65,536 elements; the wide 512x512 kernel's is an estimate
    # from its sample, marked ~.
    shown = re.search(r"∇‖g‖=(~?)([0-9.e+-]+)@", model)
    assert shown is not None, model
    wide = "TFDR_WIDE" in env or "TFDR_CONV" in env
    assert (shown.group(1) == "~") == wide, model
    total = float(
        s.evaluate("float(np.sqrt(sum(np.sum(np.square(g)) for g in expected)))")["result"]
    )
    tolerance = 0.05 if wide else 1e-3  # the row shows 4 significant digits
    assert float(shown.group(2)) == pytest.approx(total, rel=tolerance), (model, total)
    # Graph mode keeps the wide kernel's gradient as its MatMul's factors, the second conv
    # kernel's as its Conv2DBackpropFilter's (and only there).
    factored = (
        "sum(s.factors is not None for s in "
        "__import__('tf_debug_repr.gradients.compiled', fromlist=['_shadows'])._shadows.values())"
    )
    want = "1" if wide else "0"
    assert s.evaluate(factored, "repl")["result"] == want
    convs = factored.replace("s.factors is not None", "s.conv is not None")
    assert s.evaluate(convs, "repl")["result"] == ("1" if "TFDR_CONV" in env else "0")


def test_a_plain_tf_compiled_tape_gradient_equals_an_eager_recompute(debug_session):
    """No Keras optimizer: the gradient a compiled ``tape.gradient`` returned, labelled by
    its run (the fifth), equal to an eager recompute from the weights before that run."""
    s = debug_session("grad_compiled_tape.py", marker="TAPE_BREAKPOINT")
    s.evaluate("expected = recompute(*before)", "repl")
    local = s.locals()  # module level: the program's globals
    for i, name in enumerate(["w", "b"]):
        row = s.child_map(local[name])["∇ gradient"]
        # the fifth run of the compiled tape.gradient line, as eager calls are counted
        assert row.value.startswith("∇ call #5 at grad_compiled_tape.py:"), row.value
        parts = s.child_map(row)
        assert "last 5 gradients" in parts["‖g‖ history"].value, parts["‖g‖ history"].value
        assert "in a compiled tf.function" in parts["target"].value, parts["target"].value
        value = parts["value"].evaluate_name
        same = f"bool(np.array_equal(np.asarray(({value}).numpy()), expected[{i}]))"
        assert s.evaluate(same, "repl")["result"] == "True", (name, s.evaluate(value, "repl"))


@pytest.mark.parametrize(
    "env", [{"TFDR_NO_FUSION": "1"}, {"TFDR_JIT": "1"}], ids=["graph-unfused", "xla"]
)
def test_past_the_budget_each_weights_figures_are_its_own_gradients(debug_session, env):
    """With no gradient values kept (a budget of 0), each weight's ∇ row shows the figures
    of its own gradient in the last compiled step, from the sample the step kept for it (all
    of a weight of at most 65,536 elements): the steps keep the samples in one vector, each
    at its own place, which a stop reads back."""
    budget = {"TF_DEBUG_REPR_GRADIENT_BUDGET_MB": "0"}
    s = debug_session("grad_compiled_fit.py", marker="CALLBACK_BREAKPOINT", env={**env, **budget})
    s.evaluate("expected = recompute(self.before)", "repl")
    for i, row in enumerate(gradient_rows(s, 4)):
        assert row.value.startswith("∇ Adam iteration 3 ‖g‖="), row.value
        assert "values not kept" in row.value, row.value
        size = int(s.evaluate(f"expected[{i}].size", "repl")["result"])
        assert f"n={size} " in row.value, (size, row.value)
        shown = re.search(r"x∈\[([^,\]]+), ([^\]]+)\]", row.value)
        assert shown is not None, row.value
        for k, figure in ((1, "min"), (2, "max")):
            want = float(s.evaluate(f"float(expected[{i}].{figure}())", "repl")["result"])
            got = float(shown.group(k))
            assert got == pytest.approx(want, rel=2e-3, abs=1e-9), (i, figure, row.value, want)
