"""Gradients from compiled Keras steps on real TensorFlow, without a debugger: what the
traced optimizer.apply keeps (LossScaleOptimizer, steps_per_execution, IndexedSlices, the
budget), and that the step computes the same weights bit for bit with the capture ops in."""

from __future__ import annotations

import re

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")
keras = pytest.importorskip("keras")

from tf_debug_repr.gradients import capture  # noqa: E402

pytestmark = pytest.mark.usefixtures("gradient_hooks")


def dense_model(seed: int = 3):
    keras.utils.set_random_seed(seed)
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(1)])


def data(n: int = 32):
    rng = np.random.default_rng(0)
    return rng.random((n, 4), dtype=np.float32), rng.random((n, 1), dtype=np.float32)


def test_steps_per_execution_keeps_every_inner_steps_norm_and_the_last_values():
    model = dense_model()
    model.compile(optimizer="sgd", loss="mse", steps_per_execution=2)
    x, y = data(64)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)  # 4 steps in 2 executions
    record = capture.record_of(model.trainable_weights[0])
    assert record is not None and record.latest is not None
    assert [label.split(" iteration ")[1] for _, label, _ in record.latest.history] == [
        "0",
        "1",
        "2",
        "3",
    ]
    assert record.iteration == 3
    assert record.gradient.shape == (4, 3)
    assert all(np.isfinite(norm) and norm > 0 for _, _, norm in record.latest.norms())


def test_loss_scale_optimizer_keeps_the_unscaled_gradient():
    x, y = data(16)
    model = dense_model()
    inner = keras.optimizers.SGD(0.0)  # lr 0: the weights stay, for the recompute
    model.compile(optimizer=keras.optimizers.LossScaleOptimizer(inner), loss="mse")
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    records = [capture.record_of(w) for w in model.trainable_weights]
    # The inner optimizer's (Keras may have numbered it apart: SGD 'sgd_1').
    assert [(r.applied_by, r.iteration) for r in records] == [("SGD", 0)] * 4
    kept = [r.gradient.numpy() for r in records]
    with tf.GradientTape() as tape:  # the same step eagerly, unscaled
        loss = model.compute_loss(x=x, y=y, y_pred=model(x, training=True))
    expected = tape.gradient(loss, model.trainable_weights)
    for got, want in zip(kept, expected, strict=True):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-7)


def test_embedding_gradients_stay_indexed_slices():
    keras.utils.set_random_seed(1)
    model = keras.Sequential(
        [keras.Input((3,), dtype="int32"), keras.layers.Embedding(50, 4), keras.layers.Flatten()]
    )
    model.compile(optimizer="adam", loss="mse")
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    model.fit(x, np.zeros((2, 12), np.float32), batch_size=2, epochs=1, verbose=0)
    record = capture.record_of(model.trainable_weights[0])
    gradient = record.gradient
    assert isinstance(gradient, tf.IndexedSlices), type(gradient)
    assert sorted(gradient.indices.numpy().tolist()) == [1, 2, 3, 4, 5, 6]
    assert gradient.values.shape == (6, 4)


def test_past_the_budget_only_the_norm_is_kept():
    capture.set_budget_mb(0)
    try:
        model = dense_model(seed=9)
        model.compile(optimizer="sgd", loss="mse")
        x, y = data(16)
        model.fit(x, y, batch_size=16, epochs=1, verbose=0)
        record = capture.record_of(model.trainable_weights[0])
        assert record.gradient is None
        assert record.latest.not_kept.startswith("values not kept: compiled steps keep")
        assert record.norm is not None and record.norm > 0
    finally:
        capture.set_budget_mb(None)


@pytest.mark.parametrize("jit", [False, True], ids=["graph", "xla"])
def test_the_capture_ops_change_no_weight(jit):
    x, y = data(64)
    weights = {}
    for on in (True, False):  # each model traced with capture on, then off
        capture.set_enabled(on)
        model = dense_model(seed=11)
        model.compile(optimizer="adam", loss="mse", jit_compile=jit)
        model.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False)
        weights[on] = [w.numpy() for w in model.weights]
    capture.set_enabled(True)
    for a, b in zip(weights[True], weights[False], strict=True):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("jit", [False, True], ids=["graph", "xla"])
def test_a_kernels_gradient_kept_as_its_matmuls_factors_is_bit_equal_to_the_steps(jit):
    """In graph mode a kernel's gradient that a MatMul of smaller factors computed (the
    layer's input and its output's gradient) keeps those factors, not the gradient's buffer
    (holding that costs a big step 2-3%), and a stop multiplies them again: bit for bit what
    the step gave the optimizer. A gradient whose factors are not smaller, and every one
    under XLA, keeps its values."""
    from tf_debug_repr.gradients import compiled

    keras.utils.set_random_seed(4)
    model = keras.Sequential(
        [keras.Input((64,)), keras.layers.Dense(48, activation="relu"), keras.layers.Dense(5)]
    )
    optimizer = keras.optimizers.Adam(1e-3)
    weights = model.trainable_variables
    optimizer.build(weights)
    loss_fn = keras.losses.MeanSquaredError()

    @tf.function(jit_compile=jit)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, weights)
        optimizer.apply(grads, weights)
        return [tf.identity(g) for g in grads]

    rng = np.random.default_rng(6)
    for _ in range(3):  # inputs of 8 rows: the first kernel's factors hold 896 elements
        x = rng.standard_normal((8, 64), dtype=np.float32)
        applied = step(x, rng.standard_normal((8, 5), dtype=np.float32))
        for weight, want in zip(weights, applied, strict=True):
            got = capture.record_of(weight).gradient.numpy()
            assert got.shape == tuple(want.shape) and got.tobytes() == want.numpy().tobytes()
    factored = [
        any(
            shadow.factors is not None
            for (_, variable), shadow in compiled._shadows.items()
            if variable == id(weight)
        )
        for weight in weights
    ]
    # 64x48 from 8x64 and 8x48; 48x5 from 8x48 and 8x5 (424 elements for 240): its values
    assert factored == [not jit, False, False, False]


def test_a_stop_computes_the_norms_not_the_products_which_keep_the_steps_values_when_read_later():
    """A stop's rows need each weight's norm (a model's global norm reads them all), not its
    values: the norm is computed on the host (a factored kernel's from its factors' Gram
    matrices, no product) and the product waits until a row reads it. What it then gives
    is the step's values even when later steps ran meanwhile: the record holds snapshots."""
    keras.utils.set_random_seed(8)
    model = keras.Sequential([keras.Input((256,)), keras.layers.Dense(256), keras.layers.Dense(3)])
    optimizer = keras.optimizers.SGD(0.0)  # weights stay
    weights = model.trainable_variables
    optimizer.build(weights)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        grads = tape.gradient(loss, weights)
        optimizer.apply(grads, weights)
        return [tf.identity(g) for g in grads]

    rng = np.random.default_rng(9)
    applied = step(rng.standard_normal((16, 256), dtype=np.float32), np.ones((16, 3), np.float32))
    records = [capture.record_of(w).latest for w in weights]
    assert all(r._pending is not None and r.has_value for r in records), "no product yet"
    for record, want in zip(records, applied, strict=True):
        exact = float(np.linalg.norm(want.numpy().astype(np.float64)))
        assert record.norm == pytest.approx(exact, rel=1e-6) and record.norm_sampled is None
    # Another step with other inputs, no look in between: the records read the first's.
    step(rng.standard_normal((16, 256), dtype=np.float32), np.zeros((16, 3), np.float32))
    for record, want in zip(records, applied, strict=True):
        assert record.gradient.numpy().tobytes() == want.numpy().tobytes()
        assert record._pending is None  # computed once
    # The next look records the second step.
    second = capture.record_of(weights[0]).latest
    assert second is records[0] and second._pending is not None
    assert second.gradient.numpy().tobytes() != applied[0].numpy().tobytes()


def test_where_the_batch_is_unknown_at_the_trace_a_big_batch_keeps_the_gradient_not_its_factors():
    """A step traced for any batch (``None``) decides in the step: factors while they hold
    fewer elements than the kernel's gradient (a batch under rows*cols/(rows+cols), 256 for
    512x512), the gradient past that, so what is kept never outgrows the gradient's bytes
    (the budget's count). Both read bit-equal to what the step applied."""
    from tf_debug_repr.gradients import compiled

    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.Input((512,)), keras.layers.Dense(512), keras.layers.Dense(1)])
    optimizer = keras.optimizers.SGD(1e-3)
    weights = model.trainable_variables
    optimizer.build(weights)
    spec = [tf.TensorSpec([None, 512]), tf.TensorSpec([None, 1])]

    @tf.function(input_signature=spec)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        grads = tape.gradient(loss, weights)
        optimizer.apply(grads, weights)
        return tf.identity(grads[0])

    rng = np.random.default_rng(7)
    kept, traces = [], 0
    for batch in (16, 400, 16):
        x = rng.standard_normal((batch, 512), dtype=np.float32)
        applied = step(x, rng.standard_normal((batch, 1), dtype=np.float32)).numpy()
        shadow = next(sh for (_, v), sh in compiled._shadows.items() if v == id(weights[0]))
        assert shadow.factors is not None, "a 512x512 kernel's shadow is made for factors"
        kept.append("factors" if int(tf.size(shadow.values)) == 0 else "gradient")
        got = capture.record_of(weights[0]).gradient.numpy()
        assert got.tobytes() == applied.tobytes()
        traces = traces or step.experimental_get_tracing_count()
    # 16 x (512 + 512) < 512 * 512: the factors; 400 x 1024 > 262,144: the gradient itself
    assert kept == ["factors", "gradient", "factors"]
    assert step.experimental_get_tracing_count() == traces, "no retrace: each step decided"


def conv_model(channels: int, seed: int = 4):
    keras.utils.set_random_seed(seed)
    return keras.Sequential(
        [
            keras.Input((6, 6, 8)),
            keras.layers.Conv2D(channels, 3, padding="same", activation="relu"),
            keras.layers.Conv2D(2 * channels, 3, strides=2, padding="valid"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(1),
        ]
    )


def conv_shadow(weight):
    from tf_debug_repr.gradients import compiled

    return next(sh for (_, v), sh in compiled._shadows.items() if v == id(weight))


def test_a_conv_kernels_gradient_kept_as_its_backprops_inputs_is_bit_equal_to_the_steps():
    """A ``Conv2D`` kernel's gradient is a ``Conv2DBackpropFilter`` of the layer's input and
    its output's gradient: where those hold fewer elements than the kernel (a small batch,
    a small picture, many channels: the last stages of a ResNet) they are kept instead, and
    a stop runs the same op on them: bit for bit what the step applied, and its norm."""
    model = conv_model(64)
    optimizer = keras.optimizers.Adam(1e-3)
    weights = model.trainable_variables
    optimizer.build(weights)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        grads = tape.gradient(loss, weights)
        optimizer.apply(grads, weights)
        return [tf.identity(g) for g in grads]

    rng = np.random.default_rng(11)
    for _ in range(3):
        applied = step(
            rng.standard_normal((2, 6, 6, 8), dtype=np.float32),
            rng.standard_normal((2, 1), dtype=np.float32),
        )
        for weight, want in zip(weights, applied, strict=True):
            record = capture.record_of(weight).latest
            got = record.gradient.numpy()
            assert got.shape == tuple(want.shape) and got.tobytes() == want.numpy().tobytes()
            exact = float(np.linalg.norm(want.numpy().astype(np.float64)))
            assert record.norm == pytest.approx(exact, rel=1e-6)
    kinds = [
        "conv" if conv_shadow(w).conv is not None else "values" for w in weights if w.ndim == 4
    ]
    # 3x3x8x64 (4,608 elements) from 576 + 4,608: its values; 3x3x64x128 (73,728) from
    # 4,608 + 512: the factors
    assert kinds == ["values", "conv"]


def test_where_a_convs_batch_is_unknown_at_the_trace_each_step_keeps_the_smaller_side():
    """A step traced for any batch decides in the step, as for a ``MatMul``: the factors
    while they hold fewer elements than the kernel's gradient, the gradient past that. Both
    read bit-equal to what the step applied, and no retrace."""
    model = conv_model(128)  # the second kernel: 3x3x128x256, 294,912 elements
    optimizer = keras.optimizers.SGD(1e-3)
    weights = model.trainable_variables
    optimizer.build(weights)
    spec = [tf.TensorSpec([None, 6, 6, 8]), tf.TensorSpec([None, 1])]

    @tf.function(input_signature=spec)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
        grads = tape.gradient(loss, weights)
        optimizer.apply(grads, weights)
        return tf.identity(grads[2])

    rng = np.random.default_rng(12)
    kept = []
    for batch in (4, 80, 4):  # 4 x (36 x 128 + 4 x 256) < 294,912 < 80 x 5,632
        x = rng.standard_normal((batch, 6, 6, 8), dtype=np.float32)
        applied = step(x, rng.standard_normal((batch, 1), dtype=np.float32)).numpy()
        shadow = conv_shadow(weights[2])
        assert shadow.conv is not None
        kept.append("factors" if int(tf.size(shadow.values)) == 0 else "gradient")
        got = capture.record_of(weights[2]).gradient.numpy()
        assert got.tobytes() == applied.tobytes()
    assert kept == ["factors", "gradient", "factors"]
    assert step.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("budget_mb", [0, 64], ids=["norms only", "values kept"])
def test_a_big_weights_step_norms_are_estimated_from_a_sample_and_say_so(budget_mb):
    """Past ``SAMPLE`` elements a compiled step reads a spread sample of the gradient for
    its norm (a whole pass costs a few % of a big step): the estimate is close, the rows
    mark it ``~``, and the last step's norm is exact where its values are kept."""
    from tf_debug_repr.gradients import compiled
    from tf_debug_repr.views.gradients import GradientInfo, gradient_mark

    capture.set_budget_mb(budget_mb)
    try:
        keras.utils.set_random_seed(5)
        model = keras.Sequential([keras.Input((512,)), keras.layers.Dense(300)])
        model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")  # weights stay
        rng = np.random.default_rng(2)
        x = rng.standard_normal((8, 512), dtype=np.float32)
        y = rng.standard_normal((8, 300), dtype=np.float32)
        model.fit(x, y, batch_size=8, epochs=2, verbose=0)
        kernel = model.trainable_weights[0]
        assert compiled.sample_step(list(kernel.shape)) > 0  # 153,600 elements
        record = capture.record_of(kernel).latest
        history = record.norms()
        mark = gradient_mark(kernel, None)
        summary = GradientInfo(capture.record_of(kernel)).summary()
        bias = capture.record_of(model.trainable_weights[1]).latest
        with tf.GradientTape() as tape:  # recorded too: read the step's records first
            loss = model.compute_loss(x=x, y=y, y_pred=model(x, training=True))
        full = tape.gradient(loss, kernel).numpy()
        exact = float(np.linalg.norm(full))
        assert len(history) == 2
        _, first_label, first = history[0]
        assert first_label.endswith("~")  # an earlier step: always the sample's estimate
        assert first == pytest.approx(exact, rel=0.05) and first != pytest.approx(exact, rel=1e-6)
        if budget_mb:
            assert record.norm == pytest.approx(exact, rel=1e-5)
            assert record.norm_sampled is None and not history[-1][1].endswith("~")
            assert "~" not in mark
        else:
            assert record.norm == pytest.approx(exact, rel=0.05)
            assert record.norm_sampled.startswith("~ each compiled step's norm is estimated")
            assert mark.startswith("∇‖g‖=~")
            # Beyond the budget: the last step's figures, from the same sample.
            stats = record.figures.stats()
            assert full.min() <= stats.min < stats.max <= full.max()
            assert stats.mean == pytest.approx(float(full.mean()), abs=0.1 * float(full.std()))
            assert (stats.nan, stats.posinf, stats.neginf) == (0, 0, 0)
            # 153,600 / 65,536: about one element in 3
            assert (
                "every figure from a sample of about one element in 3, of the last step" in summary
            )
        assert bias.norm_sampled is None  # 300 elements: exact
    finally:
        capture.set_budget_mb(None)


@pytest.mark.parametrize("jit", [False, True], ids=["graph", "xla"])
def test_past_the_budget_each_gradients_sample_takes_a_place_of_its_own_size(jit):
    """With no values kept, a step keeps each gradient's sample for the stop's figures in
    one vector, a gradient of at most ``SAMPLE`` elements in just its elements (padded to
    ``SAMPLE`` and stacked, a 3-float bias wrote 2 x 256 KiB a step), at a place known at
    the trace (XLA too); each weight's figures are its own gradient's."""
    from tf_debug_repr.gradients import compiled

    capture.set_budget_mb(0)
    try:
        keras.utils.set_random_seed(11)
        model = keras.Sequential(
            [keras.Input((512,)), keras.layers.Dense(300), keras.layers.Dense(3)]
        )
        model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse", jit_compile=jit)
        rng = np.random.default_rng(4)
        x = rng.standard_normal((8, 512), dtype=np.float32)
        y = 10.0 * rng.standard_normal((8, 3), dtype=np.float32)
        model.fit(x, y, batch_size=8, epochs=1, verbose=0)
        weights = model.trainable_weights
        records = [capture.record_of(w).latest for w in weights]  # read before the tape below
        with tf.GradientTape() as tape:
            loss = model.compute_loss(x=x, y=y, y_pred=model(x, training=True))
        grads = [g.numpy() for g in tape.gradient(loss, weights)]
        wanted = {id(w) for w in weights} | {id(getattr(w, "_value", w)) for w in weights}
        found = [s for t in list(compiled._sites.values()) for s in t.values()]
        found += list(compiled._tape_sites.values())  # fit's traced tape keeps them
        sites = [
            site
            for site in found
            if site.samples is not None and all(id(ref()) in wanted for ref in site.variables)
        ]
        assert len(sites) == 1, len(sites)
        site = sites[0]
        sizes = [compiled.SAMPLE, 300, 900, 3]  # the first kernel's 153,600: a sample
        assert site.sample_places == tuple(sizes)
        assert site.sample_offsets == [0, sizes[0], sizes[0] + 300, sizes[0] + 1200]
        assert site.samples.shape == [sum(sizes)]  # was [4, SAMPLE]
        for record, full in zip(records[1:], grads[1:]):  # whole: the gradient's figures
            assert record.gradient is None
            stats = record.figures.stats()
            assert stats.min == pytest.approx(float(full.min()), rel=1e-5, abs=1e-7)
            assert stats.max == pytest.approx(float(full.max()), rel=1e-5, abs=1e-7)
            assert stats.mean == pytest.approx(float(full.mean()), rel=1e-4, abs=1e-7)
            assert (stats.nan, stats.posinf, stats.neginf) == (0, 0, 0)
        stats = records[0].figures.stats()  # a sample: within the gradient's range
        assert grads[0].min() <= stats.min < stats.max <= grads[0].max()
    finally:
        capture.set_budget_mb(None)


@pytest.mark.parametrize("jit", [False, True], ids=["graph", "xla"])
def test_past_the_budget_a_sample_of_size_unknown_at_the_trace_is_padded_to_its_place(jit):
    """An ``Embedding``'s ``IndexedSlices`` gradient in a step traced for an unknown batch
    (a dataset whose last batch is short): its values' size is learned in the step, so its
    place is ``SAMPLE`` long, the others' their own; every figure is the last step's."""
    from tf_debug_repr.gradients import compiled

    capture.set_budget_mb(0)
    try:
        keras.utils.set_random_seed(1)
        model = keras.Sequential(
            [
                keras.Input((3,), dtype="int32"),
                keras.layers.Embedding(10, 4),
                keras.layers.Flatten(),
                keras.layers.Dense(1),
            ]
        )
        model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse", jit_compile=jit)
        tokens = np.arange(18, dtype=np.int32).reshape(6, 3) % 10
        dataset = tf.data.Dataset.from_tensor_slices((tokens, np.ones((6, 1), np.float32)))
        model.fit(dataset.batch(4), epochs=2, shuffle=False, verbose=0)  # batches of 4 and 2
        weights = model.trainable_weights
        stats = [capture.record_of(w).latest.figures.stats() for w in weights]
        wanted = {id(w) for w in weights} | {id(getattr(w, "_value", w)) for w in weights}
        sites = [
            site
            for site in list(compiled._tape_sites.values())
            if site.samples is not None and all(id(ref()) in wanted for ref in site.variables)
        ]
        assert len(sites) == 1 and sites[0].sample_places == (compiled.SAMPLE, 12, 1)
        xb, yb = tokens[4:], np.ones((2, 1), np.float32)  # the last step's batch
        with tf.GradientTape() as tape:
            loss = model.compute_loss(x=xb, y=yb, y_pred=model(xb, training=True))
        grads = tape.gradient(loss, weights)
        fulls = [grads[0].values.numpy(), grads[1].numpy(), grads[2].numpy()]
        for figures, full in zip(stats, fulls):
            assert figures.min == pytest.approx(float(full.min()), rel=1e-5, abs=1e-7)
            assert figures.max == pytest.approx(float(full.max()), rel=1e-5, abs=1e-7)
    finally:
        capture.set_budget_mb(None)


def test_a_tape_gradient_inside_tf_function_keeps_its_values_counted_by_runs():
    """A plain-TF step (no optimizer: ``assign_sub``) compiled by ``tf.function``: the
    gradient each run computed lands in the variable's record, labelled by run number."""
    w = tf.Variable([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]])
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.sin(x @ w))
        dw = tape.gradient(loss, w)
        w.assign_sub(0.1 * dw)

    for _ in range(2):
        step()
    before = w.numpy()
    step()
    record = capture.record_of(w).latest  # read before the recompute's tape records
    kept, label = record.gradient.numpy(), record.label
    labels = [label for _, label, _ in record.history]
    w_before = tf.Variable(before)
    with tf.GradientTape() as tape:  # the third run's gradient, eagerly
        loss = tf.reduce_sum(tf.sin(x @ w_before))
    expected = tape.gradient(loss, w_before).numpy()
    assert re.fullmatch(r"call #3 at test_compiled_capture\.py:\d+", label), label
    assert [text.split(" at ")[0] for text in labels] == ["call #1", "call #2", "call #3"]
    assert kept.tobytes() == expected.tobytes()


def test_an_optimizer_applying_the_tapes_gradients_names_them_and_they_are_kept_once():
    from tf_debug_repr.gradients import compiled

    model = dense_model(seed=4)
    model.compile(optimizer="adam", loss="mse")
    x, y = data(32)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)  # 2 steps
    record = capture.record_of(model.trainable_weights[0])
    assert (record.latest.applied_by, record.latest.iteration) == ("Adam", 1)
    history = [label for _, label, _ in record.latest.history]
    assert [label.split(" iteration ")[1] for label in history] == ["0", "1"]
    weights = {id(w) for w in model.trainable_weights}
    assert sum(1 for _, var in compiled._shadows if var in weights) == len(weights)


def test_gradients_clipped_before_the_optimizer_keep_the_applied_and_the_tapes_values():
    keras.utils.set_random_seed(6)
    w = keras.Variable(np.full((4, 3), 2.0, np.float32))
    optimizer = keras.optimizers.SGD(0.0)
    x = tf.constant(data(8)[0])

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(x @ w))
        raw = tape.gradient(loss, [w])
        clipped = [tf.clip_by_norm(g, 1.0) for g in raw]
        optimizer.apply(clipped, [w])

    step()
    step()
    source = capture.record_of(w)
    latest = source.latest
    assert (latest.applied_by, latest.iteration) == ("SGD", 1)
    assert float(tf.norm(latest.gradient)) == pytest.approx(1.0, rel=1e-5)
    tape_records = [r for r in source.all_targets() if r.label.startswith("call #")]
    assert len(tape_records) == 1 and tape_records[0].label.startswith("call #2 at ")
    assert float(tf.norm(tape_records[0].gradient)) > 10  # the raw gradient, not clipped


def test_a_model_trained_by_steps_traced_before_capture_says_why_it_has_no_gradient():
    from tf_debug_repr import views

    views.build_table()
    x, y = data(16)
    capture.set_enabled(False)  # as before a debugger attached
    try:
        model = dense_model(seed=8)
        model.compile(optimizer="sgd", loss="mse")
        model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    finally:
        capture.set_enabled(True)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)  # the old trace: still nothing kept

    def gradient_row():
        return next(c for c in views.children(model) if c.name == "∇ gradients").value

    note = gradient_row()
    assert "the optimizer has taken 3 steps, in functions traced before" in note.text
    assert "model.make_train_function(force=True)" in note.text
    model.make_train_function(force=True)  # what the row says to do
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert "1 of 2 trainable weights recorded" not in gradient_row().summary()
    assert capture.record_of(model.trainable_weights[0]).latest.iteration == 3


@pytest.mark.parametrize("shape", [[512, 300], [4096, 1024], [3, 3, 64, 128], [70_000]])
def test_the_sample_is_blocks_spread_over_every_row_and_every_column(shape):
    """A big gradient's per-step norm reads ``SAMPLE // BLOCK`` blocks of consecutive
    elements spread over it (cheap to read), starting at every column in turn: the
    estimate holds for a gradient whose columns, or rows, differ in scale."""
    from tf_debug_repr.gradients import compiled

    step = compiled.sample_step(shape)
    count = int(np.prod(shape))
    assert step >= compiled.BLOCK
    blocks = compiled.SAMPLE // compiled.BLOCK
    assert (blocks - 1) * step + compiled.BLOCK <= count  # every block inside the gradient
    last = shape[-1]
    starts = {(i * step) % last for i in range(blocks)}
    assert len(starts) == min(last, blocks)  # every column starts a block (or each block another)
    rows, cols = count // last, last
    by_column = np.tile(np.arange(1, cols + 1, dtype=np.float32), rows).reshape(shape)
    by_row = np.repeat(np.arange(1, rows + 1, dtype=np.float32), cols).reshape(shape)
    for values in (by_column, by_row):
        sample, scale = compiled._sample(tf, tf.constant(values), step)
        assert int(tf.size(sample)) == compiled.SAMPLE
        estimate = float(np.sqrt(2.0 * scale * float(tf.nn.l2_loss(sample))))
        assert estimate == pytest.approx(float(np.linalg.norm(values)), rel=0.05)


def test_a_small_gradients_norm_is_read_whole():
    from tf_debug_repr.gradients import compiled

    assert compiled.sample_step([256, 256]) == 0  # 65,536 elements: exact
    assert compiled.sample_step([256, 257]) > 0


def test_a_kept_samples_figures_count_nan_and_inf_and_describe_the_finite_rest():
    from tf_debug_repr.gradients import compiled

    sample = np.array([1.0, -2.0, np.nan, np.inf, 3.0, -np.inf, np.inf], np.float32)
    lo, hi, mean, std, nan, pos, neg = compiled._sample_figures(sample)
    assert (lo, hi, nan, pos, neg) == (-2.0, 3.0, 1.0, 2.0, 1.0)
    assert mean == pytest.approx(2 / 3) and std == pytest.approx(np.std([1.0, -2.0, 3.0]))
    nothing_finite = compiled._sample_figures(np.array([np.nan], np.float32))
    assert np.isnan(nothing_finite[:4]).all() and nothing_finite[4] == 1.0


def test_a_replicated_shadow_reads_as_tfs_aggregated_read_without_its_reduce_path(two_cpus):
    """A replicated step's gradient shadow (a per-replica SUM variable) is read at a stop
    as the AddN of its replicas' reads: bit-equal to TF's aggregated read and to the sum
    of the replicas' values, without the strategy's reduce path (~3.6 ms of Python a read;
    a model's global norm reads every weight's) (tests/unit/two_cpus_program.py)."""
    from .conftest import answer

    same, summed, differ, ops = answer(two_cpus, "replica_sum_of_a_shadow")
    assert same and summed and differ
    assert ops == ["AddN", "ReadVariableOp"], ops


def test_a_replicated_gradients_norm_is_read_from_its_replicas_sample_without_summing_it(
    two_cpus,
):
    """A model's global norm after a replicated step reads each weight's norm from its
    replicas' values added at the elements a single replica's ring samples (exact for a
    gradient of at most ``SAMPLE`` elements, marked an estimate above), with one read per
    replica and no AddN over the whole values (tests/unit/two_cpus_program.py)."""
    from .conftest import answer

    found = answer(two_cpus, "replica_estimate_of_a_shadow")
    small, wide = found["[100, 30]"], found["[512, 512]"]
    assert small["sampled"] is False and small["relative_to_the_exact"] < 1e-9, small
    assert wide["sampled"] is True and wide["relative_to_the_sample"] < 1e-9, wide
    assert wide["relative_to_the_exact"] < 0.05, wide  # the ring's estimate, as one replica's
    assert small["ops"] == wide["ops"] == ["ReadVariableOp"], found


def test_a_sites_own_variables_are_read_where_made_and_no_read_joins_a_graph(monkeypatch):
    """A site reads its counter and rings once where it makes them (TF makes a read's
    kernel at the first read of each dtype and shape, which the first stop paid): eagerly,
    past the function being traced, and not at all where the outermost context is a TF1
    graph (the read would be an op of the program's graph)."""
    from tf_debug_repr.gradients import compiled

    made: list = []
    real = compiled._snapshot
    monkeypatch.setattr(compiled, "_snapshot", lambda v: made.append(real(v)) or made[-1])
    counter = tf.Variable(7, dtype=tf.int64)

    @tf.function
    def step() -> tf.Tensor:
        compiled._warm(tf, (counter,))
        return tf.constant(1)

    graph = step.get_concrete_function().graph
    assert [int(value.numpy()) for value in made] == [7]  # read once, eagerly
    assert not [op for op in graph.get_operations() if op.type == "ReadVariableOp"]
    made.clear()
    with tf.Graph().as_default() as v1:
        held = tf.Variable(1.0)
        before = len(v1.get_operations())
        compiled._warm(tf, (held,))
        assert len(v1.get_operations()) == before and not made


def test_a_compiled_steps_site_reads_its_counter_and_rings_at_the_trace(monkeypatch):
    from tf_debug_repr.gradients import compiled

    warmed: list = []
    real = compiled._warm
    monkeypatch.setattr(compiled, "_warm", lambda tf_, vs: warmed.append(vs) or real(tf_, vs))
    model = dense_model()
    model.compile(optimizer="sgd", loss="mse")
    x, y = data(16)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    names = [[v.name for v in variables] for variables in warmed]
    assert names and all(
        [n.split(":")[0] for n in each] == ["tfdr_steps", "tfdr_iterations", "tfdr_norms"]
        for each in names
    ), names


def test_a_value_no_compiled_step_applies_to_reads_no_counter_and_enters_no_observer_scope(
    monkeypatch,
):
    """A Locals row of a tensor (or of a variable no step trains) asks for its gradient
    record: told by the sites' index, with no op and no observer scope (~20 µs a row);
    a weight's still gets its record, outside a request and inside one."""
    from tf_debug_repr.core import guards
    from tf_debug_repr.gradients import compiled

    model = dense_model()
    model.compile(optimizer="sgd", loss="mse")
    x, y = data(16)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    scopes: list = []
    real = guards.harmless
    monkeypatch.setattr(guards, "harmless", lambda *a: scopes.append(a) or real(*a))
    looks: list = []
    real_look = compiled._look_now
    monkeypatch.setattr(compiled, "_look_now", lambda: looks.append(1) or real_look())
    others = [tf.constant([1.0, 2.0]), tf.Variable([3.0])]
    for request in (None, object()):
        with capture.one_look(request):
            assert capture.record_of(model.trainable_weights[0]) is not None
            scopes.clear()
            looks.clear()
            assert [capture.record_of(v) for v in others] == [None, None]
            assert compiled.pending(others) == [None, None]
            assert not scopes and not looks, (scopes, looks)
    assert capture.record_of(others[0]) is None and not looks
