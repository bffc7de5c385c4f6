"""A small DAP client (tests, demo, benchmarks), ``python -m tf_debug_repr demo`` (``runner``)
and the program it shows (``examples/demo.py``)."""
