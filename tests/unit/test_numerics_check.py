"""The NaN/Inf check without a debugger: what it raises, what it leaves alone."""

from __future__ import annotations

import traceback

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from tf_debug_repr.forensics import numerics as numerics_check  # noqa: E402


@pytest.fixture
def checking():
    numerics_check.enable()
    yield
    numerics_check.disable()


def test_eager_nan_raises_with_op_device_counts_place_and_inputs(checking):
    x = tf.constant([[4.0, -1.0], [0.0, 9.0]])
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        tf.sqrt(x)
    error = caught.value
    assert type(error).__name__ == "NumericsError"
    assert (error.op_type, error.device, error.nan, error.pos_inf, error.neg_inf) == (
        "Sqrt",
        "CPU:0",
        1,
        0,
        0,
    )
    assert error.first_bad == (0, 1)
    assert error.inputs[0] is x
    assert np.isnan(error.output.numpy()[0, 1])
    assert "op Sqrt on CPU:0: output 0 of 1, float32[2, 2] has NaN×1 of 4, first at [0, 1]" in (
        error.message
    )
    assert "0: float32[2, 2] x∈[-1, 9]" in error.message


def test_infinities_are_counted_by_sign(checking):
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        tf.constant([1.0, -1.0, 0.0, 2.0]) / 0.0
    e = caught.value
    assert (e.nan, e.pos_inf, e.neg_inf, e.first_bad) == (1, 2, 1, (0,))


def test_clean_results_and_gradients_are_unchanged(checking):
    x = tf.Variable(tf.random.stateless_normal([16, 8], seed=[3, 4]))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.tanh(x @ tf.transpose(x)))
    checked = (y.numpy(), tape.gradient(y, x).numpy())
    numerics_check.disable()
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.tanh(x @ tf.transpose(x)))
    plain = (y.numpy(), tape.gradient(y, x).numpy())
    assert checked[0].tobytes() == plain[0].tobytes()
    assert checked[1].tobytes() == plain[1].tobytes()


def test_integer_and_safe_ops_are_not_checked(checking):
    assert tf.reshape(tf.constant([np.nan]), [1, 1]).shape == (1, 1)  # Reshape: a safe op
    assert int(tf.constant(3) // 1) == 3


def test_inside_tf_function_the_message_names_the_op_and_the_line(checking):
    @tf.function
    def log_of(values):
        return tf.math.log(values)  # THE LINE

    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        log_of(tf.constant([1.0, -1.0]))
    text = str(caught.value)
    assert "NaN/Inf produced by op Log in tf.function graph log_of" in text
    assert "in log_of: return tf.math.log(values)  # THE LINE" in text
    assert "test_numerics_check.py:" in text
    # Counts and the first index, computed only in the branch that raises.
    assert "output 0 holds NaN: 1, +Inf: 0, -Inf: 0 of 2 elements, first at [1]" in text


def test_an_xla_function_is_checked_op_by_op_and_names_the_line(checking, capsys):
    # XLA has no op that raises on NaN/Inf: a check writes what it found into a variable,
    # which the call reads when it returns; nothing fails, TF prints nothing.
    @tf.function(jit_compile=True)
    def log_of(values):
        doubled = values * 2.0
        return tf.math.log(doubled)  # THE XLA LINE

    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        log_of(tf.constant([1.0, -1.0]))
    text = str(caught.value)
    assert text.startswith("NaN/Inf produced by op Log in tf.function graph log_of, created at")
    assert "in log_of: return tf.math.log(doubled)  # THE XLA LINE" in text.split("\n")[0]
    assert "output 0 holds NaN: 1, +Inf: 0, -Inf: 0 of 2 elements, first at [1]" in text
    assert caught.value.op_type == "Log" and caught.value.nan == 1
    assert caught.value.first_bad == (1,)
    assert capsys.readouterr().err == ""
    # the next clean call is not blamed for the last one
    assert float(log_of(tf.constant([1.0, 2.0]))[0]) == pytest.approx(np.log(2.0))


def test_a_nan_made_in_a_gradient_names_the_forward_line(checking):
    w = tf.Variable([1.0, 2.0])

    def step():
        with tf.GradientTape() as tape:
            d = w * 0.0
            y = tf.norm(d)  # THE FORWARD LINE
        return tape.gradient(y, w)

    for run in (step, tf.function(step), tf.function(step, jit_compile=True)):
        with pytest.raises(tf.errors.InvalidArgumentError) as caught:
            run()
        first = str(caught.value).split("\n")[0]
        assert first.startswith("NaN/Inf made in the gradient of Sqrt at "), first
        assert first.endswith("in step: y = tf.norm(d)  # THE FORWARD LINE"), first


def test_the_debuggers_own_ops_never_stop(checking):
    from tf_debug_repr.core.guards import harmless

    with harmless():
        assert np.isnan(tf.sqrt(tf.constant(-1.0)).numpy())
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.sqrt(tf.constant(-1.0))


def test_disabled_nothing_is_checked():
    assert not numerics_check._installed
    assert np.isnan(tf.sqrt(tf.constant(-1.0)).numpy())


def test_dtypes_without_a_check_kernel_pass_through(checking):
    import ml_dtypes

    # float8 holds NaN; TF has no check kernel for it, so it passes unchecked, unbroken
    x = tf.constant(np.array([np.nan, 2.0], dtype=ml_dtypes.float8_e4m3fn))
    y = tf.identity(x)
    assert y.dtype.name == "float8_e4m3fn"
    assert np.isnan(y.numpy().astype(np.float32)[0])


# ±Inf is often made on purpose (issue 16 item 11): by default only NaN stops.


@pytest.fixture
def checking_inf():
    numerics_check.enable(stop_on_inf=True)
    yield
    numerics_check.disable()


def test_deliberate_infinities_pass_by_default(checking):
    scores = tf.constant([[2.0, 1.0, 0.5]])
    masked = tf.where(tf.constant([[True, True, False]]), scores, -np.inf)  # attention mask
    weights = tf.nn.softmax(masked)
    assert weights.numpy()[0, 2] == 0.0
    log_p = tf.math.log(tf.constant([0.5, 0.0]))  # log(0): -Inf, on purpose
    assert log_p.numpy()[1] == -np.inf

    @tf.function
    def log_of(values):
        return tf.math.log(values)

    assert log_of(tf.constant([1.0, 0.0])).numpy()[1] == -np.inf
    # and a NaN still stops, eagerly and inside tf.function
    with pytest.raises(tf.errors.InvalidArgumentError, match="NaN×1"):
        tf.math.log(tf.constant([-1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="NaN: 1"):
        log_of(tf.constant([-1.0]))


def test_infinities_stop_when_asked(checking_inf):
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        tf.math.log(tf.constant([0.5, 0.0]))
    e = caught.value
    assert (e.op_type, e.nan, e.pos_inf, e.neg_inf, e.first_bad) == ("Log", 0, 0, 1, (1,))
    assert "TF_DEBUG_REPR_CHECK_NUMERICS=nan,inf: NaN, Inf and -Inf stop" in e.message

    @tf.function
    def log_of(values):
        return tf.math.log(values)

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"NaN: 0, \+Inf: 0, -Inf: 1"):
        log_of(tf.constant([1.0, 0.0]))


def test_a_division_by_zero_stops_where_it_makes_inf_not_where_its_nan_comes(checking):
    """``h / scale`` with ``scale`` 0 makes +Inf; ``inf - inf`` on the next line makes the
    NaN. The stop is the division's, with its inputs; a division that only passes an Inf
    on (an input already infinite) and an Inf made by another op (log(0)) pass."""
    h, scale = tf.constant([1.0, 2.0]), tf.constant(0.0)
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        h / scale
    e = caught.value
    assert (e.op_type, e.nan, e.pos_inf, e.first_bad) == ("RealDiv", 0, 2, (0,))
    assert e.inputs[0] is h and e.inputs[1] is scale
    assert "a division by zero: Inf made from finite inputs stops here" in e.message
    for divide in (tf.math.reciprocal, tf.math.rsqrt):
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"\+Inf×1 of 2"):
            divide(tf.constant([4.0, 0.0]))
    assert (tf.constant([np.inf, 1.0]) / 2.0).numpy()[0] == np.inf  # passed on, not made
    assert tf.math.log(tf.constant([0.0])).numpy()[0] == -np.inf  # not a division

    @tf.function
    def ratio_of(values, divisor):
        return values / divisor

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"NaN: 0, \+Inf: 1, -Inf: 1"):
        ratio_of(tf.constant([1.0, -1.0]), tf.constant(0.0))
    passed_on = ratio_of(tf.constant([np.inf, 1.0]), tf.constant(2.0))
    assert passed_on.numpy().tolist() == [np.inf, 0.5]


def _stop_and_look(x):
    """Run an op that makes a NaN, check what the stop hands over, let go of the error."""
    try:
        tf.sqrt(x)
    except tf.errors.InvalidArgumentError as error:
        assert repr(error).startswith("NumericsError('NaN/Inf first produced by op Sqrt on CPU")
        # the message gives expressions that reach the tensors, through the public API only
        lines = [line.strip() for line in error.message.splitlines()]
        assert f"{numerics_check.STOP_EXPRESSION}.inputs" in lines
        assert f"{numerics_check.STOP_EXPRESSION}.output" in lines
        assert "NaN and a division's Inf stop, other Inf and -Inf pass" in error.message
        inputs = eval(f"{numerics_check.STOP_EXPRESSION}.inputs")
        output = eval(f"{numerics_check.STOP_EXPRESSION}.output")
        return inputs[0] is x and output is error.output
    return False


def test_the_stop_hands_over_its_tensors_and_says_what_it_is(checking):
    import gc

    import tf_debug_repr

    assert numerics_check.STOP_EXPRESSION == "__import__('tf_debug_repr').numerics_stop()"
    assert _stop_and_look(tf.constant([4.0, -1.0]))
    # held weakly: once the program lets go of the exception, no tensor is kept alive
    gc.collect()
    assert tf_debug_repr.numerics_stop() is None


@pytest.mark.parametrize(
    ("value", "mode"),
    [
        ("", None),
        ("0", None),
        ("1", "nan"),
        ("true", "nan"),
        ("nan", "nan"),
        ("nan,inf", "nan,inf"),
        (" NaN, Inf ", "nan,inf"),
        ("inf", "nan,inf"),
        ("nan+inf", "nan,inf"),
        ("everything", "nan"),
    ],
)
def test_the_switch_values(monkeypatch, capsys, value, mode):
    from tf_debug_repr.forensics import features

    monkeypatch.setenv(features.CHECK_NUMERICS, value)
    assert features.check_numerics_mode() == mode
    assert ("not understood" in capsys.readouterr().err) == (value == "everything")


def test_rebuilt_as_tf_errors_are_it_keeps_its_facts(checking):
    """Keras re-raises an op's error from a layer's call() as
    ``type(e)(e.node_def, e.op, message, e.error_code)`` with the layer's arguments added."""
    x = tf.constant([-1.0])
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        tf.sqrt(x)
    e = caught.value
    rebuilt = type(e)(e.node_def, e.op, f"In a layer:\n\n{e.message}\n\nArguments …", e.error_code)
    assert (rebuilt.op_type, rebuilt.nan, rebuilt.inputs[0]) == ("Sqrt", 1, x)
    # the check's sentence first (what the user needs), the re-raiser's words after it
    assert rebuilt.message.startswith(e.message + "\n"), rebuilt.message
    assert rebuilt.message.endswith("\n    In a layer:\n    Arguments …"), rebuilt.message
    bold = type(e)(e.node_def, e.op, f"Layer said:\n\n\x1b[1m{e.message}\x1b[0m", e.error_code)
    assert bold.message.startswith(e.message) and "\x1b" not in bold.message
    unrelated = type(e)(None, None, "something else", e.error_code)
    assert (unrelated.op_type, unrelated.output) == ("?", None)


@pytest.mark.parametrize("jit_compile", [False, True])
def test_a_compiled_call_is_rerun_eagerly_to_the_line_and_its_state_kept(checking, jit_compile):
    # As JAX's jax_debug_nans: the call that made a NaN runs again eagerly, op by op, from
    # its variables' values before it; the error comes from the line, with its frame; the
    # variables are then what the compiled call left (the plain run's).
    count = tf.Variable(0)
    w = tf.Variable([1.0, -1.0])

    @tf.function(jit_compile=jit_compile)
    def step(x):
        count.assign_add(1)
        roots = tf.sqrt(w * x)  # THE RERUN LINE
        w.assign_add(roots * x)
        return tf.reduce_sum(roots)

    assert float(step(tf.constant(0.0))) == 0.0  # traced, clean
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        step(tf.constant(1.0))
    text = str(caught.value)
    assert text.startswith("NaN/Inf first produced by op Sqrt"), text
    assert "by re-running this call of step eagerly" in text
    frames = [f for f in traceback.extract_tb(caught.value.__traceback__) if f.name == "step"]
    assert frames and frames[-1].line.endswith("# THE RERUN LINE"), frames
    from tf_debug_repr.core.guards import harmless

    with harmless():  # read as the debugger does (a read of a NaN eagerly would stop)
        assert int(count.numpy()) == 2  # once per call, as compiled, not once more
        values = w.numpy()
    assert np.isnan(values[1]) and values[0] == 2.0  # what the compiled call wrote


def test_a_call_taking_an_iterator_is_not_rerun(checking):
    # Keras's compiled fit functions take an iterator: a re-run would take the next batch.
    w = tf.Variable([1.0, -1.0])
    batches = iter(tf.data.Dataset.from_tensor_slices([[1.0], [1.0], [5.0]]))

    @tf.function
    def step(iterator):
        x = next(iterator)
        return tf.sqrt(w * x)

    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        step(batches)
    text = str(caught.value)
    assert text.startswith("NaN/Inf produced by op Sqrt in tf.function graph step"), text
    assert "re-running" not in text
    assert float(next(batches)[0]) == 1.0  # the second batch: taken by no re-run


def test_the_step_an_iterator_taking_call_makes_is_rerun_from_its_batch(checking, capsys):
    # Keras's compiled fit: a tf.function of the iterator calls a tf.function of one batch.
    # That one is re-run, from the batch it was given (kept when its call was traced), not
    # the next one; the iterator is not advanced; the variables end as the compiled call.
    count = tf.Variable(0)
    w = tf.Variable([1.0, 1.0])
    batches = iter(tf.data.Dataset.from_tensor_slices([[1.0], [-1.0], [5.0]]))

    @tf.function
    def one_batch(x):
        count.assign_add(1)
        roots = tf.sqrt(w * x)  # THE BATCH LINE
        w.assign_add(roots)
        return roots

    @tf.function
    def on_iterator(iterator):
        return one_batch(next(iterator))

    assert on_iterator(batches).numpy().tolist() == [1.0, 1.0]  # the first batch: clean
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        on_iterator(batches)  # the second: sqrt(-2)
    text = str(caught.value)
    assert text.startswith("NaN/Inf first produced by op Sqrt"), text
    assert "re-running this call of one_batch eagerly from the arguments it was given" in text
    frames = [f for f in traceback.extract_tb(caught.value.__traceback__) if f.name == "one_batch"]
    assert frames and frames[-1].line.endswith("# THE BATCH LINE"), frames
    from tf_debug_repr.core.guards import harmless

    with harmless():
        assert int(count.numpy()) == 2  # once per compiled call, not once more
        assert float(next(batches)[0]) == 5.0  # the third batch: none taken by the re-run
    assert "tf-debug-repr:" not in capsys.readouterr().err


def test_a_step_called_in_a_loop_is_not_rerun_and_says_so(checking, capsys):
    # steps_per_execution > 1: the step is called in a loop, its batch not kept.
    w = tf.Variable([1.0, -1.0])
    batches = iter(tf.data.Dataset.from_tensor_slices([[1.0], [-1.0]]))

    @tf.function
    def one_batch(x):
        return tf.sqrt(w * x)

    @tf.function
    def on_iterator(iterator):
        total = tf.zeros([2])
        for _ in tf.range(2):
            total += one_batch(next(iterator))
        return total

    numerics_check._warned.discard("re-run")
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        on_iterator(batches)
    assert str(caught.value).startswith("NaN/Inf produced by op Sqrt"), str(caught.value)
    err = capsys.readouterr().err
    assert "not re-run to stop on its line because it is called in a loop" in err, err


def test_two_threads_tracing_at_once_tie_each_check_to_its_own_call(checking):
    # The check installed on two threads of the program's (``enable`` is per thread, as TF's
    # op callbacks are). Thread A traces `outer_a`, which calls the tf.function `inner_a`;
    # while A is inside inner_a's trace, thread B traces `outer_b`, whose NaN op lies in
    # outer_b itself. Once A is done, B's NaN comes: its check belongs to no inner call (the
    # error comes at the call, nothing re-run); A's to inner_a (re-run from its batch,
    # stopping on its line).
    import threading

    w = tf.Variable([1.0, -1.0])
    a_inside, b_traced, a_done = threading.Event(), threading.Event(), threading.Event()

    @tf.function
    def inner_a(x):
        a_inside.set()
        b_traced.wait(timeout=60)  # B traces its whole function meanwhile
        return tf.sqrt(w * x)  # THE A LINE

    @tf.function
    def outer_a(iterator):
        return inner_a(next(iterator))

    @tf.function
    def outer_b(iterator):
        a_inside.wait(timeout=60)
        roots = tf.sqrt(tf.abs(w) * next(iterator))  # THE B LINE
        b_traced.set()
        return roots

    errors: dict[str, BaseException] = {}

    def batches(value: float):
        return iter(tf.data.Dataset.from_tensor_slices([[value]]))

    def run_a() -> None:
        numerics_check.enable()  # op callbacks are per thread
        try:
            outer_a(batches(1.0))
        except BaseException as exc:  # noqa: BLE001 (read below)
            errors["a"] = exc
        finally:
            a_done.set()
            numerics_check.disable()

    def run_b() -> None:
        numerics_check.enable()
        try:
            assert outer_b(batches(1.0)).numpy().tolist() == [1.0, 1.0]  # traced, clean
            a_done.wait(timeout=60)
            outer_b(batches(-1.0))  # the same graph: its NaN now
        except BaseException as exc:  # noqa: BLE001 (read below)
            errors["b"] = exc
        finally:
            numerics_check.disable()

    threads = [threading.Thread(target=run_a), threading.Thread(target=run_b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert a_inside.is_set() and b_traced.is_set()  # the traces did overlap
    assert set(errors) == {"a", "b"}, errors
    a, b = str(errors["a"]), str(errors["b"])
    assert "re-running this call of inner_a eagerly" in a, a
    frames = [f for f in traceback.extract_tb(errors["a"].__traceback__) if f.name == "inner_a"]
    assert frames and frames[-1].line.endswith("# THE A LINE"), frames
    assert b.startswith("NaN/Inf produced by op Sqrt in tf.function graph outer_b"), b
    assert "inner_a" not in b and "re-running" not in b, b
