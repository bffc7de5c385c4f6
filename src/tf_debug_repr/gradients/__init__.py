"""Gradients: capture (hooks on ``GradientTape`` and the Keras optimizer, and inside compiled
steps), the weak records per source, norms and figures, why a gradient is None, and the
views that add gradient rows to every value."""
