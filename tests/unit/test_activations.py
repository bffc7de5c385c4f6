"""Layer outputs and the batch from compiled steps, and a dataset's preview, on real
TensorFlow without a debugger: what a traced step keeps, within the budget, bit for bit;
nothing when capture is off; the counts of an activation's summary; the preview's refusals."""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr.core.tf_types import Kind  # noqa: E402
from tf_debug_repr.core.view_model import Note  # noqa: E402
from tf_debug_repr.gradients import activations as capture  # noqa: E402
from tf_debug_repr.views import activations as views  # noqa: E402
from tf_debug_repr.views import preview as preview_views  # noqa: E402

pytestmark = pytest.mark.usefixtures("gradient_hooks")


@pytest.fixture(autouse=True)
def _budget():
    capture.set_enabled(True)
    yield
    capture.set_budget_mb(None)
    capture.set_enabled(True)


def mlp(seed: int = 1):
    keras.utils.set_random_seed(seed)
    return keras.Sequential(
        [
            keras.Input((6,)),
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dense(4, activation="tanh"),
        ]
    )


def test_a_traced_step_keeps_what_each_layer_returned_bit_for_bit():
    model = mlp()
    first, second = model.layers

    @tf.function
    def step(x):
        hidden = first(x)
        return hidden, second(hidden)

    x = np.random.default_rng(0).random((5, 6), dtype=np.float32)
    hidden, out = step(x)
    kept = capture.outputs_of(first)
    assert kept is not None and kept[0].where == "compiled step 'step'"
    assert kept[0].value.numpy().tobytes() == hidden.numpy().tobytes()
    assert capture.outputs_of(second)[0].value.numpy().tobytes() == out.numpy().tobytes()
    # the next step's values replace them; what a stop read stays as it was read
    held = kept[0].value
    step(x * 2)
    assert capture.outputs_of(first)[0].value.numpy().tobytes() != held.numpy().tobytes()
    assert held.numpy().tobytes() == hidden.numpy().tobytes()


def test_a_batch_unknown_at_the_trace_is_kept_while_it_fits():
    model = mlp()
    layer = model.layers[0]

    @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32)])
    def step(x):
        return layer(x)

    capture.set_budget_mb(100 * 8 * 4 / (1 << 20))  # 100 rows of 8 float32
    small = step(np.ones((50, 6), np.float32))
    kept = capture.outputs_of(layer)[0]
    assert kept.value is not None and kept.value.numpy().tobytes() == small.numpy().tobytes()
    step(np.ones((200, 6), np.float32))  # 200 rows: past the budget, decided in the step
    kept = capture.outputs_of(layer)[0]
    assert kept.value is None and kept.shape == [200, 8]
    text = str(views.activation(layer))
    assert text.startswith("not kept: this output ([200, 8], 1,600 elements)"), text
    assert capture.BUDGET_VARIABLE in text


def test_outputs_of_unknown_batch_are_kept_first_fit_by_a_running_total_in_the_step():
    """The step decides each output in turn: kept while the step's total stays within the
    budget (an output that does not fit leaves the total as it was, so a later, smaller one
    can still fit), bit for bit; what did not fit says its shape."""
    keras.utils.set_random_seed(2)
    widths = (8, 64, 2)
    layers = [keras.layers.Dense(w) for w in widths]

    @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32)])
    def step(x):
        outs = []
        for layer in layers:
            outs.append(layer(x))
        return outs

    capture.set_budget_mb(100 * 8 * 4 / (1 << 20))  # 100 rows of 8 float32: 3,200 bytes
    rng = np.random.default_rng(3)
    for rows, fit in ((50, (True, False, True)), (100, (True, False, False))):
        # 50 rows: 1,600 + (12,800: no) + 400 = 2,000; 100 rows: 3,200 (the budget, kept)
        # + (25,600: no) + (800: past it)
        outs = step(rng.random((rows, 6), dtype=np.float32))
        for layer, width, out, kept_it in zip(layers, widths, outs, fit, strict=True):
            kept = capture.outputs_of(layer)[0]
            assert kept.shape == [rows, width]
            if kept_it:
                assert kept.value is not None
                assert kept.value.numpy().tobytes() == out.numpy().tobytes()
            else:
                assert kept.value is None, (rows, width)
                assert str(views.activation(layer)).startswith(
                    f"not kept: this output ([{rows}, {width}]"
                )


def test_an_output_of_unknown_batch_adds_ten_ops_to_the_step():
    """The ops a step gets for each output whose batch is unknown at the trace: its shape,
    its size in bytes (size, times the item's bytes), the running total (add, compare,
    select), the rows kept (select, slice) and two assigns; the constants they use are
    made once per graph. (A trace made these under a debugger's trace function for every
    output: they were 24, through ``tf.where``, ``tf.shape`` and a slice's ``[]``.)"""
    keras.utils.set_random_seed(2)

    def ops(count: int) -> list[str]:
        layers = [keras.layers.Dense(4) for _ in range(count)]

        @tf.function(input_signature=[tf.TensorSpec([None, 6], tf.float32)])
        def step(x):
            return [layer(x) for layer in layers]

        graph = step.get_concrete_function().graph
        return sorted(
            op.type
            for op in graph.get_operations()
            if "tf_debug_repr" in op.name and op.type != "Placeholder"  # captured handles
        )

    one, three = ops(1), ops(3)
    added = list(three)
    for op in one:
        added.remove(op)
    assert len(added) == 2 * 10, added
    assert sorted(added) == sorted(
        2
        * [
            "Shape",
            "Size",
            "Mul",
            "AddV2",
            "LessEqual",
            "SelectV2",
            "SelectV2",
            "StridedSlice",
            "AssignVariableOp",
            "AssignVariableOp",
        ]
    )


def test_nothing_is_added_to_a_step_traced_with_capture_off():
    model = mlp()
    layer = model.layers[0]

    def ops(on: bool) -> list[str]:
        capture.set_enabled(on)

        @tf.function
        def step(x):
            return layer(x)

        graph = step.get_concrete_function(tf.TensorSpec([3, 6], tf.float32)).graph
        return [op.name for op in graph.get_operations() if "tf_debug_repr" in op.name]

    assert ops(False) == []
    assert ops(True)  # the same step traced with capture on has the shadow's assign


def test_a_tape_in_the_step_gives_the_same_gradients_with_the_capture_in():
    model = mlp()
    layer = model.layers[0]
    x = tf.constant(np.ones((2, 6), np.float32))

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            y = layer(x)
        return tape.gradient(y, layer.kernel)

    with_capture = step().numpy()
    capture.set_enabled(False)

    @tf.function
    def plain():
        with tf.GradientTape() as tape:
            y = layer(x)
        return tape.gradient(y, layer.kernel)

    assert plain().numpy().tobytes() == with_capture.tobytes()


def test_keras_fit_keeps_the_batch_after_the_data_adapter():
    model = mlp()
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.default_rng(1).random((32, 6), dtype=np.float32)
    y = np.random.default_rng(2).random((32, 4), dtype=np.float32)
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    batch = views.last_step(model)
    assert isinstance(batch, views.LastStep)
    rows = {row.name: row for row in batch.children()}
    assert set(rows) == {"inputs", "targets"}
    assert rows["inputs"].expression == ".value(0)"
    assert np.array_equal(batch.value(0).numpy(), x[24:])
    assert np.array_equal(batch.value(1).numpy(), y[24:])
    assert "inputs[8, 6], targets[8, 4]" in batch.summary()


def test_an_eager_call_keeps_its_output_and_a_later_compiled_step_wins():
    model = mlp()
    layer = model.layers[0]
    x = np.ones((2, 6), np.float32)
    eager = layer(x)
    assert capture.outputs_of(layer)[0].value is eager
    assert capture.outputs_of(layer)[0].where == "an eager call"
    tf.function(lambda v: layer(v))(x)
    assert capture.outputs_of(layer)[0].where.startswith("compiled step")


def test_an_eager_call_that_gave_no_dense_tensor_says_so_and_an_earlier_output_goes():
    """TF's text-generation tutorial: ``ids_from_chars(['[UNK]'])`` (an int64 tensor),
    then calls on ragged characters (a RaggedTensor): the row must not go on showing the
    first call's output as the last one."""
    ids = keras.layers.StringLookup(vocabulary=list("abc"))
    ids(tf.constant(["a"]))
    assert capture.outputs_of(ids)[0].value.numpy().tolist() == [1]
    ids(tf.strings.unicode_split(["ab"], "UTF-8"))
    (output,) = capture.outputs_of(ids)
    assert output.value is None and output.where == "an eager call"
    assert output.reason == (
        "not kept: the last call gave a RaggedTensor (only dense numeric tensors are kept)"
    )
    rows = {c.name: c for c in views.output_children(ids, Kind.KERAS_LAYER)}
    (name,) = rows
    assert name.startswith("→ output (in an eager call")
    shown = rows[name].compute()
    assert isinstance(shown, Note) and str(shown) == output.reason
    # strings out: said as well; a dense numeric output again: kept again
    chars = keras.layers.StringLookup(vocabulary=list("abc"), invert=True)
    chars(tf.constant([1, 2]))
    assert capture.outputs_of(chars)[0].reason == (
        "not kept: the last call gave a string tensor (only dense numeric tensors are kept)"
    )
    ids(tf.constant(["c"]))
    assert capture.outputs_of(ids)[0].value.numpy().tolist() == [3]


def test_the_summary_counts_dead_relus_saturation_and_exploding_values():
    relu = tf.constant([[0.0, 1.0, 0.0], [0.0, 2.0, 3.0]])
    assert (
        views.health(relu, "relu") == "dead ReLU: 50% zeros, 1 of 3 units dead for the whole batch"
    )
    assert views.health(tf.constant([0.001, 0.5, 0.999, 0.2]), "sigmoid").startswith(
        "saturated 50%"
    )
    assert views.health(tf.constant([-1.0, 0.995, 0.1, 0.0]), "tanh").startswith("saturated 50%")
    assert views.health(tf.constant([1e5, 1.0]), "linear") == "‼ 1 exploding (|x|>10000)"
    assert views.health(tf.constant([1.0, 2.0]), "") == ""
    layer = keras.layers.Dense(2, activation="relu")
    assert views.activation_name(layer) == "relu"
    assert views.activation_name(keras.layers.ReLU()) == "relu"
    assert views.activation_name(keras.layers.Dense(2)) == "linear"


def test_the_summary_counts_on_the_host_equal_tfs_ops_on_the_device():
    """``health`` counts a CPU output with numpy on its buffer; the counts equal those of
    TF's ops (what a GPU output gets), for each activation, dtype and rank, NaN and Inf
    among the values and values at the thresholds."""
    rng = np.random.default_rng(0)
    edges = [0.0, 0.0, 0.99, -0.99, 0.01, 1e4, -1e4, 1e5, np.nan, np.inf, -np.inf]
    for dtype in (tf.float32, tf.float16, tf.float64, tf.bfloat16):
        for shape in ((40,), (8, 5), (2, 3, 4, 6)):
            values = rng.normal(0, 3e3, shape).astype(np.float64)
            values.flat[: len(edges)] = edges
            values[values < -2e3] = 0.0  # whole units of zeros, as after a ReLU
            tensor = tf.cast(tf.constant(values), dtype)
            for name in ("relu", "relu6", "sigmoid", "tanh", "hard_tanh", "linear", ""):
                host = views.host_counts(tensor, name)
                assert host == views.device_counts(tensor, name), (dtype, shape, name)
    dead = tf.constant([[0.0, 1.0, 0.0], [0.0, 2.0, 0.0]])
    assert views.host_counts(dead, "relu") == (4, 2, None, 0)


def test_rows_are_named_by_role():
    assert [views._role(p) for p in ("", "[0]", "[1]", "[2]", "[0]['a']", "[0][1]")] == [
        "inputs",
        "inputs",
        "targets",
        "sample_weight",
        "inputs['a']",
        "inputs[1]",
    ]


def test_a_layer_no_step_ran_has_no_output_row():
    layer = keras.layers.Dense(3)
    assert views.output_children(layer, views.Kind.KERAS_LAYER) == []
    assert isinstance(views.activation(layer), Note)


def test_preview_reads_a_fresh_iterator_and_leaves_the_programs_alone():
    ds = tf.data.Dataset.range(10).map(lambda v: v * 3).batch(2)
    iterator = iter(ds)
    assert next(iterator).numpy().tolist() == [0, 3]
    for _ in range(2):
        found = preview_views.preview(ds)
        assert isinstance(found, preview_views.Preview)
        assert [e.numpy().tolist() for e in found.elements] == [[0, 3], [6, 9], [12, 15]]
        assert found.summary().startswith("3 elements read from a fresh iterator in")
        assert [c.expression for c in found.children()] == [
            ".element(0)",
            ".element(1)",
            ".element(2)",
        ]
    assert next(iterator).numpy().tolist() == [6, 9]
    row = preview_views.preview_row(ds)
    assert row.value.summary().startswith("expand to read 3 elements from a fresh iterator")
    assert row.expression("ds") == (
        "__import__('tf_debug_repr._expr', fromlist=['_']).dataset_preview(ds)"
    )
    read = row.value.children()  # expanding reads, from a fresh iterator
    assert read[0].name == "read" and str(read[0].value).startswith("3 elements read")
    assert [c.name for c in read[1:]] == ["[0]", "[1]", "[2]"]
    assert row.value.element(2).numpy().tolist() == [12, 15]
    assert next(iterator).numpy().tolist() == [12, 15]


def test_preview_refuses_what_a_fresh_iterator_would_change():
    base = tf.data.Dataset.range(10)
    refused = preview_views.preview(base.shuffle(4))
    assert isinstance(refused, Note) and "reshuffles each iteration" in str(refused)
    assert isinstance(
        preview_views.preview(base.shuffle(4, reshuffle_each_iteration=False)),
        preview_views.Preview,
    )
    generated = tf.data.Dataset.from_generator(
        lambda: iter([1, 2]), output_signature=tf.TensorSpec([], tf.int32)
    )
    assert "runs the program's" in str(preview_views.preview(generated))
    forced = preview_views.preview(base.shuffle(4), count=2, force=True)
    assert isinstance(forced, preview_views.Preview) and len(forced.elements) == 2
    assert "tf.data.Dataset" in str(preview_views.preview([1, 2]))


def test_reached_lists_the_layers_a_step_ran_and_those_it_did_not():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.first = keras.layers.Dense(8, activation="relu")
            self.block = [keras.layers.Dense(4, activation="tanh")]  # nested in a list
            self.never = keras.layers.Dense(2)  # tracked, never called

        def call(self, x):
            return self.block[0](self.first(x))

    model = Net()
    first, second, extra = model.first, model.block[0], model.never

    @tf.function
    def step(x):
        return model(x)

    step(np.ones((3, 6), np.float32))
    found, missing = views.reached(model)
    assert [layer for layer, _ in found] == [first, second]
    assert missing == [extra]
    found, missing = views.reached(model, limit=1)
    assert [layer for layer, _ in found] == [first] and missing == []
    # what a layer's output is, for a notebook's display; nothing for other tensors
    value = views.activation(first)
    title, counts = views.described(value)
    assert title == f"{first.name} → output (compiled step 'step')"
    assert counts.startswith("dead ReLU: ")
    assert views.described(tf.constant(1.0)) is None


def test_tf_activations_view_escapes_the_debuggees_text():
    from tf_debug_repr.hosts.notebook import activations_view

    Odd = type("<b>Odd</b>", (keras.layers.Dense,), {})
    model = keras.Sequential([keras.Input((6,)), Odd(4, activation="sigmoid", name="a")])

    @tf.function
    def step(x):
        return model(x)

    step(np.ones((3, 6), np.float32))
    view = activations_view.ActivationsView(model)
    page = view._repr_html_()
    assert "<b>Odd" not in page and "&lt;b&gt;Odd&lt;/b&gt;" in page
    assert "a (<b>Odd</b>): float32[3, 4] (compiled step 'step')" in repr(view)
    assert "saturated " in repr(view)
    none = activations_view.ActivationsView(tf.constant(1.0))
    assert "not a Keras model or layer" in repr(none) and "<table" not in none._repr_html_()


def test_tf_activations_view_says_why_a_model_no_step_ran_has_nothing():
    from tf_debug_repr.hosts.notebook import activations_view

    view = activations_view.ActivationsView(mlp())
    assert "0 of 2 layers kept" in repr(view)
    assert "was traced since the extension was loaded" in repr(view), repr(view)
    capture.set_enabled(False)
    assert "activation capture is off" in repr(activations_view.ActivationsView(mlp()))


def test_a_cond_branch_and_a_while_body_keep_what_their_last_run_wrote():
    from tf_debug_repr.hosts.notebook import activations_view

    keras.utils.set_random_seed(2)
    outer = keras.layers.Dense(4, name="outer")
    branch = keras.layers.Dense(4, name="branch")
    other = keras.layers.Dense(4, name="other")
    looped = keras.layers.Dense(4, name="looped")

    class Holder(keras.Model):  # its layers are listed under it (Keras tracks attributes)
        def __init__(self) -> None:
            super().__init__()
            self.outer, self.branch, self.other, self.looped = outer, branch, other, looped

    model = Holder()

    @tf.function(input_signature=[tf.TensorSpec([None, 6]), tf.TensorSpec([], tf.int32)])
    def step(x, n):
        h = outer(x)
        h = tf.cond(n > 1, lambda: branch(h), lambda: other(h))
        return tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, looped(v)), (0, h))[1]

    x = np.ones((3, 6), np.float32)
    step(x, tf.constant(1))  # the false branch, one iteration
    assert capture.outputs_of(other)[0].detail == "tf.cond branch"
    never = capture.outputs_of(branch)[0]
    assert never.value is None and never.reason.startswith(
        "not kept: its tf.cond branch has not run in any run of compiled step 'step'"
    ), never.reason
    assert isinstance(views.activation(branch), Note)
    out = step(x, tf.constant(2))  # the true branch, two iterations
    kept = capture.outputs_of(branch)[0]
    assert kept.detail == "tf.cond branch" and kept.value is not None
    assert kept.value.numpy().tobytes() == branch(outer(x)).numpy().tobytes()
    last = capture.outputs_of(looped)[0]
    assert last.detail == "last of 2 tf.while_loop iterations"
    assert last.value.numpy().tobytes() == out.numpy().tobytes()
    stale = capture.outputs_of(other)[0]
    assert stale.detail == "from its run 1: its tf.cond branch did not run in the last run (2)"
    rows = views.output_children(other, views.Kind.KERAS_LAYER)
    assert [c.name for c in rows] == [
        "→ output (in compiled step 'step', from its run 1: its tf.cond branch did not run "
        "in the last run (2))"
    ]
    step(x, tf.constant(0))  # no iteration: the body's output is from run 2
    assert capture.outputs_of(looped)[0].detail.startswith("from its run 2: its tf.while_loop")
    assert "branch" in repr(activations_view.ActivationsView(model))


def test_an_rnn_cell_keeps_its_last_iterations_output():
    """Keras's RNN calls its cell once before its tf.while_loop (to learn the output's
    structure), then in the loop: the row is the loop's, its value the last iteration's."""
    keras.utils.set_random_seed(3)
    rnn = keras.layers.SimpleRNN(4)

    @tf.function
    def step(x):
        return rnn(x)

    out = step(np.random.default_rng(1).random((2, 5, 3), dtype=np.float32))
    kept = capture.outputs_of(rnn.cell)
    assert kept is not None and kept[0].detail == "last of 5 tf.while_loop iterations", kept
    assert kept[0].value.numpy().tobytes() == out.numpy().tobytes()


def test_a_stops_read_of_a_layers_output_runs_no_identity_and_keeps_the_steps_values(
    monkeypatch,
):
    """The stamp, a shadow's shape and its values are read by the raw read alone: an
    ``Identity`` is one more op kernel TF makes at its first run (~2 ms of a model's first
    expansion). What was read still keeps the step's values when the next step writes."""
    from tensorflow.python import pywrap_tfe

    model = mlp()
    first, _ = model.layers

    @tf.function
    def step(x):
        return model(x)

    x = np.random.default_rng(0).random((5, 6), dtype=np.float32)
    step(x)
    ops: list = []
    real = pywrap_tfe.TFE_Py_FastPathExecute
    monkeypatch.setattr(
        pywrap_tfe,
        "TFE_Py_FastPathExecute",
        lambda ctx, op, *a: ops.append(op) or real(ctx, op, *a),
    )
    kept = capture.outputs_of(first)
    assert kept is not None and "ReadVariableOp" in ops and "Identity" not in ops, ops
    held = kept[0].value.numpy().tobytes()
    assert held == first(x).numpy().tobytes()
    step(x * 2)
    assert kept[0].value.numpy().tobytes() == held
    assert capture.outputs_of(first)[0].value.numpy().tobytes() != held
