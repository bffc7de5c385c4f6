"""Code and settings as a notebook user sees them.

ipykernel compiles each cell under a file name the user never sees
(``/tmp/ipykernel_812/4041487547.py``); IPython keeps which execution count each name got
(``CachingCompiler._filename_map``, what its tracebacks read for ``Cell In[4], line 10``).
A notebook has no launch configuration either: its environment is set with ``%env``.
Looked up through ``sys.modules``: nothing here imports IPython.
"""

from __future__ import annotations

import os
import sys


def cell_number(filename: str) -> int | None:
    """The execution count of the cell compiled as ``filename``, or None (not a cell, or
    no IPython shell in this process)."""
    module = sys.modules.get("IPython.core.interactiveshell")
    shell_class = getattr(module, "InteractiveShell", None)
    try:
        if shell_class is None or not shell_class.initialized():
            return None
        names = getattr(getattr(shell_class.instance(), "compile", None), "_filename_map", None)
        number = names.get(filename) if isinstance(names, dict) else None
    except Exception:
        return None
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def site_text(filename: str, line: int, full_path: bool = False) -> str:
    """``cell [4], line 10`` for a notebook cell; ``train.py:10`` (the whole path when
    ``full_path``) for a file."""
    number = cell_number(filename)
    if number is not None:
        return f"cell [{number}], line {line}"
    return f"{filename if full_path else os.path.basename(filename)}:{line}"


def in_kernel() -> bool:
    """Does this process run a Jupyter kernel (any front end: JupyterLab, VS Code)?"""
    return "ipykernel.kernelbase" in sys.modules


def setting(assignment: str) -> str:
    """Where to put an environment setting such as ``TF_DEBUG_REPR_EAGER=1``, for this
    process's host: ``%env …`` in a notebook (read when TF is imported), the launch
    configuration's ``env`` otherwise."""
    if in_kernel():
        return (
            f"%env {assignment} in the notebook's first cell (before import tensorflow; "
            "restart the kernel to apply it)"
        )
    return f"{assignment} in the launch configuration's env"
