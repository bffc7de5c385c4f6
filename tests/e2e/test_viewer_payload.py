"""The tensor viewer's payload fetched as the extension fetches it: DAP ``evaluate`` with
``context: "clipboard"`` in a real debugpy session stopped in a TF program, decoded from
the repr (quotes, base64, UTF-8, JSON), checked against the program's known values."""

from __future__ import annotations

import base64
import time

import numpy as np
import pytest

from tf_debug_repr.viewer.payload import decode

from ..conftest import start_stopped

pytestmark = pytest.mark.e2e

PROGRAM = "viewer_values.py"


def fetch(s, expr: str, **request) -> dict:
    """What the extension evaluates in the selected frame (docs/tensor-viewer.md)."""
    args = {"axes": None, "index": None, "region": None, "part": None, **request}
    call = ", ".join(f"{k}={v!r}" for k, v in args.items())
    result = s.evaluate(f"__import__('tf_debug_repr').view_payload(({expr}), {call})", "clipboard")
    return decode(result["result"])


def cells(p: dict) -> np.ndarray:
    s = p["slice"]
    return np.frombuffer(base64.b64decode(s["values"]), "<f4").reshape(s["height"], s["width"])


def marks(p: dict) -> np.ndarray:
    s = p["slice"]
    return np.frombuffer(base64.b64decode(s["mask"]), np.uint8).reshape(s["height"], s["width"])


@pytest.fixture(scope="module")
def values():
    """One session on PROGRAM, shared by the tests that only read it (payloads and saves
    read values; none resumes or assigns)."""
    session = start_stopped(PROGRAM)
    yield session
    session.client.close()


def test_payloads_of_a_tensor_a_variable_a_keras_weight_and_a_gradient(values):
    s = values

    cube = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10.0
    cube[1, 2, 3] = np.nan
    p = fetch(s, "cube", axes=[0, 1], index=[None, None, 3])
    assert p["error"] is None and p["kind"] == "tensor" and p["shape"] == [2, 3, 4]
    assert p["summary"].startswith("float32[2, 3, 4] ‼ NaN×1")
    assert p["slice"]["index"] == [None, None, 3]
    np.testing.assert_array_equal(cells(p)[marks(p) == 0], cube[:, :, 3][marks(p) == 0])
    assert marks(p).tolist() == [[0, 0, 0], [0, 0, 1]]
    assert p["stats"]["nan"] == 1 and p["stats"]["min"] == -10.0 and p["stats"]["max"] == 12.0
    assert sum(p["histogram"]["counts"]) == 23

    w = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]], np.float32)
    p = fetch(s, "w", axes=[0, 1])
    assert p["kind"] == "variable" and p["summary"].startswith("float32[2, 3] ")
    assert p["summary"].endswith(" Variable 'w'")
    assert cells(p).tolist() == w.tolist() and p["slice"]["signed"] is True
    assert p["stats"]["zeros"] == 1 and p["stats"]["mean"] == pytest.approx(w.mean())

    p = fetch(s, "layer.kernel", axes=[1, 0])  # transposed
    assert p["kind"] == "variable" and "dense/kernel" in p["summary"]
    assert cells(p).tolist() == [[1, 4], [2, 5], [3, 6]]

    p = fetch(s, "__import__('tf_debug_repr').gradient_of(w)", axes=[0, 1])
    assert p["error"] is None, p["error"]
    assert cells(p).tolist() == (2 * w).tolist()
    same = s.evaluate("bool((grad == __import__('tf_debug_repr').gradient_of(w)).numpy().all())")
    assert same["result"] == "True"

    p = fetch(s, "images")
    image = p["image"]
    assert (image["layout"], image["count"], image["columns"], image["scale"]) == (
        "NHWC",
        4,
        2,
        "uint8",
    )
    pixels = np.frombuffer(base64.b64decode(image["rgba"]), np.uint8).reshape(16, 16, 4)
    expected = (np.arange(4 * 8 * 8 * 3) % 256).reshape(4, 8, 8, 3)
    assert pixels[8:, 8:, :3].tolist() == expected[3].tolist()  # the fourth tile, bottom right


def test_a_megabyte_payload_comes_whole_and_bad_input_reads_as_an_error(values, tmp_path):
    s = values
    started = time.monotonic()
    result = s.evaluate(
        "__import__('tf_debug_repr').view_payload((matrix), axes=[0, 1], index=None, "
        "region=None, part=None)",
        "clipboard",
    )["result"]
    elapsed = time.monotonic() - started
    assert len(result) > 1_300_000, "pydevd cut the clipboard result"
    p = decode(result)
    assert (p["slice"]["height"], p["slice"]["width"], p["slice"]["step"]) == (440, 450, [1, 1])
    expected = (np.arange(440 * 450, dtype=np.float32) / np.float32(1000.0)).reshape(440, 450)
    np.testing.assert_array_equal(cells(p), expected)
    assert elapsed < 30, elapsed

    assert fetch(s, "words")["error"] == "strings: no numbers to draw"
    assert fetch(s, "w", axes=[0, 5])["error"] == "axis 5 is out of range for rank 2"
    assert fetch(s, "layer")["error"] == "a keras layer has no tensor values to draw"
    # An expression that fails before view_payload runs: pydevd answers success with the
    # exception's repr, not a quoted string (the extension shows it as the error).
    failed = s.evaluate(
        "__import__('tf_debug_repr').view_payload((no_such_name), axes=None)", "clipboard"
    )["result"]
    assert failed == "NameError(\"name 'no_such_name' is not defined\")"
    assert fetch(s, "w")["error"] is None, "the session still answers"

    # Save as .npy, as the extension asks for it: the whole value, through the debuggee.
    path = tmp_path / "w it's.npy"
    saved = s.evaluate(f"__import__('tf_debug_repr').save_npy((w), {str(path)!r})", "clipboard")
    assert saved["result"] == repr(f"saved float32[2, 3] (24 B) to {path}")
    assert np.load(path).tolist() == [[1.0, -2.0, 3.0], [0.5, 0.0, -1.5]]
    strings = s.evaluate(
        f"__import__('tf_debug_repr').save_npy((words), {str(path)!r})", "clipboard"
    )
    assert strings["result"] == repr(f"saved string[2] (2 B) to {path}")
    assert np.load(path).tolist() == [b"a", b"b"]  # fixed-width bytes: no pickle needed
