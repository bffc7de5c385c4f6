"""A DCGAN loop (two tapes, two Adam optimizers; tests/programs/real/dcgan_loop.py, in the
shape of keras-io's example): the generator's and the discriminator's gradients are each
labelled by their own optimizer's iteration, never by a process-wide count, and each names
the loss it is a gradient of."""

from __future__ import annotations

import re

import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

from ..conftest import program_path

pytestmark = pytest.mark.e2e

PROGRAM = "real/dcgan_loop.py"


def _labelled(text: str, label: str) -> bool:
    """``text`` carries the mark ``@label`` (other marks may follow it)."""
    return re.search(re.escape(f"@{label}") + r"(?![\d])", text) is not None


def _optimizer(s, name: str) -> str:
    """How the labels name that optimizer: ``Adam``, or ``Adam 'adam_1'`` for the second."""
    own = s.evaluate(f"{name}.name")["result"].strip("'")
    return "Adam" if own == "adam" else f"Adam {own!r}"


def test_generator_and_discriminator_read_their_own_optimizer(debug_session):
    s = debug_session(PROGRAM)
    d_adam, g_adam = _optimizer(s, "d_optimizer"), _optimizer(s, "g_optimizer")
    assert d_adam != g_adam  # two Adams, told apart
    lines = {
        "g_loss": line_of(program_path(PROGRAM), "g_grads = gen_tape.gradient"),
        "d_loss": line_of(program_path(PROGRAM), "d_grads = disc_tape.gradient"),
    }
    for step in (0, 1):
        for model, adam, loss, grads in (
            ("generator", g_adam, "g_loss", "g_grads"),
            ("discriminator", d_adam, "d_loss", "d_grads"),
        ):
            summary = s.evaluate(model)["result"]
            assert _labelled(summary, f"{adam} iteration {step}"), (step, summary)
            kernel = s.evaluate(f"{model}.trainable_weights[0]")
            assert _labelled(kernel["result"], f"{adam} iteration {step}"), kernel["result"]
            rows = {r.name: r for r in s.client.variables(kernel["variablesReference"])}
            gradient = rows["∇ gradient"]
            assert gradient.value.startswith(f"∇ {adam} iteration {step} ‖g‖="), gradient.value
            parts = s.child_map(gradient)
            target = parts["target"].value
            assert target.startswith(f"{loss} at dcgan_loop.py:{lines[loss]} "), target
            assert parts["tape call"].value == "1"
            same = s.evaluate(f"{parts['value'].evaluate_name} is {grads}[0]")
            assert same["result"] == "True"
            history = [r.name for r in s.children(parts["‖g‖ history"])]
            assert history == [f"#{n + 1} {adam} iteration {n}" for n in range(step, -1, -1)]
        count = s.evaluate("len(generator.trainable_weights)")["result"]
        tape = s.evaluate("gen_tape")["result"]
        # what the tape computed first (issue 17's sidebar line)
        assert tape.startswith(f"{count} gradients of g_loss, used up"), tape
        if step == 0:
            s.resume_to_next_stop()
