"""The notebook's tables: the Variable Inspector's grid JSON (survives the front end's repr
round trip), the bounded 2-D slice, and ``%tf_table``'s Δ since the previous cell."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tf_debug_repr.hosts.notebook import facts, grid, namespace_table

tf = pytest.importorskip("tensorflow")


def front_end(text: str) -> object:
    """The Inspector's front end: the kernel's repr of the string, quotes stripped, then
    JSON.parse (tests/e2e/test_jupyter_inspector.py runs the real thing)."""
    shown = repr(text)
    shown = shown[1:-1].replace('\\"', '"').replace("\\'", "\\\\'")
    return json.loads(shown)


def test_grid_json_survives_the_repr_round_trip_with_hostile_text():
    hostile = "a'b\"c\\d\ne\x00f‖μ"
    parsed = front_end(grid.table("#", [hostile], [[hostile]], ["string"]))
    cell = parsed["data"][0]
    name = parsed["schema"]["fields"][1]["name"]
    assert cell[name] == grid.text(hostile)
    assert "\\" not in cell[name] and "'" not in cell[name] and "\n" not in cell[name]
    assert "‖μ" in cell[name]


def test_array_table_writes_non_finite_as_words_and_float32_as_it_prints():
    array = np.array([[0.1, np.nan], [np.inf, -np.inf]], np.float32)
    parsed = front_end(grid.array_table("[:, :]", array))
    assert [f["name"] for f in parsed["schema"]["fields"]] == ["[:, :]", "0", "1"]
    assert parsed["data"] == [
        {"[:, :]": 0, "0": 0.1, "1": "NaN"},
        {"[:, :]": 1, "0": "+Inf", "1": "-Inf"},
    ]
    ints = front_end(grid.array_table("i", np.array([[1, 2]], np.int64)))
    assert ints["schema"]["fields"][1]["type"] == "integer" and ints["data"][0]["1"] == 2


@pytest.mark.parametrize(
    ("shape", "where", "cut"),
    [
        ((2, 3, 4), "[0, :, :]", (3, 4)),
        ((5,), "[:]", (5, 1)),
        ((), "[]", (1, 1)),
        ((1000, 3000), "[:, :]", (100, 1000)),  # 1,000 columns, 100,000 cells at most
    ],
)
def test_matrix_slice_is_bounded_and_says_where_it_was_cut(shape, where, cut):
    value = tf.reshape(tf.range(int(np.prod(shape)), dtype=tf.float32), shape)
    found = facts.matrix_slice(value, facts.kind_of(value), 100_000, 100_000, 1_000)
    assert found is not None
    assert found[0] == where and found[1].shape == cut
    assert found[1][0, 0] == 0.0


def test_value_bytes_from_metadata():
    assert facts.value_bytes(tf.zeros((3, 4))) == 48
    assert facts.value_bytes(tf.Variable(tf.zeros((2,), tf.float64))) == 16
    sparse = tf.sparse.from_dense(tf.constant([[0.0, 1.0], [2.0, 0.0]]))
    assert facts.value_bytes(sparse) == 2 * 2 * 8 + 2 * 4  # int64 indices, float32 values


def test_delta_since_the_previous_cell():
    figures = ("figures", (0.0, 1.0, 0.5, 0.1, 0))
    moved = ("figures", (0.0, 1.0, 0.75, 0.1, 0))
    assert namespace_table.delta_text(None, (1, figures)) == "new"
    assert namespace_table.delta_text((1, figures), (1, figures)) == "same"
    assert namespace_table.delta_text((1, figures), (1, moved)) == "changed, Δμ=0.25"
    assert namespace_table.delta_text((1, ("steps", 10)), (1, ("steps", 110))) == "+100 steps"
    weights = ("weights", ((1,), (2,), (3,)))
    assert namespace_table.delta_text((1, weights), (1, ("weights", ((1,), (5,), (3,))))) == (
        "1 of 3 weights changed"
    )
    assert namespace_table.delta_text((1, None), (2, None)) == "another value"
