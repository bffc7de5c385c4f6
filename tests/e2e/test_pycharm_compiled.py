"""Compiled code under PyCharm's own pydevd (its XML protocol, no DAP): a breakpoint in a
``@tf.function`` stops at the first call with values, and one in a ``Dataset.map`` function
stops on tf.data's thread with that element's values, as under debugpy
(tests/e2e/test_compiled_breakpoints.py, test_compiled_datasets.py).

PyCharm's pydevd has neither debugpy's ``PyDevdAPI.run`` nor ``is_attached``: the plugin
reads its ``run`` command's flag to know an IDE is there, and traces tf.data's threads with
that pydevd's own ``settrace``."""

from __future__ import annotations

import os

import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

from ..conftest import program_path
from ..pydevd_xml_client import PydevdXmlClient
from .test_pydevd_xml import ENV, PYCHARM_PYDEVD

pytestmark = pytest.mark.e2e


def _client() -> tuple[PydevdXmlClient, dict[str, str]]:
    if not (PYCHARM_PYDEVD / "pydevd.py").exists():
        pytest.skip(f"PyCharm's pydevd is not installed in {PYCHARM_PYDEVD}: run scripts/test.sh")
    path = os.pathsep.join([str(PYCHARM_PYDEVD)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return PydevdXmlClient(pycharm=True, timeout=120), {**ENV, "PYTHONPATH": path}


def test_a_tf_function_stops_at_every_call_with_values() -> None:
    program = program_path("compiled_breakpoint.py")
    client, env = _client()
    try:
        thread, frame = client.start(program, [line_of(program, "STEP_BREAKPOINT")], env)
        for call in range(3):
            local = client.frame_vars(thread, frame)
            # x = ones + call; y = x @ w + 1 = [[4 + 4 * call + 1, 6 + 6 * call + 1]]
            expected = f"x∈[{5 + 4 * call}, {7 + 6 * call}]"
            assert local["y"].shown.startswith("float32[1, 2] "), local["y"].shown
            assert expected in local["y"].shown, (call, local["y"].shown)
            if call < 2:
                thread, frame = client.resume(thread)
    finally:
        client.close()


def test_a_dataset_map_function_stops_on_its_thread_with_the_element() -> None:
    program = program_path("compiled_datasets.py")
    client, env = _client()
    try:
        thread, frame = client.start(program, [line_of(program, "MAP_BREAKPOINT")], env)
        local = client.frame_vars(thread, frame)
        # the first element: features[0] = [0, 1], its label 0; centred by the mean [5, 6]
        assert local["x"].shown.startswith("float32[2] "), local["x"].shown
        assert "[0., 1.]" in local["x"].shown, local["x"].shown
        assert "[-1.25, -1.25]" in local["scaled"].shown, local["scaled"].shown
        assert local["y"].shown.startswith("0 int64"), local["y"].shown
    finally:
        client.close()
