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


# ------------------------------------------------------------- issue 33: what readers met


def test_only_the_users_cells_refresh_the_live_table():
    from IPython.core.interactiveshell import ExecutionInfo, ExecutionResult

    from tf_debug_repr.hosts.notebook import table_view

    def result(store_history: bool, silent: bool) -> ExecutionResult:
        return ExecutionResult(ExecutionInfo("x", store_history, silent, True, None))

    assert table_view.users_cell(result(True, False))
    assert not table_view.users_cell(result(False, False))  # the Inspector's query
    assert not table_view.users_cell(result(True, True))
    assert table_view.users_cell(None)  # an IPython that passes no result


def test_the_gradient_note_says_how_to_fill_an_empty_column():
    from tf_debug_repr.gradients import capture
    from tf_debug_repr.hosts.notebook import table_view

    variable = namespace_table.Row("w", "variable")
    tensor = namespace_table.Row("x", "eager tensor")
    assert table_view.gradient_note([tensor]) == ""  # nothing there could have one
    assert table_view.gradient_note([namespace_table.Row("w", "variable", gradient=1.0)]) == ""
    was = capture.enabled(), capture.mode()
    try:
        capture.set_enabled(False)
        note = table_view.gradient_note([variable, tensor])
        assert note.startswith("‖∇‖ is empty: gradient capture is off") and "\n" not in note
        capture.set_enabled(True)
        note = table_view.gradient_note([variable])
        assert note.startswith("‖∇‖ shows gradients computed since %load_ext")
    finally:
        capture.set_enabled(was[0])
        capture._mode = was[1]


def test_container_rows_count_every_item_then_sample_a_long_one():
    from tf_debug_repr.hosts.notebook import inspector

    one = tf.ones((4,))
    small = [tf.fill((2,), float(i)) for i in range(3)]
    found = inspector._container_items(small)
    assert found is not None and (found.length, found.sampled, found.nbytes) == (3, False, 24)
    two = tf.ones((8,))
    long = [one, two] * 15_000 + [tf.ones((4,))]  # the last item is looked at too
    found = inspector._container_items(long)
    assert found is not None and found.sampled and len(found.values) == inspector.SAMPLE_ITEMS
    assert found.values[-1] is long[-1]
    exact = 15_000 * (16 + 32) + 16
    assert found.nbytes is not None and abs(found.nbytes - exact) / exact < 0.05  # an estimate
    row = inspector.row("long", long)
    assert row["varShape"] == "30,001 items"
    assert "(read from 1,000 items spread over them)" in row["varContent"]
    assert inspector._container_items([one, 1.0]) is None  # not all TF: the Inspector's row
    assert inspector._container_items({i: one for i in range(20_000)}).sampled  # type: ignore[union-attr]


def test_item_rows_are_named_only_from_safe_keys():
    from tf_debug_repr.hosts.notebook import inspector

    one = tf.ones((2,))
    items = {"dense/kernel": one, "x'); import os; ('": one, 3: one, "bias": "text", 2.5: one}
    assert [n for n, _ in inspector.item_names("g", items)] == ['g["dense/kernel"]', "g[3]"]
    many = [one] * 100
    assert len(inspector.item_names("grads", many)) == inspector.ITEM_ROWS


def test_history_of_one_epoch_and_an_unnamed_variable():
    from tf_debug_repr import views
    from tf_debug_repr.hosts.notebook import inspector

    class History:  # keras.src.callbacks.history.History's two attributes
        history = {"loss": [0.5]}
        epoch = [0]

    History.__module__, History.__name__ = inspector.HISTORY
    assert inspector._history_facts(History()) == ("1 epoch", "History of 1 epoch: loss=0.5")
    unnamed = tf.Variable([1.0, 2.0])
    assert views.summary(unnamed).endswith(" Variable 'Variable'")  # the Variables pane's
    assert inspector.row("v", unnamed)["varContent"].endswith(" Variable, unnamed")
    frozen = tf.Variable([1.0], trainable=False)
    assert facts.unnamed(views.summary(frozen)).endswith(" Variable, unnamed non-trainable")
    named = tf.Variable([1.0], name="Variable_1")
    assert inspector.row("n", named)["varContent"].endswith(" Variable 'Variable_1'")


def test_cell_numbers_follow_the_summarys_precision():
    from tf_debug_repr.hosts.notebook import small_values

    array = np.array([[8.61734, np.nan], [1.0, -0.0]], np.float32)
    assert small_values.float_texts(array).tolist() == [["8.6173", "nan"], ["1", "0"]]
    page = small_values.table_html(array)
    assert ">8.6173</td>" in page and ">NaN</td>" in page and "8.61734" not in page
    tiny = small_values.float_texts(np.array([1e-7, 2.5], np.float64))
    assert tiny is not None and tiny[0].startswith("1.") and "e-07" in tiny[0]
