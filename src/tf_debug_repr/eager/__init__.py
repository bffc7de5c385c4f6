"""Compiled code run as Python for the debugger: a ``tf.function`` holding a breakpoint runs
eagerly (``breakpoints``), and the ``TF_DEBUG_REPR_EAGER`` switch (``switch``)."""
