"""Keras 2 reads as Keras 3 does (issue 15): the same program under Keras 3, TF 2.15's Keras 2
and tf_keras (scripts/test.sh runs this file in all three) shows the model, its layer, the
optimizer (both Keras 2 families), the loss, the metric and the gradient labels alike, and
no "capture hooks failed" line (issue 16: Keras 2.13-2.15 printed one in every session)."""

from __future__ import annotations

import re

import pytest

from ..conftest import start_stopped

pytestmark = pytest.mark.e2e

PROGRAM = "keras_parity.py"


@pytest.fixture(scope="module")
def fit_session():
    """One session on keras_parity_fit.py, stopped at its breakpoint, read by the three
    compiled ``fit`` tests below (each only reads: evaluations and rows; one session each
    before)."""
    session = start_stopped("keras_parity_fit.py")
    yield session
    session.client.close()


def test_keras_objects_and_gradient_labels_read_alike(debug_session):
    s = debug_session(PROGRAM)
    keras_2 = s.evaluate("KERAS_2", "repl")["result"] == "True"
    values = s.locals()

    model = values["model"]
    assert re.match(
        r"9 params(?: → \[[^\]]*\])?, 1 layer, ∇‖g‖=[0-9.e-]+@Adam iteration 1, "
        r"Sequential 'sequential'$",
        model.value,
    ), model.value
    dense = s.child_map(model)["dense (Dense)"]
    assert re.match(r"9 params(?: → \[[^\]]*\])?: kernel\[2, 3\] bias\[3\], ", dense.value)
    assert dense.value.endswith(", Dense 'dense'"), dense.value
    weights = s.child_map(dense)
    assert s.evaluate(f"{weights['kernel'].evaluate_name} is kernel")["result"] == "True"
    gradient = s.child_map(weights["kernel"])["∇ gradient"]
    assert gradient.value.startswith("∇ Adam iteration 1 ‖g‖="), gradient.value

    optimizer = values["optimizer"]
    assert re.match(
        r"Adam '(adam|Adam)' lr=0\.01 iterations=2 slots (m, v|momentum, velocity) for 2 weights$",
        optimizer.value,
    ), optimizer.value
    rows = s.child_map(optimizer)
    assert rows["learning_rate"].value == "0.01"
    assert rows["iterations"].value == "2"
    for name in ("learning_rate", "iterations", "variables"):
        assert s.evaluate(rows[name].evaluate_name)["result"], name
    slots = s.children(rows["slots by weight"])
    assert len(slots) == 2 and all("[2, 3]" in g.value or "[3]" in g.value for g in slots)
    for group in slots:  # each group's expression reaches it
        assert s.evaluate(f"{group.evaluate_name} is not None")["result"] == "True"

    assert re.match(
        r"Mean 'loss_mean' result=[0-9.e-]+ \(state: total, count\)$", (values["metric"].value)
    ), values["metric"].value
    assert values["loss_fn"].value.startswith("MeanSquaredError 'mean_squared_error'")

    if keras_2:
        legacy = values["legacy"]
        assert re.match(
            r"SGD 'SGD' lr=0\.09[0-9]+ \(ExponentialDecay\) iterations=2", legacy.value
        ), legacy.value
        rows = s.child_map(legacy)
        assert rows["schedule"].value.startswith("ExponentialDecay(initial_learning_rate=0.1")
        shown = float(rows["learning_rate"].value)
        assert float(s.evaluate(rows["learning_rate"].evaluate_name)["result"]) == pytest.approx(
            shown, rel=1e-3
        )
        assert s.evaluate(f"{rows['schedule'].evaluate_name} is schedule")["result"] == "True"
        assert re.search(
            r"∇‖g‖=[0-9.e-]+@SGD iteration 1 Variable '[^']*'$", values["scale"].value
        ), values["scale"].value

    output = "".join(s.client.output)
    assert "capture hooks failed" not in output, output[-2000:]


def test_compiled_fit_gradients_read_alike(fit_session):
    """Compiled ``fit``: Keras 2's ``apply_gradients`` captures as Keras 3's ``apply`` does."""
    s = fit_session
    keras_2 = s.evaluate("KERAS_2", "repl")["result"] == "True"
    values = s.locals()
    assert re.match(
        r"22 params(?: → \[[^\]]*\])?, 2 layers, ∇‖g‖=[0-9.e-]+@Adam iteration 3, "
        r"Sequential 'sequential'$",
        values["model"].value,
    ), values["model"].value
    weight = s.evaluate("model.trainable_weights[0]")
    rows = {c.name: c for c in s.client.variables(weight["variablesReference"])}
    assert rows["∇ gradient"].value.startswith("∇ Adam iteration 3 ‖g‖="), rows["∇ gradient"]
    if keras_2:
        assert re.search(
            r"∇‖g‖=[0-9.e-]+@SGD iteration 3, Sequential '[^']*'$", values["legacy"].value
        ), values["legacy"].value


def test_compiled_fit_layer_outputs_read_alike(fit_session):
    """Compiled ``fit``: each layer's ``→ output`` under Keras 2 (its ``Layer.__call__``)
    as under Keras 3: the last step's output, equal to its batch through the weights from
    before that step."""
    s = fit_session
    for index, shape in ((0, "[16, 3]"), (1, "[16, 1]")):
        layer = s.evaluate(f"model.layers[{index}]")
        assert layer["variablesReference"], layer
        rows = [
            c
            for c in s.client.variables(layer["variablesReference"])
            if c.name.startswith("→ output")
        ]
        assert len(rows) == 1, rows
        assert rows[0].name.startswith("→ output (in compiled step '"), rows[0].name
        assert f"float32{shape}" in rows[0].value, rows[0].value
        assert s.evaluate(rows[0].evaluate_name)["result"] == rows[0].value
        if index == 0:
            same = (
                f"__import__('numpy').allclose(({rows[0].evaluate_name}).numpy(), expected, "
                "rtol=1e-6, atol=1e-6)"
            )
            assert s.evaluate(same, "repl")["result"] == "True"
    output = "".join(s.client.output)
    assert "activation capture" not in output, output[-2000:]


def test_compiled_fit_last_step_batch_reads_alike(fit_session):
    """Compiled ``fit``'s ``last step`` group under Keras 2 (its ``train_step(data)`` is
    reached through ``make_train_function``'s ``run_step``, handed to the strategy's
    ``run``) as under Keras 3: the inputs and targets of the last step, after the data
    adapter, equal to the program's last batch; nothing of the model's was changed."""
    s = fit_session
    found = s.evaluate("model")
    rows = s.client.variables(found["variablesReference"])
    groups = [c for c in rows if c.name.startswith("last step")]
    assert [g.name for g in groups] == ["last step (the batch it was given)"], [
        c.name for c in rows
    ]
    assert groups[0].value.startswith("inputs[16, 5], targets[16, 1] (the batch compiled step"), (
        groups[0].value
    )
    assert s.evaluate(groups[0].evaluate_name)["result"] == groups[0].value
    parts = {c.name: c for c in s.client.variables(groups[0].reference)}
    assert set(parts) == {"inputs", "targets"}, parts
    for role, data in (("inputs", "x"), ("targets", "y")):
        same = (
            f"__import__('numpy').array_equal(({parts[role].evaluate_name}).numpy(), {data}[48:])"
        )
        assert s.evaluate(same, "repl")["result"] == "True", role
    # no attribute of the plugin's on the model (stock shows every instance attribute)
    assert (
        s.evaluate("[k for k in vars(model) if 'tfdr' in k or 'debug_repr' in k]")["result"] == "[]"
    )
    output = "".join(s.client.output)
    assert "activation capture" not in output, output[-2000:]
