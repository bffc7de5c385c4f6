"""End to end: the plugin loads by itself in launch and attach mode, stays out of the way
of programs without TensorFlow, and leaves debugpy's own numpy/pandas views intact."""

from __future__ import annotations

import os

import pytest

from ..conftest import Stopped, attach_stopped, listening_debuggee, program_path, start_stopped

pytestmark = pytest.mark.e2e


def snapshot(s: Stopped, names: list[str]) -> dict:
    local = s.locals()
    return {
        name: (local[name].value, [(c.name, c.value) for c in s.children(local[name])])
        for name in names
    }


def test_numpy_and_pandas_views_are_unchanged():
    views = []
    for env in ({}, {"TF_DEBUG_REPR_DISABLE": "1"}):
        s = start_stopped("numpy_pandas.py", env=env)
        try:
            views.append(snapshot(s, ["array", "frame", "series"]))
        finally:
            s.client.close()
    with_plugin, stock = views
    # debugpy's numpy plugin: min/max/shape/dtype/size and a [0:n] slice.
    array_children = [name for name, _ in with_plugin["array"][1]]
    assert {"min", "max", "shape", "dtype", "size"} <= set(array_children)
    assert any(name.startswith("[0:3]") for name in array_children)
    # debugpy's pandas plugin: skips costly attributes with its own marker.
    frame_children = dict(with_plugin["frame"][1])
    assert "debugger:skipped eval" in frame_children["T"]
    assert with_plugin["frame"][0].startswith("   a    b")

    # Identical to stock debugpy, object addresses and set orders (hash-seeded) aside.
    def stable(view):
        return {
            n: (
                v,
                [
                    (c, "".join(sorted(x)) if x.startswith("{") else x)
                    for c, x in kids
                    if " at 0x" not in x
                ],
            )
            for n, (v, kids) in view.items()
        }

    assert stable(with_plugin) == stable(stock)


def test_a_program_without_tensorflow_loads_neither_tensorflow_nor_numpy(debug_session):
    s = debug_session("no_tensorflow.py")
    assert (
        s.evaluate("'tf_debug_repr.hosts.pydevd.adapter' in __import__('sys').modules")["result"]
        == "True"
    )
    assert s.evaluate("'tensorflow' in __import__('sys').modules")["result"] == "False"
    assert s.evaluate("'numpy' in __import__('sys').modules")["result"] == "False"
    assert s.locals()["words"].value == "['plain', 'python']"


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reads Linux's socket table")
def test_attach_mode_presents_tensors():
    program = program_path("attach_target.py")
    with listening_debuggee(program) as port:
        s = attach_stopped(program, port)
        try:
            value = s.locals()["activations"].value
            assert value == "float32[2, 2] x∈[0, 3] μ=1.25 σ=1.299 n=4 CPU:0 [[0., 2.], [3., 0.]]"
        finally:
            s.client.close()
