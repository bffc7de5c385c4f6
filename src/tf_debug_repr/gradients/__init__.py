"""The capture: what the program's steps leave for the views to read. Gradients (hooks on
``GradientTape`` and the Keras optimizer, and inside compiled steps), the weak records per
source, norms and figures, why a gradient is None; and each Keras layer's output and a
step's batch from compiled steps (``activations``). It reads no view: the gradient rows
are ``views/gradients.py``."""
