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
