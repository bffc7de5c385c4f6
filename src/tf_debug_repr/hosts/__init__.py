"""The hosts that show the views' plain answers: pydevd (debugpy's VS Code, PyCharm, PyDev),
the notebook, and the demo's small DAP client."""
