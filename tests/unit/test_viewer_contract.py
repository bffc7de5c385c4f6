"""The viewer contract (src/tf_debug_repr/viewer/contract.json) held to both sides: the
payload builder and the test payloads have exactly its fields, the notebook paints the
page's colours (asked of node running the page's own viewerCore.js), and the class names
View Tensor is offered on are the catalog's kinds with values, as real TF values name them."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tf_debug_repr.core.tf_types import Kind, kind_of
from tf_debug_repr.hosts.notebook import colour_maps
from tf_debug_repr.viewer import contract
from tf_debug_repr.viewer.payload import build

from .payload_dicts import fit, image_payload, payload

NODE = shutil.which("node")
PAGE = Path(__file__).resolve().parents[2] / "vscode-ext" / "media" / "viewer"


def _names(typename: str) -> tuple[set[str], set[str]]:
    """(all field names, required field names) of a contract type."""
    fields = contract.fields(typename)
    return {f.rstrip("?") for f in fields}, {f for f in fields if not f.endswith("?")}


def _assert_fits(obj: dict, typename: str) -> None:
    every, required = _names(typename)
    assert set(obj) <= every, f"{typename}: fields not in the contract {set(obj) - every}"
    assert required <= set(obj), f"{typename}: missing {required - set(obj)}"


def _assert_payload_fits(p: dict) -> None:
    _assert_fits(p, "Payload")
    for field, typename in (("stats", "Stats"), ("histogram", "Histogram"), ("slice", "Slice")):
        if p.get(field) is not None:
            _assert_fits(p[field], typename)
    if p.get("image") is not None:
        _assert_fits(p["image"], "Image")


def test_the_builder_sends_every_field_of_the_contract_and_no_other():
    values = np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4)
    built = build(values)
    _assert_payload_fits(built)
    assert set(built) == _names("Payload")[0]  # bad_request too: the extension reads it
    assert set(built["stats"]) == _names("Stats")[0]
    images = build(np.zeros((2, 8, 8, 3), np.uint8))
    assert images["image"] is not None
    _assert_payload_fits(images)


def test_a_bad_request_says_so_in_a_contract_field():
    answer = build(np.zeros((2, 2), np.float32), region=[[0, 9], [0, 1]])
    assert answer["error"] and answer["bad_request"] is True
    _assert_fits(answer, "Payload")


def test_the_python_test_payloads_fit_the_contract():
    _assert_payload_fits(payload(np.arange(6.0).reshape(2, 3)))
    _assert_payload_fits(image_payload(np.zeros((4, 4, 4), np.uint8), (4, 4), 1, 1))
    with pytest.raises(KeyError):
        fit("Slice", {"axes": [0, 1]})  # a required field missing
    with pytest.raises(KeyError):
        fit("Histogram", {"edges": [], "counts": [], "sampled": False, "bins": 8})


FIXTURE = """
const { payloadOf } = require(process.argv[1] + '/test/browser/fixtures.js');
const grid = JSON.parse(require('fs').readFileSync(0, 'utf8'))
  .map((row) => row.map((v) => (v === 'NaN' ? NaN : v === 'Inf' ? Infinity : v === '-Inf' ? -Infinity : v)));
console.log(JSON.stringify(payloadOf(grid)));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed (scripts/test.sh needs it)")
@pytest.mark.parametrize(
    "grid",
    [
        [[0, 1, 2, 3, 4], [5, "NaN", 7, 8, 9], [10, 11, "Inf", 13, 14], [15, 16, 17, "-Inf", 19]],
        [[-2.5, 0.0, 1.25], [3.0, -0.5, 0.0]],
    ],
    ids=["specials", "signed"],
)
def test_the_page_tests_and_the_python_tests_build_the_same_payload(grid):
    """The two test builders (vscode-ext/test/browser/fixtures.js, payload_dicts.py) make the
    same payload of the same numbers: field for field, cells byte for byte."""
    answer = subprocess.run(
        [NODE, "-e", FIXTURE, str(PAGE.parents[1])],
        input=json.dumps(grid),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    page = json.loads(answer.stdout)
    special = {"NaN": np.nan, "Inf": np.inf, "-Inf": -np.inf}
    ours = payload(np.array([[special.get(v, v) for v in row] for row in grid], np.float32))
    _assert_payload_fits(page)
    assert list(page) == list(ours)
    for part in ("stats", "histogram", "slice"):
        assert list(page[part]) == list(ours[part]), part
    assert page["slice"] == ours["slice"]
    assert page["histogram"]["counts"] == ours["histogram"]["counts"]
    assert page["histogram"]["edges"] == pytest.approx(ours["histogram"]["edges"])
    assert page["stats"] == pytest.approx(ours["stats"])
    rest = [k for k in ours if k not in ("stats", "histogram", "slice")]
    assert {k: page[k] for k in rest} == {k: ours[k] for k in rest}


def test_the_notebook_reads_its_colours_from_the_contract():
    assert colour_maps.VIRIDIS.shape == (len(contract.colour_stops("viridis")), 3)
    assert colour_maps.DIVERGING.shape == (len(contract.colour_stops("diverging")), 3)
    assert contract.special_colour("nan") == colour_maps.NAN_COLOUR
    assert set(colour_maps.MASK_COLOURS) == {
        contract.mask_code(k) for k in ("nan", "posinf", "neginf")
    }


PAINT = """
const core = require(process.argv[1] + '/viewerCore.js');
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const scale = core.scaleFor(input.slice);
console.log(JSON.stringify(input.values.map((v) => core.cellColour(scale, Math.fround(v), 0))));
"""


@pytest.mark.skipif(NODE is None, reason="node is not installed (scripts/test.sh needs it)")
@pytest.mark.parametrize(
    ("low", "high", "signed"),
    [(0.0, 1.0, False), (-3.0, 7.5, False), (-2.0, 0.5, True), (0.0, 0.0, False)],
    ids=["unit", "sequential", "diverging", "flat"],
)
def test_notebook_and_page_paint_the_same_colour_for_the_same_value(low, high, signed):
    """At t = 0.9 the notebook's old 9-stop viridis painted (138, 210, 79) where the page
    paints (188, 223, 42)."""
    values = np.float32(low) + np.linspace(0, 1, 1001, dtype=np.float32) * np.float32(high - low)
    values = np.append(values, np.float32(low + 0.9 * (high - low)))
    answer = subprocess.run(
        [NODE, "-e", PAINT, str(PAGE)],
        input=json.dumps(
            {
                "slice": {"min": low, "max": high, "signed": signed},
                "values": [float(v) for v in values],
            }
        ),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    page = np.array(json.loads(answer.stdout), np.uint8)
    anchors, bar_low, bar_high = colour_maps.scale_of(low, high, signed)
    notebook = colour_maps.colour(values.astype(np.float64), bar_low, bar_high, anchors)
    differ = np.flatnonzero((page != notebook).any(axis=1))
    assert differ.size == 0, [(float(values[i]), page[i], notebook[i]) for i in differ[:5]]
    if (low, high) == (0.0, 1.0):
        assert tuple(page[-1]) == (188, 223, 42)


# --------------------------------------------------------------------------- kinds


def _catalog():
    pytest.importorskip("tensorflow")
    from tf_debug_repr import views

    return views.build_table()


def test_view_tensor_is_offered_on_every_kind_with_values_and_only_those():
    """A kind whose catalog row draws values (``source``) or says why it has none here
    (``no_values``) is offered, unless the contract says why not; a new such kind fails
    here until its class names are in the contract."""
    table = _catalog()
    drawable = {k.value for k, r in table.items() if r.source is not None or r.no_values}
    offered = {v for v in contract.viewable_types().values() if v is not None}
    offered |= {a["kind"] for a in contract.contract()["viewable_types"]["ambiguous"].values()}
    not_offered = set(contract.contract()["viewable_types"]["not_offered"])
    assert offered | not_offered == drawable
    assert not offered & not_offered
    assert offered <= {k.value for k in Kind}


def test_the_offered_class_names_are_those_of_real_values():
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    types = contract.viewable_types()
    real = [
        tf.constant(1.0),
        tf.Variable(1.0),
        tf.IndexedSlices(tf.constant([1.0]), tf.constant([0])),
        tf.sparse.from_dense([[1.0, 0.0]]),
        tf.ragged.constant([[1.0], []]),
        tf.TensorArray(tf.float32, size=1),
        np.zeros(2),
    ]
    for value in real:
        name = type(value).__name__
        assert name in types, name
        kind = kind_of(value)
        assert types[name] == (kind.value if kind is not None else None), name
    assert type(keras.Input((2,))).__name__ not in types  # not offered (the contract says why)
    variable = keras.Variable(1.0)
    ambiguous = contract.contract()["viewable_types"]["ambiguous"][type(variable).__name__]
    assert ambiguous["kind"] == kind_of(variable).value


def test_view_tensor_is_not_offered_on_rows_without_numbers_and_is_on_their_neighbours():
    """Each offered class's rows as the Variables pane gets them (the plugin's summary; for
    numpy arrays debugpy's repr), of real values: a string or handle value (whose payload
    only says it has no numbers to draw) is not offered, a numeric one of the same class is,
    and draws. The extension reads the same patterns (tests/unit/test_viewer_walk.py)."""
    tf = pytest.importorskip("tensorflow")
    from _pydevd_bundle.pydevd_safe_repr import SafeRepr
    from _pydevd_bundle.pydevd_xml import get_variable_details

    from tests.e2e import viewer_walk
    from tf_debug_repr.hosts.demo.dap_client import Variable
    from tf_debug_repr.hosts.pydevd.adapter import TensorStrProvider

    def row(value):
        name = type(value).__name__
        if isinstance(value, np.ndarray):  # not the plugin's: debugpy's own repr
            text = get_variable_details(value, to_string=SafeRepr(), context="variables")[-1]
        else:
            text = TensorStrProvider().get_str_in_context(value, "variables")
        return Variable("v", text, name, 1, "v", {})

    def written(array, value):
        array.write(0, value).mark_used()  # an eager array is written in place
        return array

    without = [
        tf.constant(b"hello"),
        tf.constant([b"a", b"bb"]),
        tf.constant([b"x" * 5000] * 40),
        tf.constant([], tf.string),
        tf.Variable([b"a", b"b"]),
        tf.Variable(b"a"),
        tf.ragged.constant([[b"a"], [b"b", b"c"]]),
        tf.sparse.from_dense(tf.constant([[b"a", b""]])),
        written(tf.TensorArray(tf.string, size=1), b"a"),
        tf.Variable(1.0).handle,
        np.array([b"a", b"bb"], dtype=object),
        np.array([b"x" * 3000] * 40, dtype=object),  # repr cut to 64 KiB: its tail kept
        np.array(["a", "b"]),
        np.array([b"a"]),
        np.array(b"abc"),
        np.array([np.datetime64("2020-01-01")]),
        np.array([None, {"a": 1}]),
    ]
    numeric = [
        tf.constant(1.5),
        tf.constant([True, False]),
        tf.constant(1 + 2j),
        tf.constant([[1, 2]], tf.int64),
        tf.Variable([1.0, 2.0]),
        tf.ragged.constant([[1.0], [2.0, 3.0]]),
        tf.sparse.from_dense([[1.0, 0.0]]),
        written(tf.TensorArray(tf.float32, size=1), 1.0),
        np.zeros(3, np.float32),
        np.array([[1, 2]]),
        np.array(1.0),
    ]
    for value in without:
        shown = row(value)
        assert shown.type in contract.viewable_types(), shown.type
        assert build(value)["error"], shown.value[:80]
        assert not viewer_walk.is_tagged(shown), (shown.type, shown.value[:80])
    for value in numeric:
        shown = row(value)
        assert build(value)["error"] is None, shown.value[:80]
        assert viewer_walk.is_tagged(shown), (shown.type, shown.value[:80])
