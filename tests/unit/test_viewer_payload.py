"""The tensor viewer's payload (docs/tensor-viewer.md) on real TF values, decoded as the
extension decodes it: every dtype, N-D slicing, NaN/Inf marks, the byte budget, the
histogram against numpy's, image mode, and the harmlessness guarantees."""

from __future__ import annotations

import base64
import math

import keras
import ml_dtypes
import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.eager import record
from tensorflow.python.framework import dtypes as tf_dtypes
from tensorflow.python.framework import op_callbacks

import tf_debug_repr
from tf_debug_repr.viewer import histograms
from tf_debug_repr.viewer import payload as viewer_payload

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
SMALL_INTS = ["int2", "int4", "uint2", "uint4"]
QUANTIZED = ["qint8", "quint8", "qint16", "quint16", "qint32"]
FLOATS = ["float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2"]
HOST_FLOATS = ["float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz", "float4_e2m1fn"]


@tf.autograph.experimental.do_not_convert  # called from traced functions below, as written
def payload(value, **request) -> dict:
    """The payload as the extension reads it: the repr of view_payload's string (what
    pydevd sends for ``context: "clipboard"``), unquoted, base64, UTF-8, JSON."""
    text = repr(tf_debug_repr.view_payload(value, **request))
    assert text[0] == text[-1] == "'" and set(text[1:-1]) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
    )
    return viewer_payload.decode(text)


def cells(p: dict) -> np.ndarray:
    s = p["slice"]
    values = np.frombuffer(base64.b64decode(s["values"]), "<f4")
    return values.reshape(s["height"], s["width"])


def marks(p: dict) -> np.ndarray:
    s = p["slice"]
    return np.frombuffer(base64.b64decode(s["mask"]), np.uint8).reshape(s["height"], s["width"])


def small_values(name: str = "") -> np.ndarray:
    """0..4 with three zeros; 0..1 (six zeros) for the 2-bit integers."""
    return np.arange(12).reshape(3, 4) % (2 if name in ("int2", "uint2") else 5)


def tensor_of(name: str) -> tf.Tensor:
    base = small_values(name)
    dtype = getattr(tf_dtypes, name)
    if name in QUANTIZED:
        return tf.constant(base.astype(np.dtype(name.lstrip("q"))), dtype=dtype)
    return tf.constant(base.astype(dtype.as_numpy_dtype))


# --------------------------------------------------------------------------- dtypes


@pytest.mark.parametrize("name", INTS + SMALL_INTS + QUANTIZED + FLOATS + HOST_FLOATS)
def test_every_real_dtype_gives_its_values_figures_and_histogram(name):
    p = payload(tensor_of(name))
    assert p["error"] is None, p["error"]
    assert p["dtype"] == name and p["shape"] == [3, 4] and p["kind"] == "tensor"
    assert p["summary"].startswith(f"{name}[3, 4]")
    base = small_values(name)
    assert cells(p).tolist() == base.astype(np.float32).tolist()
    assert marks(p).tolist() == [[0] * 4] * 3
    stats = p["stats"]
    zeros = int((base == 0).sum())
    assert (stats["n"], stats["min"], stats["max"], stats["zeros"]) == (12, 0, base.max(), zeros)
    assert stats["mean"] == pytest.approx(base.mean())
    assert sum(p["histogram"]["counts"]) == 12
    if name in INTS + SMALL_INTS + QUANTIZED:  # one bin per integer
        assert p["histogram"]["edges"] == [v - 0.5 for v in range(base.max() + 2)]
        assert p["histogram"]["counts"] == np.bincount(base.ravel()).tolist()


def test_bool_is_drawn_as_zeros_and_ones():
    p = payload(tf.constant(small_values() > 2))
    assert p["error"] is None and p["dtype"] == "bool"
    assert cells(p).tolist() == (small_values() > 2).astype(np.float32).tolist()
    assert p["stats"]["min"] == 0 and p["stats"]["max"] == 1 and p["stats"]["zeros"] == 8
    assert p["stats"]["mean"] == pytest.approx(4 / 12)
    assert p["histogram"] == {"edges": [-0.5, 0.5, 1.5], "counts": [8, 4], "sampled": False}


@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_complex_values_show_the_part_asked_for(name):
    z = (np.arange(6).reshape(2, 3) - 2.5) + 1j * np.arange(6)[::-1].reshape(2, 3)
    t = tf.constant(z.astype(name))
    expected = {"abs": np.abs(z), "angle": np.angle(z), "real": z.real, "imag": z.imag}
    for part, values in expected.items():
        p = payload(t, part=None if part == "abs" else part)
        assert p["error"] is None and p["part"] == part
        np.testing.assert_allclose(cells(p), values.astype(np.float32), rtol=1e-6)
        assert p["stats"]["max"] == pytest.approx(values.max(), rel=1e-6)
    assert "part must be one of abs, angle, real, imag" in payload(t, part="phase")["error"]
    assert payload(tf.constant([1.0]), part="real")["part"] is None, "real values have no parts"


def test_strings_and_handles_say_there_is_nothing_to_draw():
    p = payload(tf.constant([["a", "b"]]))
    assert p["error"] == "strings: no numbers to draw"
    assert (
        p["dtype"] == "string" and p["shape"] == [1, 2] and p["summary"].startswith("string[1, 2]")
    )
    assert p["slice"] is None and p["histogram"] is None
    handle = payload(tf.Variable([1.0]).handle)
    assert handle["error"] == "a resource value (a handle): no numbers to draw"
    variant = tf.raw_ops.EmptyTensorList(
        element_shape=tf.constant([2]), max_num_elements=3, element_dtype=tf.float32
    )
    assert payload(variant)["error"] == "a variant value (a handle): no numbers to draw"


def test_values_of_every_kind_the_plugin_shows():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    p = payload(w)
    assert (
        p["kind"] == "variable"
        and p["summary"].startswith("float32[2, 2] x∈[1, 4]")
        and p["summary"].endswith("Variable 'w'")
    )
    assert cells(p).tolist() == [[1, 2], [3, 4]]
    k = keras.Variable(np.full((2, 3), 0.5, np.float32), name="kernel")
    p = payload(k)
    assert (
        p["kind"] == "variable"
        and "'kernel'" in p["summary"]
        and cells(p).tolist() == [[0.5] * 3] * 2
    )
    array = np.linspace(-1, 1, 6).reshape(2, 3)
    p = payload(array)
    assert p["kind"] == "numpy" and p["dtype"] == "float64" and p["device"] == "host (numpy)"
    np.testing.assert_allclose(cells(p), array.astype(np.float32))
    assert payload([[1, 2], [3, 4]])["stats"]["max"] == 4
    assert payload(3.5)["slice"]["height"] == 1 and cells(payload(3.5)).tolist() == [[3.5]]
    bf = np.array([1.5, -2.0], ml_dtypes.bfloat16)
    assert cells(payload(bf)).tolist() == [[1.5, -2.0]]
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([3]), tf.constant([5, 2]))
    p = payload(slices)
    assert p["kind"] == "indexed slices" and p["shape"] == [1, 2]
    assert "the 1 rows held (.values), not the dense [5, 2] tensor" in p["summary"]
    sparse = tf.sparse.SparseTensor([[0, 1], [2, 3]], [4.0, 5.0], [3, 4])
    p = payload(sparse)
    assert p["kind"] == "sparse tensor" and cells(p).tolist() == [[4.0, 5.0]]
    assert p["summary"].endswith("showing the 2 values held (.values), not the dense [3, 4] tensor")
    ragged = tf.ragged.constant([[1, 2, 3], [], [4]])
    p = payload(ragged)
    assert p["kind"] == "ragged tensor" and cells(p).tolist() == [[1, 2, 3, 4]]


def test_an_eager_tensor_array_is_drawn_as_its_elements_stacked_without_stack(tmp_path):
    # TF's actor-critic tutorial collects an episode in dynamic-size TensorArrays
    values = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for t, v in enumerate([0.5, -1.0, 2.0]):
        values = values.write(t, [v, 2 * v])
    p = payload(values)
    assert (p["error"], p["kind"], p["dtype"], p["shape"]) == (
        None,
        "tensor array",
        "float32",
        [3, 2],
    )
    assert cells(p).tolist() == [[0.5, 1.0], [-1.0, -2.0], [2.0, 4.0]]
    assert p["summary"].startswith("TensorArray float32 size=3")
    assert "its 3 elements stacked" in p["summary"]
    # "Save as .npy" writes the same stack
    report = tf_debug_repr.save_npy(values, str(tmp_path / "values.npy"))
    assert report.startswith("saved float32[3, 2]"), report
    assert np.load(tmp_path / "values.npy").tolist() == [[0.5, 1.0], [-1.0, -2.0], [2.0, 4.0]]
    # nothing was read: a clear_after_read array still holds every element
    assert values.read(1).numpy().tolist() == [-1.0, -2.0]
    unwritten = tf.TensorArray(tf.int32, size=3).write(0, 7)
    assert payload(unwritten)["error"] == (
        "2 of its 3 elements are not written: no stack to draw (view a written one, [i])"
    )
    with_zeros = tf.TensorArray(tf.int32, size=3).write(0, 7)
    payload(with_zeros)
    assert with_zeros._implementation._tensor_array[1] is None, "stack() would write zeros"
    assert payload(tf.TensorArray(tf.float32, size=0))["error"].startswith("empty")
    ragged = tf.TensorArray(tf.float32, size=2, infer_shape=False)
    ragged = ragged.write(0, [1.0]).write(1, [1.0, 2.0])
    assert "different shapes" in payload(ragged)["error"]

    @tf.function
    def traced():
        assert payload(tf.TensorArray(tf.float32, size=2))["error"].startswith("symbolic")
        return 0

    traced()


def test_a_symbolic_tensor_still_says_what_it_is():
    with tf.Graph().as_default():
        symbolic = tf.zeros([3, 4]) + 1.0
        p = payload(symbolic)
    assert p["error"].startswith("no value while tracing")
    assert p["summary"].startswith("symbolic float32[3, 4]")
    assert (p["dtype"], p["shape"], p["slice"]) == ("float32", [3, 4], None)


def test_values_without_numbers_get_a_readable_error():
    assert (
        payload(object())["error"] == "object is not a tensor, variable or array: nothing to draw"
    )
    assert payload(None)["error"].startswith("None: no value to draw")
    assert payload(np.array(["a"]))["error"] == "a <U1 array: no numbers to draw"
    with tf.Graph().as_default():
        symbolic = tf.constant(1.0) * 2.0
    assert "TF_DEBUG_REPR_EAGER=1" in payload(symbolic)["error"]
    inputs = keras.Input((3,))
    assert "no value while the model is being built" in payload(inputs)["error"]
    for bad in ({"budget": 0}, {"bins": "64"}, {"axes": "01"}):
        assert payload(tf.ones([2, 2]), **bad)["error"], bad


def test_the_gradient_a_tape_recorded():
    from tf_debug_repr.gradients import capture as gradient_capture

    gradient_capture.install_tape_hooks(tf)  # what the plugin does when TF is imported
    w = tf.Variable([[1.0, -2.0], [0.5, 3.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w)
    grad = tape.gradient(loss, w)
    p = payload(tf_debug_repr.gradient_of(w))
    assert p["error"] is None, p["error"]
    np.testing.assert_allclose(cells(p), grad.numpy())


# --------------------------------------------------------------------------- slicing


def test_n_d_slices_by_axes_index_and_region():
    values = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    t = tf.constant(values)
    p = payload(t)  # the last two axes, zeros elsewhere
    assert p["slice"]["axes"] == [2, 3] and p["slice"]["index"] == [0, 0, None, None]
    assert cells(p).tolist() == values[0, 0].tolist()
    p = payload(t, axes=[1, 3], index=[1, 0, -1, 0])
    assert p["slice"]["axes"] == [1, 3] and p["slice"]["index"] == [1, None, 3, None]
    assert (p["slice"]["rows"], p["slice"]["cols"]) == (3, 5)
    assert cells(p).tolist() == values[1, :, 3, :].tolist()
    p = payload(t, axes=[-1, 0], index=[None, 2, 1, None])  # rows from a later axis: transposed
    assert p["slice"]["axes"] == [3, 0] and cells(p).tolist() == values[:, 2, 1, :].T.tolist()
    p = payload(t, axes=[2, 3], index=[1, 2, 0, 0], region=[[1, 3], [2, 5]])
    assert p["slice"]["region"] == [[1, 3], [2, 5]] and (
        p["slice"]["height"],
        p["slice"]["width"],
    ) == (2, 3)
    assert cells(p).tolist() == values[1, 2, 1:3, 2:5].tolist()
    p = payload(t, axes=[0, None], index=[None, 1, 2, None])  # None: that axis's default
    assert p["slice"]["axes"] == [0, 3] and cells(p).tolist() == values[:, 1, 2, :].tolist()
    vector = payload(tf.constant([1.0, 2.0, 3.0]), axes=[0, 1])  # nothing to choose: ignored
    assert vector["slice"]["axes"] == [None, 0] and cells(vector).tolist() == [[1, 2, 3]]
    scalar = payload(tf.constant(7.0))
    assert scalar["slice"]["axes"] == [None, None] and cells(scalar).tolist() == [[7.0]]


@pytest.mark.parametrize(
    "request_, message",
    [
        ({"axes": [0, 4]}, "axis 4 is out of range for rank 4"),
        ({"axes": [-5, 1]}, "axis -5 is out of range for rank 4"),
        ({"axes": [1, -3]}, "name the same axis twice"),
        ({"axes": [0]}, "axes must be two axes"),
        ({"index": [2, 0, 0, 0]}, "index 2 is out of range for axis 0 of size 2"),
        ({"index": [0, 0]}, "index must hold one entry per axis (4)"),
        ({"index": [0, 1.5, 0, 0]}, "index[1] must be an integer"),
        ({"region": [[0, 5], [0, 5]]}, "region [0, 5] is not inside the 4 rows"),
        ({"region": [[2, 2], [0, 5]]}, "region [2, 2] is not inside the 4 rows"),
        ({"region": [[0, 4], [-1, 5]]}, "region [-1, 5] is not inside the 5 columns"),
    ],
)
def test_a_bad_request_becomes_the_error_and_keeps_the_figures(request_, message):
    p = payload(tf.zeros([2, 3, 4, 5]), **request_)
    assert message in p["error"]
    assert p["summary"].startswith("float32[2, 3, 4, 5]") and p["slice"] is None
    assert p["stats"]["n"] == 120 and p["histogram"]["counts"] == [120]


def test_empty_values_have_figures_but_nothing_to_draw():
    p = payload(tf.zeros([0, 3]))
    assert p["error"] == "empty (shape [0, 3]): nothing to draw" and p["stats"]["n"] == 0


# --------------------------------------------------------------------------- marks


def test_nan_and_inf_cells_are_marked():
    t = tf.constant([[1.0, np.nan], [np.inf, -np.inf]])
    p = payload(t)
    assert marks(p).tolist() == [[0, 1], [2, 3]]
    assert np.isfinite(cells(p)).all() and (p["slice"]["min"], p["slice"]["max"]) == (1.0, 1.0)
    assert (p["stats"]["nan"], p["stats"]["posinf"], p["stats"]["neginf"]) == (1, 1, 1)
    assert p["histogram"]["counts"] == [1]  # finite values only


@pytest.mark.parametrize("name", ["float32", "bfloat16", "float16", "float64"])
def test_subnormal_values_are_drawn_as_they_are_not_flushed_to_zero(name):
    # An underflowing gradient's 1e-40: TF's CPU kernels flush subnormals to zero, so a cast
    # there drew it as 0 (found by the fuzz test: a bfloat16 9.18e-41 drawn as 0).
    tiny = {"float32": 1e-40, "bfloat16": 9.18e-41, "float16": 3e-6, "float64": 1e-310}[name]
    value = tf.constant(np.array([[tiny, -tiny, 1.0, np.nan]], np.float64), tf.as_dtype(name))
    p = payload(value)
    expected = value.numpy().astype(np.float64).astype(np.float32)
    assert expected[0, 0] != 0 or name == "float64"  # float64's 1e-310 is 0 in float32
    np.testing.assert_array_equal(cells(p)[0, :3], expected[0, :3])
    assert marks(p).tolist() == [[0, 0, 0, 1]]


def test_a_block_is_nan_if_any_element_is_then_inf_and_its_value_the_finite_mean():
    values = np.ones((100, 100), np.float32)
    values[:10, :10] = 3.0
    values[5, 5] = np.nan  # block (0, 0): NaN wins
    values[50, 50] = np.inf  # block (5, 5)
    values[99, 0] = -np.inf  # block (9, 0)
    values[90:, 90:] = np.nan  # block (9, 9): nothing finite
    values[95, 95] = np.inf
    p = payload(tf.constant(values), budget=100 * 5)  # 100 cells: blocks of 10 x 10
    assert p["slice"]["step"] == [10, 10] and p["slice"]["reduce"] == "mean"
    m = marks(p)
    assert (m[0, 0], m[5, 5], m[9, 0], m[9, 9]) == (1, 2, 3, 1)
    assert int((m > 0).sum()) == 4
    c = cells(p)
    assert c[0, 0] == 3.0 and c[5, 5] == 1.0 and c[9, 0] == 1.0 and c[9, 9] == 0.0
    assert (p["slice"]["min"], p["slice"]["max"]) == (1.0, 3.0)  # the empty block is left out


# --------------------------------------------------------------------------- budget


def test_a_big_matrix_comes_down_to_the_budget_by_block_means():
    big = tf.random.stateless_normal([4096, 4096], seed=[1, 2])
    p = payload(big)
    s = p["slice"]
    sent = len(base64.b64decode(s["values"])) + len(base64.b64decode(s["mask"]))
    assert sent <= 1_000_000 and s["step"][0] > 1 and s["reduce"] == "mean"
    assert p["stats"]["moments_sampled"] and not p["stats"]["sampled"], "min/max stay exact"
    assert "μ≈" in p["summary"] and not payload(tf.ones([3, 3]))["stats"]["moments_sampled"]
    assert s["height"] == -(-4096 // s["step"][0]) and s["width"] == -(-4096 // s["step"][1])
    sr, sc = s["step"]
    expected = big.numpy()[sr : 2 * sr, 3 * sc : 4 * sc].mean()
    assert cells(p)[1, 3] == pytest.approx(expected, abs=1e-6)
    small = payload(big, budget=10_000, region=[[0, 1000], [0, 3000]])
    s = small["slice"]
    assert s["height"] * s["width"] * 5 <= 10_000 and s["height"] * s["width"] > 10_000 / 5 / 2
    thin = payload(tf.zeros([1, 1_000_000]), budget=50_000)
    assert thin["slice"]["step"] == [1, 100] and thin["slice"]["width"] == 10_000


# --------------------------------------------------------------------------- histogram


def test_histogram_counts_equal_numpys_on_the_finite_values():
    rng = np.random.default_rng(7)
    values = rng.normal(size=(300, 200))
    values[rng.integers(0, 300, 40), rng.integers(0, 200, 40)] = np.nan
    values[3, 4], values[5, 6] = np.inf, -np.inf
    for dtype in (np.float64, np.float32):
        array = values.astype(dtype)
        p = payload(tf.constant(array), bins=50)
        finite = array[np.isfinite(array)].astype(np.float64)
        counts, edges = np.histogram(finite, bins=50, range=(finite.min(), finite.max()))
        assert p["histogram"]["counts"] == counts.tolist()
        np.testing.assert_allclose(p["histogram"]["edges"], edges)
        assert p["stats"]["nan"] == int(np.isnan(array).sum())
    ints = rng.integers(-1000, 1000, size=5000).astype(np.int32)
    p = payload(tf.constant(ints))
    counts, _ = np.histogram(ints, bins=64, range=(ints.min(), ints.max()))
    assert p["histogram"]["counts"] == counts.tolist()


def test_a_huge_value_is_counted_from_a_strided_sample_and_says_so(monkeypatch):
    monkeypatch.setattr(histograms, "EXACT_LIMIT", 1000)
    values = np.random.default_rng(1).normal(size=5000)
    p = payload(tf.constant(values), bins=10)
    sample = values[::5]
    counts, _ = np.histogram(sample, bins=10, range=(values.min(), values.max()))
    assert p["histogram"]["sampled"] and p["stats"]["sampled"]
    assert p["histogram"]["counts"] == counts.tolist()


# --------------------------------------------------------------------------- images


def rgba(p: dict) -> np.ndarray:
    image = p["image"]
    data = np.frombuffer(base64.b64decode(image["rgba"]), np.uint8)
    rows = -(-image["count"] // image["columns"])
    return data.reshape(rows * image["tile"][0], image["columns"] * image["tile"][1], 4)


def test_an_hwc_uint8_image_is_drawn_as_is():
    pixels = np.random.default_rng(2).integers(0, 256, size=(6, 5, 3)).astype(np.uint8)
    p = payload(tf.constant(pixels))
    image = p["image"]
    assert (image["layout"], image["count"], image["columns"], image["channels"]) == (
        "HWC",
        1,
        1,
        3,
    )
    assert image["scale"] == "uint8" and image["tile"] == [6, 5]
    assert rgba(p)[..., :3].tolist() == pixels.tolist() and (rgba(p)[..., 3] == 255).all()
    assert p["slice"]["axes"] == [0, 1], "the slice shows height x width by default"
    assert cells(p).tolist() == pixels[:, :, 0].astype(np.float32).tolist()
    assert payload(tf.zeros([2, 3, 8, 8]))["slice"]["axes"] == [2, 3]  # NCHW
    assert payload(tf.zeros([2, 3, 8, 8]), axes=[-2, -1])["slice"]["axes"] == [2, 3]
    assert payload(tf.zeros([2, 8, 8, 3]), axes=[-2, -1])["slice"]["axes"] == [2, 3], "as asked"


def test_float_light_levels_in_0_255_are_drawn_as_they_are():
    """What image_dataset_from_directory and resizing give: float32 light levels. A batch of
    dark photos stays dark (a stretch over its min..max would brighten it); floats that never
    reach 64 (a feature map in [0, 5]) are still stretched, as are values below 0."""
    dark = np.random.default_rng(5).uniform(10, 90, size=(4, 6, 5, 3)).astype(np.float32)
    p = payload(tf.constant(dark))
    assert (p["image"]["layout"], p["image"]["scale"]) == ("NHWC", "pixels")
    grid = rgba(p)
    assert grid[:6, :5, :3].tolist() == np.round(dark[0]).tolist()
    assert grid[:6, :5, :3].max() <= 90
    assert payload(tf.constant(dark / 20))["image"]["scale"] == "normalised"
    assert payload(tf.constant(dark - 50))["image"]["scale"] == "normalised"
    assert payload(tf.constant(dark * 4))["image"]["scale"] == "normalised"  # past 255


def test_chw_in_unit_range_is_scaled_and_nchw_beyond_it_normalised():
    unit = np.linspace(0, 1, 3 * 10 * 12).reshape(3, 10, 12).astype(np.float32)
    p = payload(tf.constant(unit))
    assert (p["image"]["layout"], p["image"]["scale"]) == ("CHW", "unit")
    assert rgba(p)[..., 0].tolist() == np.round(unit[0] * 255).tolist()
    wide = np.arange(2 * 1 * 3 * 3, dtype=np.float32).reshape(2, 1, 3, 3) * 10 - 50
    p = payload(tf.constant(wide))
    assert (p["image"]["layout"], p["image"]["scale"], p["image"]["channels"]) == (
        "NCHW",
        "normalised",
        1,
    )
    grid = rgba(p)  # two tiles side by side, grey
    expected = np.round((wide[:, 0] - wide.min()) / (wide.max() - wide.min()) * 255)
    assert grid[:, :3, 0].tolist() == expected[0].tolist()
    assert grid[:, 3:, 1].tolist() == expected[1].tolist()


def test_a_uint8_segmentation_mask_is_stretched_not_drawn_black():
    # keras-io oxford_pets: trimaps as uint8 class ids 0-2, [batch, h, w, 1]
    mask = np.zeros((2, 8, 8, 1), np.uint8)
    mask[:, 2:6, 2:6] = 1
    mask[:, 3:5, 3:5] = 2
    p = payload(tf.constant(mask))
    assert (p["image"]["layout"], p["image"]["scale"]) == ("NHWC", "normalised")
    grey = rgba(p)[:8, :8, 0]
    assert grey.tolist() == np.round(mask[0, :, :, 0] * 127.5).tolist()  # 0, 128, 255
    photo = np.random.default_rng(3).integers(0, 256, size=(2, 8, 8, 3)).astype(np.uint8)
    assert payload(tf.constant(photo))["image"]["scale"] == "uint8"


def test_a_conv_kernel_is_a_heatmap_not_an_image_grid():
    # [3, 3, 3, 8] (an RGB model's first Conv2D) reads as NCHW, [3, 3, 16, 1] as NHWC
    for shape in ([3, 3, 3, 8], [3, 3, 16, 1], [1, 1, 3, 16], [7, 7, 16, 3]):
        kernel = tf.random.stateless_normal(shape, seed=[1, 2])
        for value in (kernel, tf.Variable(kernel, name="conv2d/kernel")):
            p = payload(value)
            assert p["image"] is None and p["slice"]["axes"] == [2, 3], (shape, p["image"])
    # Conv1D's [k, in, out] reads as CHW: known by its name
    conv1d = keras.layers.Conv1D(16, 3)
    conv1d.build((None, 20, 16))
    assert payload(conv1d.kernel)["image"] is None
    assert payload(tf.Variable(tf.zeros([3, 16, 16]), name="conv1d/kernel"))["image"] is None
    # images stay images: a batch, a variable holding an image (style transfer's)
    assert payload(tf.zeros([8, 28, 28, 1]))["image"]["layout"] == "NHWC"
    assert payload(tf.Variable(tf.zeros([1, 32, 32, 3]), name="image"))["image"] is not None
    assert payload(tf.zeros([3, 16, 16]))["image"]["layout"] == "CHW"


def test_3d_noise_and_small_stacks_of_matrices_are_not_pictures():
    """float32[3, 40, 50] noise, and docs' [3, 4, 5] range, are heatmaps of x[0, :, :]; a
    smooth picture of the same shape, channels last too, and uint8 noise are images."""
    rng = np.random.default_rng(7)
    for noise in (
        rng.normal(size=(3, 40, 50)),
        rng.uniform(size=(3, 40, 50)),
        rng.uniform(0, 255, size=(40, 50, 3)),
    ):
        p = payload(tf.constant(noise.astype(np.float32)))
        assert p["image"] is None and p["slice"] is not None, noise.shape
    assert payload(tf.reshape(tf.range(60.0), [3, 4, 5]))["image"] is None
    rows, cols = np.mgrid[0:40, 0:50]
    smooth = np.stack([rows / 40, cols / 50, (rows + cols) / 90]).astype(np.float32)
    smooth += rng.normal(scale=0.02, size=smooth.shape).astype(np.float32)  # a little grain
    assert payload(tf.constant(smooth))["image"]["layout"] == "CHW"
    assert payload(tf.constant(np.moveaxis(smooth, 0, -1)))["image"]["layout"] == "HWC"
    bytes_noise = rng.integers(0, 256, size=(40, 50, 3)).astype(np.uint8)
    assert payload(tf.constant(bytes_noise))["image"]["layout"] == "HWC"
    # a batch keeps its shape's word, as a 4-D value is images more often than not
    assert payload(tf.constant(rng.normal(size=(2, 40, 50, 3)), tf.float32))["image"]


def test_a_batch_becomes_a_grid_of_at_most_64_tiles_within_budget():
    batch = tf.random.stateless_uniform([70, 64, 64, 4], seed=[5, 6])
    p = payload(batch, budget=200_000)
    image = p["image"]
    assert image["layout"] == "NHWC" and image["count"] == 64 and image["columns"] == 8
    assert len(base64.b64decode(image["rgba"])) <= 100_000  # half the budget each
    assert image["tile"][0] < 64 and image["channels"] == 4
    assert (
        payload(tf.zeros([5, 7]))["image"] is None and payload(tf.zeros([4, 4, 2]))["image"] is None
    )
    last = rgba(payload(tf.ones([5, 2, 2, 1])))  # 3 columns, 2 rows: one empty, transparent tile
    assert (
        last.shape == (4, 6, 4) and (last[2:, 4:, 3] == 0).all() and (last[:2, :, 3] == 255).all()
    )


# --------------------------------------------------------------------------- harmless


def test_nothing_is_recorded_on_an_active_tape():
    x = tf.constant([[1.0, 2.0], [3.0, np.nan]])
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    recorded = []

    def note_recorded(op_type, inputs, attrs, outputs, op_name=None, graph=None):
        tensors = [t for t in inputs if hasattr(t, "dtype")]
        if tensors and record.should_record_backprop(tensors):
            recorded.append(op_type)

    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * w)
        op_callbacks.add_op_callback(note_recorded)
        try:
            for value in (x, w, y, tf.complex(x, x)):
                assert payload(value)["error"] is None
        finally:
            op_callbacks.remove_op_callback(note_recorded)
    assert recorded == ["Complex"], recorded  # the test's own tf.complex, nothing else
    assert tape.watched_variables() == (w,)
    np.testing.assert_array_equal(tape.gradient(y, w), x)


def test_inside_a_trace_no_op_is_added_to_the_graph():
    captured = tf.random.stateless_normal([64, 64], seed=[1, 1])
    w = tf.Variable(tf.ones([3, 3]))
    found = {}

    @tf.function
    def step(a):
        graph = tf.compat.v1.get_default_graph()
        before = len(graph.get_operations())
        found["captured"] = payload(captured)
        found["variable"] = payload(w)
        found["symbolic"] = payload(a)
        found["numpy"] = payload(np.ones((8, 8, 3), np.float32))
        found["added"] = len(graph.get_operations()) - before
        return a * 2

    # AutoGraph's cache of converted code objects: process-wide, so only what this trace adds
    from tensorflow.python.autograph.impl import api as autograph_api

    def converted() -> set:
        return set(autograph_api._TRANSPILER._cache._cache.keys())

    before = converted()
    step(tf.constant(1.0))
    assert found["added"] == 0
    # AutoGraph called the public functions as written: none of the plugin's code was
    # converted (converted, it took minutes here, and its ifs could become graph ops).
    new = converted() - before
    assert new, "AutoGraph converted nothing: the check below would prove nothing"
    assert not [c.co_name for c in new if "tf_debug_repr" in c.co_filename]
    assert found["captured"]["error"] is None and found["variable"]["error"] is None
    assert found["numpy"]["image"]["layout"] == "HWC"
    assert "TF_DEBUG_REPR_EAGER=1" in found["symbolic"]["error"]
    assert found["captured"]["stats"]["n"] == 64 * 64


def test_random_state_is_left_alone():
    generator = tf.random.get_global_generator()
    state = generator.state.numpy().copy()
    tf.random.set_seed(3)
    first = tf.random.uniform([4]).numpy()
    tf.random.set_seed(3)
    for value in (tf.zeros([300, 300]), tf.ones([8, 8, 3]), np.arange(10)):
        payload(value)
    assert tf.random.uniform([4]).numpy().tolist() == first.tolist()
    assert generator.state.numpy().tolist() == state.tolist()


# --------------------------------------------------------------------------- save_npy


def test_save_npy_writes_the_whole_value(tmp_path):
    w = tf.Variable(tf.reshape(tf.range(640, dtype=tf.float32), [64, 10]))
    path = tmp_path / "w.npy"
    report = tf_debug_repr.save_npy(w, str(path))
    assert report == f"saved float32[64, 10] (2.5 KiB) to {path}"
    assert np.load(path).tolist() == w.numpy().tolist()
    with tf.Graph().as_default():
        symbolic = tf.zeros([2]) + 1.0
    refused = tf_debug_repr.save_npy(symbolic, str(tmp_path / "s.npy"))
    assert (
        refused.startswith("not saved: no value while tracing")
        and not (tmp_path / "s.npy").exists()
    )


def test_the_step_always_fits_the_budget_and_is_square_where_it_can_be():
    from tf_debug_repr.viewer.slices import choose_step

    rng = np.random.default_rng(3)
    cases = [(1, 10**9, 200_000), (10**9, 1, 200_000), (7, 7, 1), (5, 5, 7), (3, 10**7, 1000)]
    cases += [tuple(int(v) for v in rng.integers(1, 50_000, 3)) for _ in range(2000)]
    for rows, cols, cells_max in cases:
        sr, sc = choose_step(rows, cols, cells_max)
        assert 1 <= sr <= rows and 1 <= sc <= cols
        assert -(-rows // sr) * -(-cols // sc) <= cells_max, (rows, cols, cells_max, sr, sc)
    assert choose_step(4096, 4096, 200_000) == (10, 10)
    assert choose_step(1, 10**9, 200_000) == (1, 5000)


# --------------------------------------------------------------------------- fuzz


def _expected_cells(value) -> np.ndarray | None:
    """The default slice of an eager tensor or variable, from its numpy values."""
    if isinstance(value, (tf.RaggedTensor, tf.SparseTensor, tf.IndexedSlices)):
        return None
    if value.dtype in (tf.string, tf.resource, tf.variant):
        return None
    array = np.asarray(value.numpy())
    if array.size == 0 or array.ndim >= 3:  # rank >= 3 may default to an image's axes
        return None
    if array.dtype.kind == "V":
        array = array.astype(np.float64)
    wide = np.abs(array) if array.dtype.kind == "c" else array.astype(np.float64)
    return wide.reshape(1, -1) if wide.ndim <= 1 else wide


def test_any_value_gives_a_bounded_payload_of_finite_json():
    from hypothesis import given

    from .test_fuzz import FUZZ, tf_values

    @FUZZ
    @given(tf_values())
    def check(value):
        p = payload(value, budget=4000, bins=16)
        assert set(p) >= {"version", "error", "summary", "slice", "histogram", "image"}
        s = p["slice"]
        if s is None:
            assert p["error"], p
            return
        assert s["height"] * s["width"] * 5 <= 4000 or s["height"] * s["width"] == 1
        m = marks(p)
        assert set(np.unique(m)) <= {0, 1, 2, 3} and s["min"] <= s["max"]
        expected = _expected_cells(value)
        if expected is not None and s["step"] == [1, 1]:
            top = np.finfo(np.float32).max
            with np.errstate(all="ignore"):
                finite = np.isfinite(expected) & (np.abs(expected) <= top)
                assert (m[~np.isfinite(expected)] > 0).all()
                np.testing.assert_array_equal(cells(p)[finite], expected[finite].astype(np.float32))
        if p["histogram"] is not None:
            counts = p["histogram"]["counts"]
            assert len(p["histogram"]["edges"]) == len(counts) + 1 and min(counts) >= 0

    check()


def test_figures_reduced_on_the_device_give_the_same_payload(monkeypatch):
    """A GPU tensor's figures come from ``stats.device_stats`` (reduced where it lives):
    forced here on CPU tensors, the payload is the one the host path gives."""
    from tf_debug_repr.core import stats

    values = np.random.default_rng(4).normal(size=(50, 60)).astype(np.float32)
    values[3, 3], values[7, 9] = np.nan, -np.inf
    ints = (np.nan_to_num(values, nan=0.0, neginf=0.0) * 10).astype(np.int32)[:5]
    tensors = [tf.constant(values), tf.constant(ints)]
    on_host = [payload(tf.identity(t)) for t in tensors]  # fresh tensors: no cached figures
    monkeypatch.setattr(stats, "is_on_host", lambda tensor: False)
    on_device = [payload(tf.identity(t)) for t in tensors]
    for a, b in zip(on_host, on_device, strict=True):
        assert a["slice"] == b["slice"] and a["histogram"] == b["histogram"]
        assert a["stats"] == pytest.approx(b["stats"])


def test_a_region_is_reduced_in_bands_of_whole_blocks_with_the_same_result(monkeypatch):
    from tf_debug_repr.viewer import slices as tensor_slices

    values = np.random.default_rng(5).normal(size=(203, 77)).astype(np.float32)
    values[100, 5], values[150, 70], values[9, 9] = np.nan, np.inf, -np.inf
    requests = [
        {"budget": 5 * 400},  # blocks of several rows
        {"budget": 5 * 30_000},  # full resolution
        {"axes": [1, 0], "budget": 5 * 300},  # transposed
        {"region": [[17, 190], [3, 70]], "budget": 5 * 500},
    ]
    whole = [payload(tf.constant(values), **r) for r in requests]
    monkeypatch.setattr(tensor_slices, "BAND_ELEMENTS", 150)  # a band of 1 or 2 rows of cells
    banded = [payload(tf.constant(values), **r) for r in requests]
    for a, b in zip(whole, banded, strict=True):
        np.testing.assert_allclose(cells(b), cells(a), rtol=1e-5, atol=1e-6)  # another sum order
        assert marks(b).tolist() == marks(a).tolist()
        same = ("axes", "index", "rows", "cols", "region", "height", "width", "step", "reduce")
        assert [b["slice"][k] for k in same] == [a["slice"][k] for k in same]


def test_images_are_drawn_a_few_at_a_time_with_the_same_grid(monkeypatch):
    from tf_debug_repr.viewer import images as tensor_images

    values = np.random.default_rng(6).normal(size=(9, 3, 20, 30)).astype(np.float32) * 4
    values[2, :, 5, 5] = np.nan  # a NaN pixel is black, whatever the scale
    requests = [{"budget": 2 * 9 * 4 * 20 * 30 * 2}, {"budget": 4000}]  # full size, downsampled
    whole = [payload(tf.constant(values), **r)["image"] for r in requests]
    monkeypatch.setattr(tensor_images, "BAND_ELEMENTS", 3 * 20 * 30 * 2)  # two images at a time
    chunked = [payload(tf.constant(values), **r)["image"] for r in requests]
    assert chunked == whole and whole[0]["scale"] == "normalised" and whole[0]["tile"] == [20, 30]
    grid = rgba({"image": whole[0]})
    assert grid[5, 2 * 30 + 5].tolist() == [0, 0, 0, 255]  # tile 2: row 0, column 2


def test_a_long_row_is_cut_into_tiles_too_with_the_same_result(monkeypatch):
    """A vector or a [1, N] value is one row: banding rows alone cut all of it at once
    (a 2^28 int8 vector took 2 GiB of float32 temporaries)."""
    from tf_debug_repr.viewer import slices as tensor_slices

    values = np.random.default_rng(7).normal(size=(3, 1000)).astype(np.float32)
    values[1, 500], values[2, 999] = np.nan, np.inf
    requests = [
        (values[0], {"budget": 5 * 1000}),  # a vector at full resolution
        (values[0], {"budget": 5 * 70}),  # a vector in blocks
        (values, {"budget": 5 * 200}),  # a thin matrix
        (values, {"region": [[1, 3], [13, 997]], "budget": 5 * 3000}),
    ]
    whole = [payload(tf.constant(v), **r) for v, r in requests]
    cut = []
    take = tensor_slices.take

    def counting_take(tensor, spec, dtype):
        piece = take(tensor, spec, dtype)
        cut.append(int(piece.shape.num_elements()))
        return piece

    monkeypatch.setattr(tensor_slices, "BAND_ELEMENTS", 150)
    monkeypatch.setattr(tensor_slices, "take", counting_take)
    tiled = [payload(tf.constant(v), **r) for v, r in requests]
    assert cut and max(cut) <= 150 * 2  # a tile: at most the band, or two blocks past it
    for a, b in zip(whole, tiled, strict=True):
        np.testing.assert_allclose(cells(b), cells(a), rtol=1e-5, atol=1e-6)
        assert marks(b).tolist() == marks(a).tolist()
        assert {k: v for k, v in b["slice"].items() if k not in ("values", "min", "max")} == {
            k: v for k, v in a["slice"].items() if k not in ("values", "min", "max")
        }


@pytest.mark.parametrize("rank", [9, 11])
def test_a_slice_of_a_value_of_more_than_8_axes(rank):
    """TF's strided slice stops at 8 axes ("Unhandled input dimensions 9")."""
    shape = [2, 3] * (rank // 2) + [2] * (rank % 2)
    values = np.random.default_rng(8).normal(size=shape).astype(np.float32)
    index = [1, 2] * (rank // 2) + [1] * (rank % 2)
    for axes in ([-2, -1], [3, 0], [1, rank - 1]):
        p = payload(tf.constant(values), axes=axes, index=index)
        assert p["error"] is None
        key = tuple(
            slice(None) if a in [x % rank for x in axes] else i for a, i in enumerate(index)
        )
        expected = values[key]
        if axes[0] % rank > axes[1] % rank:
            expected = expected.T
        np.testing.assert_array_equal(cells(p), expected)


def test_block_means_of_values_near_the_float32_limit_are_their_means():
    """A float32 block sum of values near 3e38 overflows: the mean showed as 3.4e38."""
    values = np.full([100, 100], 3e38, np.float32)
    values[::2] = -1e38
    p = payload(tf.constant(values), budget=5 * 100)
    assert p["slice"]["step"] == [10, 10]
    np.testing.assert_allclose(cells(p), 1e38, rtol=1e-6)
    assert marks(p).max() == 0


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.random.default_rng(9).normal(size=(40, 30)).astype(np.float32),
        lambda: np.asfortranarray(np.arange(1200, dtype=np.int16).reshape(40, 30)),
        lambda: np.random.default_rng(9).random((2, 3, 20, 30)).astype(np.float32),  # NCHW
        lambda: (np.arange(600) % 7 == 0).reshape(20, 30),
        lambda: np.arange(512, dtype=np.float64).reshape([2] * 9),
        lambda: ((np.arange(12.0) - 5) * (3 + 4j)).reshape(3, 4),  # |z| exact: 5|k|
    ],
)
def test_a_numpy_array_gives_the_payload_of_the_same_tensor(make):
    array = make()
    for request in ({}, {"budget": 5 * 50}, {"part": "angle"}):
        if "part" in request and array.dtype.kind != "c":
            continue
        a, t = payload(array, **request), payload(tf.constant(array), **request)
        assert a["error"] is None and t["error"] is None
        for key in ("slice", "histogram", "image"):
            assert a[key] == t[key], key
        assert a["stats"] == pytest.approx(t["stats"])


def test_a_big_numpy_array_is_not_copied_whole(tmp_path):
    """tf.constant of the whole array took twice its size (a 256 MiB array: 519 MiB
    more at the peak); now only bands, the histogram's sample and images are converted."""
    import subprocess
    import sys

    script = tmp_path / "peak.py"
    script.write_text(
        "import numpy as np, tf_debug_repr\n"
        "def peak():\n"
        "    return int([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]) * 1024\n"
        "tf_debug_repr.view_payload(np.ones((4, 4), np.float32))\n"
        "array = np.random.default_rng(0).random((1 << 14, 1 << 13), np.float32)\n"
        "before = peak()\n"
        "assert tf_debug_repr.view_payload(array)\n"
        "print((peak() - before) / array.nbytes)\n"
    )
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    share = float(out.stdout.split()[-1])
    # A whole copy alone is 1.0 of it. What is left is a few bands of 2^24 elements (64 MiB
    # each: the band, its NaN mask, TF's temporaries): 0.51 measured with TF 2.21 here.
    assert share < 0.75, f"view_payload of a 512 MiB array took {share:.2f} of its size more"


def test_a_sync_on_read_variable_in_a_replica_context_says_it_is_the_replicas_own(two_cpus):
    """Inside strategy.run a sync-on-read variable reads its own replica's value; the
    summary said it showed the SUM of the replicas (tests/unit/two_cpus_program.py)."""
    from .conftest import answer

    inside, inside_max, outside, outside_max = answer(two_cpus, "sync_on_read_in_a_replica_context")
    assert inside_max == 2.0 and "this replica's own value" in inside and "SUM of 2" in inside
    assert outside_max == 4.0 and outside.endswith("showing the SUM of 2 replicas")


def test_the_histogram_runs_only_ops_a_gpu_runs_in_device_memory(monkeypatch):
    """On a GPU, HistogramFixedWidth has kernels for int32 counts only, and Sum of int32
    keeps its input in host memory (tensorflow/core/kernels/histogram_op.cc,
    reduction_ops_sum.cc): either would copy the values to the host. (A CPU tensor is
    counted by numpy: here it takes the device path a GPU tensor takes.)"""
    monkeypatch.setattr(histograms, "_host_array", lambda tensor: None)
    ran = []

    def note(op_type, inputs, attrs, outputs, op_name=None, graph=None):
        ran.append((op_type, dict(zip(attrs[::2], attrs[1::2], strict=True)) if attrs else {}))

    values = np.random.default_rng(10).normal(size=(300, 200)).astype(np.float32)
    values[0, 0], values[1, 1] = np.nan, 0.0
    for value in (values, np.nan_to_num(values * 100).astype(np.int16)):
        t = tf.constant(value)
        lo, hi = float(np.nanmin(value)), float(np.nanmax(value))
        op_callbacks.add_op_callback(note)
        try:
            histograms.histogram(t, lo, hi, value.dtype.kind == "i", 64, True)
        finally:
            op_callbacks.remove_op_callback(note)
    assert any(op == "HistogramFixedWidth" for op, _ in ran)
    for op, attrs in ran:
        if op == "HistogramFixedWidth":
            assert attrs["dtype"] == tf.int32.as_datatype_enum, attrs
        if op == "Sum":
            assert attrs["T"] != tf.int32.as_datatype_enum, attrs


def test_figures_on_a_device_widen_a_chunk_at_a_time(monkeypatch):
    """The device path cast the whole value to float64 for its min/max and NaN counts (a
    float32 tensor filling half a GPU needed as much again); now at most a chunk, with the
    same figures."""
    from tf_debug_repr.core import stats

    values = np.random.default_rng(11).normal(size=(300, 301)).astype(np.float32)
    values[3, 4], values[50, 7], values[299, 300] = np.nan, np.inf, -np.inf
    widened = []

    def note(op_type, inputs, attrs, outputs, op_name=None, graph=None):
        if op_type == "Cast" and outputs and outputs[0].dtype == tf.float64:
            widened.append(int(outputs[0].shape.num_elements()))

    exact = stats.device_stats(tf.constant(values))
    monkeypatch.setattr(stats, "EXTREMES_CHUNK", 5000, raising=False)
    op_callbacks.add_op_callback(note)
    try:
        chunked = stats.device_stats(tf.constant(values))
    finally:
        op_callbacks.remove_op_callback(note)
    # Besides the chunks, only the moments' sample (at most SAMPLE_LIMIT elements) is widened.
    assert widened and max(widened) <= stats.SAMPLE_LIMIT < values.size
    assert max(n for n in widened if n != chunked.moments_sample) <= 5000
    assert (chunked.min, chunked.max, chunked.nan, chunked.posinf, chunked.neginf) == (
        exact.min,
        exact.max,
        1,
        1,
        1,
    )
    assert chunked.mean == pytest.approx(exact.mean) and chunked.std == pytest.approx(exact.std)
    assert exact.min == float(np.nanmin(np.where(np.isfinite(values), values, np.nan)))


# [request, shape, fits]: the requests view_payload refuses for a value of that shape, with
# "bad_request" set (a view whose value changed shape asks again for the default slice on it).
FITS = [
    ({}, [3, 4, 5], True),
    ({"axes": [0, 2], "index": [None, 1, None]}, [3, 4, 5], True),
    ({"axes": [0, 2], "index": [None, 4, None]}, [3, 4, 5], False),
    ({"axes": [0, 2], "index": [None, -4, None]}, [3, 4, 5], True),
    ({"axes": [0, 2], "index": [None, 1, None]}, [3, 4], False),
    ({"axes": [0, 2]}, [3, 4], False),
    ({"axes": [-1, 1]}, [3, 4], False),
    ({"axes": [1, 0], "region": [[0, 4], [1, 3]]}, [3, 4], True),
    ({"axes": [1, 0], "region": [[0, 4], [1, 4]]}, [3, 4], False),
    ({"axes": [0, 1], "region": [[2, 2], [0, 1]]}, [3, 4], False),
    ({"axes": [None, 0], "index": [None, None, 7]}, [2, 3, 8], True),
    ({"axes": [None, 1], "index": [None, None, 7]}, [2, 3, 8], False),
    ({"axes": [None, 0], "index": [None], "region": [[0, 1], [2, 5]]}, [5], True),
    ({"axes": [None, 0], "region": [[0, 1], [2, 6]]}, [5], False),
    ({"axes": [0, 1], "index": [None, None]}, [5], False),
    ({"axes": [5, 9]}, [5], True),
    ({"axes": [None, None], "index": []}, [], True),
    ({"index": [0]}, [], False),
    ({"region": [[0, 1], [0, 1]]}, [], True),
    ({"part": "real"}, [2, 2], True),
]


@pytest.mark.parametrize(("request_", "shape", "fits"), FITS)
def test_a_request_that_does_not_fit_the_shape_is_marked_bad_request(request_, shape, fits):
    p = payload(tf.reshape(tf.range(math.prod(shape), dtype=tf.float32), shape), **request_)
    assert p["bad_request"] is (not fits), p["error"]
    assert (p["error"] is None) is fits, p["error"]
    assert p["shape"] == shape and p["stats"] is not None  # the value's facts stay


def test_a_bad_part_is_a_bad_request_and_a_value_without_numbers_is_not():
    z = tf.complex(tf.ones((2, 2)), tf.ones((2, 2)))
    assert payload(z, part="phase")["bad_request"] is True
    assert payload(tf.constant(["a"]))["bad_request"] is False
    assert payload(tf.zeros((0, 3)))["bad_request"] is False


def test_a_host_value_is_counted_by_numpy_with_tfs_bins_and_no_op(monkeypatch):
    """A CPU tensor's or an array's histogram is counted by numpy on its buffer (a dozen
    eager ops took 2-7 ms for a [512, 512] kernel on busy cores): no TF op runs, and the
    counts, the zeros and the NaN/±Inf left out are those of TF's ops (the device path),
    for floats, integers and bools, exact and sampled."""
    rng = np.random.default_rng(27)
    floats = rng.normal(size=(300, 211)).astype(np.float32)
    floats[0, 0], floats[1, 1], floats[2, 2], floats[3, ::3] = np.nan, np.inf, -np.inf, 0.0
    cases = [
        (floats, False),
        (rng.normal(size=5000) * 1e-3, False),
        (np.linspace(-1, 1, 4097, dtype=np.float32), False),
        (rng.integers(-5, 60, 3000).astype(np.int32), True),
        (rng.integers(-1000, 1000, 3000).astype(np.int16), True),
        (rng.integers(0, 2, 999).astype(bool), True),
    ]
    monkeypatch.setattr(histograms, "EXACT_LIMIT", 1000)  # the large ones sampled
    for value, integral in cases:
        finite = value[np.isfinite(value)] if value.dtype.kind == "f" else value
        lo, hi = float(finite.min()), float(finite.max())
        for bins in (1, 7, 64):
            ran: list[str] = []

            def note(op_type, *args, ran=ran, **kwargs):
                ran.append(op_type)

            op_callbacks.add_op_callback(note)
            try:
                on_host = histograms.histogram(tf.constant(value), lo, hi, integral, bins)
                of_array = histograms.histogram(value, lo, hi, integral, bins)
            finally:
                op_callbacks.remove_op_callback(note)
            assert ran == [], ran
            with monkeypatch.context() as device_path:
                device_path.setattr(histograms, "_host_array", lambda tensor: None)
                by_ops = histograms.histogram(tf.constant(value), lo, hi, integral, bins)
            assert on_host == by_ops, (value.dtype, bins)
            assert of_array == by_ops, (value.dtype, bins)
            assert on_host.sampled == (value.size > 1000)
