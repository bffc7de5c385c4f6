"""End to end: what a 300 px sidebar shows of each value of TF's DCGAN tutorial, stopped in
its train_step as a user stops there (a real debugpy session, the Variables pane and Watch).

VS Code's default sidebar shows about 30 characters of a value beside a short name, 45
beside none, and the row's tooltip about 80 more. So the most telling characters come
first: a scalar's value; dtype, shape and range of a tensor or variable; what a tape
computed; a layer's parameter count and output shape. Names and flags the row already
shows, or that rarely matter, come last.
"""

from __future__ import annotations

import re

import pytest

from ..conftest import start_stopped

pytestmark = pytest.mark.e2e

NUMBER = r"-?\d[\d.e+-]*"
RANGE = rf"x∈~?\[{NUMBER}, {NUMBER}\]"  # ~: sampled, past the panes' time budget
SHORT, NARROW, TOOLTIP = 30, 45, 80  # characters seen: beside a name, alone, in a tooltip


@pytest.fixture(scope="module")
def s():
    session = start_stopped("real/dcgan_tutorial.py", marker="APPLY_BREAKPOINT")
    yield session
    session.client.close()


def tensor_row(value: str, head: str) -> None:
    """dtype and shape in the first 30 characters, the whole range in 45, mean and std in 80."""
    assert value[:SHORT].startswith(head), value
    assert re.match(rf"{re.escape(head)} {RANGE}", value[:NARROW]), value
    assert "μ" in value[:TOOLTIP] and "σ" in value[:TOOLTIP], value


def test_every_kind_puts_its_figures_first_and_its_name_last(s):
    local = {name: row.value for name, row in s.locals().items()}
    for name in ("gen_loss", "disc_loss"):  # the value, whole, then dtype and device
        assert re.fullmatch(rf"{NUMBER} float32 CPU:0", local[name]), local[name]
        assert len(local[name]) <= SHORT
    for name in ("generated_images", "images"):
        tensor_row(local[name], "float32[64, 28, 28, 1]")
    for name in ("real_output", "fake_output"):
        tensor_row(local[name], "float32[64, 1]")
    tensor_row(local["noise"], "float32[64, 100]")
    # A list of gradients: how many and how big, then the first shapes.
    gradients = local["gradients_of_generator"]
    assert re.match(r"10 tensors, [\d.]+ MiB: \[", gradients[:SHORT]), gradients
    assert "float32[100, 12544]" in gradients[:NARROW]
    assert re.match(r"6 tensors, [\d.]+ KiB: \[", local["gradients_of_discriminator"][:SHORT])
    # A tape: what it computed, its state; "persistent" only when it is; the class last.
    assert local["gen_tape"][:NARROW].startswith("10 gradients of gen_loss, used up")
    assert local["disc_tape"][:NARROW].startswith("6 gradients of disc_loss, used up")
    for name in ("gen_tape", "disc_tape"):
        assert "persistent" not in local[name] and local[name].endswith(", GradientTape")
    for name, value in local.items():  # no row spends its first characters on its name
        assert name not in value[:NARROW] and "GradientTape" not in value[:NARROW], value

    watch = {e: s.evaluate(e)["result"] for e in WATCHED}
    model = watch["generator"]
    assert model[:SHORT].startswith("2,330,944 params (8.89 MiB"), model
    assert "25,472 non-trainable) → [None, 28, 28, 1]" in model[:TOOLTIP], model
    assert model.endswith(", Sequential 'sequential'")
    dense = watch["generator.layers[0]"]
    assert dense[:SHORT].startswith("1,254,400 params (4.79 MiB)"), dense
    assert "→ [None, 12544]: kernel[100, 12544]" in dense[:TOOLTIP], dense
    assert dense.endswith(", Dense 'dense'") and "dense" not in dense[:TOOLTIP]
    norm = watch["generator.layers[1]"]
    assert norm[:NARROW].startswith("50,176 params (25,088 non-trainable)"), norm
    # Moving statistics change every step: not trainable, and not "frozen".
    mean = watch["generator.layers[1].moving_mean"]
    tensor_row(mean, "float32[12544]")
    assert mean.endswith(" Variable 'sequential/batch_normalization/moving_mean' non-trainable")
    kernel = watch["generator.trainable_variables[0]"]
    tensor_row(kernel, "float32[100, 12544]")
    assert "4.79 MiB" in kernel[:TOOLTIP] and "Variable" not in kernel[:TOOLTIP], kernel
    assert kernel.endswith(" Variable 'sequential/dense/kernel'"), kernel
    conv = watch["discriminator.layers[0].kernel"]
    tensor_row(conv, "float32[5, 5, 1, 64]")
    for expression, value in {**local, **watch}.items():
        assert "frozen" not in value and "trainable " not in value, (expression, value)


WATCHED = [
    "generator",
    "generator.layers[0]",
    "generator.layers[1]",
    "generator.layers[1].moving_mean",
    "generator.trainable_variables[0]",
    "discriminator.layers[0].kernel",
]


def test_the_gradient_label_tells_the_steps_apart_before_the_optimizer_applies(s):
    """Each step makes a fresh tape (its own count is always 1): the label counts the
    tape.gradient calls at that line, so step 1 and step 2 read apart."""
    labels = []
    for _ in range(2):
        kernel = s.evaluate("generator.trainable_variables[0]")["result"]
        found = re.search(r"∇‖g‖=\S+@(call #(\d+) at dcgan_tutorial\.py:\d+) ", kernel)
        assert found, kernel
        labels.append(found.group(1))
        gradient = s.child_map(s.locals()["gen_tape"])  # the tape's own count stays 1
        assert gradient["gradients returned last"].value.startswith("call #1,")
        s.resume_to_next_stop()
    first = int(re.search(r"#(\d+)", labels[0]).group(1))
    assert labels[1] == labels[0].replace(f"#{first}", f"#{first + 1}"), labels
