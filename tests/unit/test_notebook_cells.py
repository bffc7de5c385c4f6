"""Cells named as the notebook user sees them, and where a setting goes, with a real
IPython shell compiling a real cell (ipykernel's own file names are tested end to end in
tests/e2e/test_jupyter_cells.py)."""

from __future__ import annotations

import sys
import types

import pytest

from tf_debug_repr.core import notebook_cells

interactiveshell = pytest.importorskip("IPython.core.interactiveshell")


def test_a_cell_is_named_by_its_execution_count_and_a_file_by_its_name():
    shell = interactiveshell.InteractiveShell.instance()
    shell.run_cell("x = 1", store_history=True)
    result = shell.run_cell("def where():\n    return 1\n", store_history=True)
    assert result.success
    filename = shell.user_ns["where"].__code__.co_filename
    number = shell.execution_count - 1
    assert notebook_cells.cell_number(filename) == number
    assert notebook_cells.site_text(filename, 2) == f"cell [{number}], line 2"
    assert notebook_cells.site_text("/work/train.py", 7) == "train.py:7"
    assert notebook_cells.site_text("/work/train.py", 7, full_path=True) == "/work/train.py:7"


def test_a_setting_goes_to_env_in_a_kernel_and_to_the_launch_configuration_elsewhere(
    monkeypatch,
):
    monkeypatch.delitem(sys.modules, "ipykernel.kernelbase", raising=False)
    assert notebook_cells.setting("A=1") == "A=1 in the launch configuration's env"
    monkeypatch.setitem(sys.modules, "ipykernel.kernelbase", types.ModuleType("kernelbase"))
    assert notebook_cells.setting("A=1").startswith("%env A=1 in the notebook's first cell")
