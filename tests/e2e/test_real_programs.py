"""Real programs in the shape of TensorFlow's tutorials and keras-io examples, stopped
where their users stop, with everything they hold walked as VS Code would walk it.

At each stop every local is expanded a few levels deep; every row must be free of the
plugin's ``<error: …>`` placeholder, and every row that carries an ``evaluateName``
("Add to Watch", "Copy as Expression") must evaluate in the frame to the very value
the row shows. Every row the extension offers "View Tensor" on is then viewed as the
extension views it (``viewer_walk``): its payload must describe that row's value.
"""

from __future__ import annotations

import os
import re

import pytest

from tf_debug_repr.eager.breakpoints import EAGER_DIFFERENCES
from tf_debug_repr.hosts.demo.dap_client import DapError, Variable, line_of

from ..conftest import program_path
from . import real_suite, viewer_walk
from .walk_checks import GROUPS, same_count, same_value

pytestmark = pytest.mark.e2e

DEPTH = 2  # levels below each local
WIDTH = 6  # rows looked at per level (the first ones, as a person scrolls)
# Values the plugin leaves to stock debugpy (whose rows, such as a module's or numpy's
# random Generator's attributes, are not this project's to judge).
STOCK_TYPES = ("module", "Generator")
PAYLOADS_PER_STOP = 120  # "View Tensor" payloads checked per stop (about 5 ms each)


def walk(
    session,
    rows: list[Variable],
    path: str,
    depth: int,
    problems: list[str],
    seen: list[tuple[str, Variable]] | None = None,
) -> int:
    """Expand ``rows`` ``depth`` levels deep; returns the number of rows checked. Each
    row checked is added to ``seen`` with its path."""
    checked = 0
    # pydevd's groups (collapsed, above the rows: a Keras model's "function variables"
    # holds its train_function) take none of the rows a person scrolls through
    for row in [row for row in rows if row.name not in GROUPS][:WIDTH]:
        checked += 1
        where = f"{path}/{row.name}"
        if seen is not None:
            seen.append((where, row))
        if "<error" in row.value:
            problems.append(f"{where}: shows {row.value!r}")
        if row.evaluate_name:
            try:
                result = session.evaluate(row.evaluate_name)["result"]
            except DapError as exc:
                problems.append(f"{where}: {row.evaluate_name!r} does not evaluate: {exc}")
            else:
                if not same_value(row, result) and not same_count(session, row):
                    problems.append(
                        f"{where}: {row.evaluate_name!r} evaluates to {result[:160]!r}, "
                        f"the row shows {row.value[:160]!r}"
                    )
        if row.reference and depth > 0:
            checked += walk(session, session.children(row), where, depth - 1, problems, seen)
    return checked


def walk_locals(session, seen: list[tuple[str, Variable]] | None = None) -> tuple[int, list[str]]:
    problems: list[str] = []
    rows = [v for v in session.locals().values() if v.type not in STOCK_TYPES]
    checked = 0
    for row in rows:  # every local, however many
        checked += walk(session, [row], "", DEPTH, problems, seen)
    return checked, problems


def view_all(session, seen: list[tuple[str, Variable]], least: int) -> None:
    """View Tensor on every tagged row of the walk: at least ``least`` payloads, each
    describing its row's value."""
    viewed, problems = viewer_walk.check_rows(session, seen, PAYLOADS_PER_STOP)
    assert viewed >= least, f"only {viewed} rows offer View Tensor"
    assert not problems, "\n".join(problems)


def test_transformer_block_build_pass_and_real_call(debug_session):
    # The build pass's stops are passed by default (the same call() runs later with values,
    # tests/e2e/test_trace_stops.py); TF_DEBUG_REPR_TRACE_STOPS=1 brings them back, and the
    # user who asks for them reads them as below.
    s = debug_session("real/transformer_block.py", env={"TF_DEBUG_REPR_TRACE_STOPS": "1"})
    # First stop: Keras's symbolic build pass (or the functional model's construction).
    # Its tensors and not yet initialised weights are viewed as an explanation.
    seen: list[tuple[str, Variable]] = []
    checked, problems = walk_locals(s, seen)
    assert checked > 20
    assert not problems, "\n".join(problems)
    view_all(s, seen, 4)
    assert viewer_walk.fetch(s, "inputs")["error"].startswith("no value")
    # Keras traces call() symbolically once more, then fit's first eager call: real values.
    for _ in range(3):
        s.resume_to_next_stop()
        seen = []
        checked, problems = walk_locals(s, seen)
        assert checked > 20
        assert not problems, "\n".join(problems)
        if s.locals()["inputs"].type == "EagerTensor":
            break
    assert s.locals()["inputs"].type == "EagerTensor"
    view_all(s, seen, 100)


def only_breakpoints(session, name: str, markers: list[str]) -> None:
    """Keep only the breakpoints at ``markers`` (a user clearing the one looked at)."""
    path = program_path(name)
    viewer_walk.set_breakpoints(session, path, [line_of(path, m) for m in markers])


def walk_and_view(
    session, least_rows: int, least_viewed: int, names: tuple[str, ...] = ()
) -> list[tuple[str, Variable]]:
    """Walk the locals and ``names`` (the module's, say), then view every tagged row."""
    seen: list[tuple[str, Variable]] = []
    checked, problems = walk_locals(session, seen)
    for name in names:
        answer = session.evaluate(name)
        row = Variable(name, answer["result"], "", answer["variablesReference"], name, {})
        checked += walk(session, [row], "", DEPTH, problems, seen)
    assert checked > least_rows
    assert not problems, "\n".join(problems)
    view_all(session, seen, least_viewed)
    return seen


# Three programs below (oxford_pets_segmentation, text_classification, dcgan_loop) are
# looked at in the
# plugin's run of the real-program suite (``real_suite.Look``: the suite's class of the
# program runs them), at stops that run makes too, instead of in a session of their own:
# each look's test is a test of that class (``TestReal_<program>::<test>``), and fails with
# what its look raised at each stop. The others keep their own session: transformer_block's
# stops the build pass (TF_DEBUG_REPR_TRACE_STOPS=1), actor_critic's stops the episode's
# second step and after the gradients, which the suite's run does not; mixed_precision's
# look (it calls a layer, ``dense1(x)``) made, in the suite's run, rows at the next stop
# that a person who had not looked does not see (a history of what it showed), so the
# suite would no longer record the program as that person sees it.


def oxford_pets_batch(s) -> None:
    # keras-io's U-Net: a Sequence's __getitem__ under fit, then the predicted mask.
    seen = walk_and_view(s, 50, 3, ("model",))
    masks = viewer_walk.fetch(s, "y")  # uint8 trimaps, classes 0-2
    assert masks["dtype"] == "uint8" and masks["image"]["layout"] == "NHWC"
    assert masks["image"]["scale"] == "normalised", "drawn as is, class ids 0-2 are black"
    pictures = viewer_walk.fetch(s, "x")
    assert pictures["image"]["count"] == 4 and pictures["slice"]["axes"] == [1, 2]
    # the U-Net's weights through self: a Conv2DTranspose kernel and the first Conv2D's
    # [3, 3, 3, 8] (NCHW-shaped) are heatmaps, not image grids
    for layer in ("conv2d", "conv2d_transpose"):  # the module's model, seen from the frame
        kernel = viewer_walk.fetch(s, f"model.get_layer('{layer}').kernel")
        assert kernel["error"] is None and kernel["image"] is None, (layer, kernel["shape"])
    assert {"ndarray", "Variable"} <= {r.type for _, r in seen if viewer_walk.is_tagged(r)}


def oxford_pets_mask(s) -> None:
    assert "mask" in s.locals()
    walk_and_view(s, 20, 1)
    mask = viewer_walk.fetch(s, "mask")  # argmax: int64 [64, 64, 1]
    assert mask["image"]["layout"] == "HWC" and mask["image"]["scale"] == "normalised"
    predicted = viewer_walk.fetch(s, "val_preds")  # softmax: three classes as RGB in [0, 1]
    assert predicted["image"]["scale"] == "unit" and predicted["image"]["count"] == 8


def text_classification_batch(s) -> None:
    # keras-io's TextVectorization example: a string batch, the adapted layer, the models.
    walk_and_view(s, 40, 2)
    text = viewer_walk.fetch(s, "text_batch")
    assert text["error"] == "strings: no numbers to draw" and text["dtype"] == "string"


def text_classification_end(s) -> None:
    walk_and_view(s, 100, 20)


def text_classification_vector(s) -> None:
    seen = walk_and_view(s, 100, 20)
    ids = viewer_walk.fetch(s, "vectorized_batch")
    assert (ids["dtype"], ids["shape"], ids["image"]) == ("int64", [32, 500], None)
    truth = s.evaluate("int(vectorized_batch.numpy().max())")["result"]
    assert ids["stats"]["max"] == int(truth) and ids["stats"]["zeros"] > 0  # the padding
    assert "GradientInfo" in {r.type for _, r in seen if viewer_walk.is_tagged(r)}


def test_actor_critic_tensor_arrays_in_an_episode(debug_session):
    # TF's actor-critic tutorial, its tf.function run eagerly: inside the episode loop,
    # then after the gradients.
    name = "real/actor_critic.py"
    markers = ["EPISODE_BREAKPOINT", "STEP_BREAKPOINT"]
    s = debug_session(name, markers=markers, env={"TF_DEBUG_REPR_EAGER": "1"})
    s.resume_to_next_stop()  # the second step: two values written, one reward
    rows = s.locals()
    assert rows["values"].type == "TensorArray" and viewer_walk.is_tagged(rows["values"])
    seen = walk_and_view(s, 50, 10)
    assert "TensorArray" in {r.type for _, r in seen if viewer_walk.is_tagged(r)}
    # the critic's values so far, as .stack() would give them (not called: nothing changes)
    values = viewer_walk.fetch(s, "values")
    assert (values["kind"], values["dtype"], values["shape"]) == ("tensor array", "float32", [2])
    written = s.evaluate("[float(e) for e in values._implementation._tensor_array]")["result"]
    assert values["stats"]["max"] == pytest.approx(max(eval(written)), rel=1e-6)
    assert viewer_walk.fetch(s, "rewards")["shape"] == [1]  # this step's not written yet
    assert s.evaluate("values.size()")["result"].startswith("2 int32")
    only_breakpoints(s, name, markers[1:])
    s.resume_to_next_stop()
    assert {"grads", "returns", "loss"} <= set(s.locals())
    walk_and_view(s, 100, 40)


def test_mixed_precision_loop_float16_values(debug_session):
    # TF's mixed precision guide: mixed_float16 policy, LossScaleOptimizer, inside the
    # custom loop's step (run eagerly), then after the epoch.
    name = "real/mixed_precision.py"
    s = debug_session(
        name, markers=["STEP_BREAKPOINT", "EPOCH_BREAKPOINT"], env={"TF_DEBUG_REPR_EAGER": "1"}
    )
    assert {"scaled_loss", "scaled_gradients", "predictions"} <= set(s.locals())
    walk_and_view(s, 50, 20, ("optimizer",))
    # A Dense layer's float16 activations, as a user watches them
    hidden = viewer_walk.fetch(s, "dense1(x)")
    assert (hidden["dtype"], hidden["shape"]) == ("float16", [128, 64])
    truth = s.evaluate(
        "(lambda a: [float(a.min()), float(a.max()), float(a.mean(dtype=np.float64))])"
        "(dense1(x).numpy())"
    )
    low, high, mean = eval(truth["result"])
    stats = hidden["stats"]
    assert (stats["min"], stats["max"]) == (low, high)
    assert stats["mean"] == pytest.approx(mean, rel=1e-6)  # over float16, summed in float64
    # float16's edges: the largest finite value, a subnormal, an overflow to +Inf
    edges = viewer_walk.fetch(s, "tf.constant([6e-8, 65504.0, 1.0, 7e4], tf.float16)")
    assert (edges["stats"]["max"], edges["stats"]["posinf"]) == (65504.0, 1)
    assert edges["stats"]["min"] == pytest.approx(5.96e-8, rel=1e-2)
    only_breakpoints(s, name, ["EPOCH_BREAKPOINT"])
    s.resume_to_next_stop()
    walk_and_view(s, 50, 20, ("model", "optimizer"))


def dcgan_loop_two_tapes_two_optimizers(s) -> None:
    # real/dcgan_loop.py: two tapes, two optimizers, walked from the locals and the globals.
    seen: list[tuple[str, Variable]] = []
    checked, problems = walk_locals(s, seen)
    assert checked > 50
    assert not problems, "\n".join(problems)
    # The globals hold both models and both optimizers: walk them from the module frame's view.
    for name in ("generator", "discriminator", "g_optimizer", "d_optimizer", "d_loss_metric"):
        row = Variable(
            name,
            s.evaluate(name)["result"],
            "",
            s.evaluate(name)["variablesReference"],
            name,
            {},
        )
        problems = []
        walk(s, [row], "", DEPTH, problems, seen)
        assert not problems, "\n".join(problems)
    # Tensors, tf.Variables, Keras 3 Variables, numpy arrays: each one's payload.
    view_all(s, seen, 100)
    assert {"EagerTensor", "ResourceVariable", "Variable", "ndarray"} <= {
        row.type for _, row in seen if viewer_walk.is_tagged(row)
    }
    batch = viewer_walk.fetch(s, "real_images")
    assert batch["image"]["layout"] == "NHWC" and batch["image"]["count"] == 8
    assert batch["slice"]["axes"] == [1, 2]  # one image's height x width, not width x channels


def dcgan_gradient_row_viewed_as_the_gradient(s) -> None:
    kernel = s.evaluate("generator.trainable_weights[0]")
    rows = {r.name: r for r in s.client.variables(kernel["variablesReference"])}
    gradient = rows["∇ gradient"]
    assert viewer_walk.is_tagged(gradient)
    expression = viewer_walk.viewable_expression(gradient.evaluate_name)
    assert expression.startswith("__import__('tf_debug_repr').gradient_of(")
    p = viewer_walk.fetch(s, expression)
    assert not viewer_walk.check_payload(s, gradient, expression, p), p["error"]
    assert p["kind"] == "tensor" and p["shape"] == [16, 7 * 7 * 16]
    # The very gradient the step applied (its own list holds it), not the weight.
    same = viewer_walk.fetch(s, "g_grads[0]")
    for part in ("stats", "histogram", "slice"):
        assert p[part] == same[part], part
    low = float(s.evaluate("float(g_grads[0].numpy().min())")["result"])
    high = float(s.evaluate("float(g_grads[0].numpy().max())")["result"])
    assert (p["stats"]["min"], p["stats"]["max"]) == pytest.approx((low, high), rel=1e-6)
    weight = viewer_walk.fetch(s, "generator.trainable_weights[0]")
    assert weight["stats"]["min"] != p["stats"]["min"]
    # The model's own "∇ gradients" table: its first row is that same gradient.
    model = s.evaluate("generator")
    table = {r.name: r for r in s.client.variables(model["variablesReference"])}["∇ gradients"]
    first = s.children(table)[0]
    assert viewer_walk.is_tagged(first)
    expression = viewer_walk.viewable_expression(first.evaluate_name)
    row_payload = viewer_walk.fetch(s, expression)
    assert not viewer_walk.check_payload(s, first, expression, row_payload), row_payload["error"]
    for part in ("stats", "histogram", "slice"):
        assert row_payload[part] == same[part], part


LOOKS = (
    real_suite.Look(
        "test_oxford_pets_segmentation_batch_and_predicted_mask",
        "real/oxford_pets_segmentation.py",
        ("compiled",),
        {"BATCH_BREAKPOINT": oxford_pets_batch, "MASK_BREAKPOINT": oxford_pets_mask},
    ),
    real_suite.Look(
        "test_text_classification_strings_and_token_ids",
        "real/text_classification.py",
        ("compiled",),
        {
            "BATCH_BREAKPOINT": text_classification_batch,
            "END_BREAKPOINT": text_classification_end,
            "VECTOR_BREAKPOINT": text_classification_vector,
        },
    ),
    # TestDcganLoop's two tests before, on a session of their own to the same stop
    real_suite.Look(
        "test_dcgan_loop_two_tapes_two_optimizers",
        "real/dcgan_loop.py",
        ("compiled",),
        {"BREAKPOINT": dcgan_loop_two_tapes_two_optimizers},
    ),
    real_suite.Look(
        "test_dcgan_gradient_row_viewed_as_the_gradient",
        "real/dcgan_loop.py",
        ("compiled",),
        {"BREAKPOINT": dcgan_gradient_row_viewed_as_the_gradient},
    ),
)


# ------------------------------------------------------------------ never worse than stock
# Each program of real_suite.PROGRAMS, run once under stock debugpy and once under the plugin
# per mode (compiled; eager: TF_DEBUG_REPR_EAGER=1), stopped at its
# markers; each check below reads those recorded runs (issue 26). One class per program, so
# that pytest-xdist's ``--dist loadscope`` keeps a program's checks on one worker, which runs
# the program once per debugger and mode.


@pytest.fixture(scope="session")
def runs():
    """``runs(program, debugger, mode)``: that run, made once (a program's runs are started
    together at the first asking for any of them: ``real_suite.Runs``)."""
    made = real_suite.Runs(os.environ.get("REAL_SUITE_REPORT"), looks=LOOKS)
    yield made.get
    made.close()


def ran(run: real_suite.Run) -> str:
    return f"{run.debugger}/{run.mode}: {run.failure or ''} exit {run.exit_code}\n{run.console[-3000:]}"


# Plugin faults the suite found and that are not fixed yet: (program, check, mode) -> the
# cause. Each such test is expected to fail (strict: once fixed, it fails until removed here).
KNOWN_FAULTS: dict[tuple[str, str, str], str] = {}

# Failures first seen in the run of the whole suite on the merged code (2026-12-06), each
# with what that run showed; not yet investigated, so not strict: they are listed in the
# closing note as open work, and a pass is reported as XPASS.
SEEN_FAULTS: dict[tuple[str, str, str], str] = {}


class RealProgramChecks:
    """The checks of one program (``program``), each in the program's modes (``mode``,
    parametrised per class below)."""

    program: real_suite.Program

    @pytest.fixture(autouse=True)
    def _known_fault(self, request, mode):
        key = (real_suite.program_id(self.program), request.node.originalname, mode)
        if key in KNOWN_FAULTS:
            request.node.add_marker(pytest.mark.xfail(strict=True, reason=KNOWN_FAULTS[key]))
        elif key in SEEN_FAULTS:
            request.node.add_marker(pytest.mark.xfail(strict=False, reason=SEEN_FAULTS[key]))

    def test_runs_to_its_end_under_stock_and_the_plugin(self, runs, mode):
        for run in (runs(self.program, "stock"), runs(self.program, "plugin", mode)):
            assert run.failure is None and run.exit_code == 0, ran(run)
        plugin = runs(self.program, "plugin", mode)
        assert [stop.marker for stop in plugin.stops] == list(self.program.stops), ran(plugin)

    def test_walked_three_levels_deep(self, runs, mode):
        run = runs(self.program, "plugin", mode)
        assert run.stops, ran(run)
        for stop in run.stops:
            deepest = max((row.level for row in stop.rows), default=0)
            least = 1 if stop.marker in self.program.shallow else real_suite.DEPTH
            assert deepest >= least, stop.marker

    def test_no_row_reads_as_an_error(self, runs, mode):
        run = runs(self.program, "plugin", mode)
        assert run.stops, ran(run)
        found = real_suite.error_rows(run)
        assert not found, f"{len(found)} rows:\n" + "\n".join(found[:40])

    def test_every_expression_gives_what_its_row_shows(self, runs, mode):
        run = runs(self.program, "plugin", mode)
        evaluated = sum(row.result is not None for stop in run.stops for row in stop.rows)
        assert evaluated > 10, ran(run)
        found = real_suite.mismatches(run)
        assert not found, f"{len(found)} rows:\n" + "\n".join(found[:40])

    def test_a_stop_in_compiled_code_shows_values(self, runs, mode):
        if not self.program.compiled:
            pytest.skip("no stop lies in compiled code")
        run = runs(self.program, "plugin", mode)
        assert [s.marker for s in run.stops if s.marker in self.program.compiled], ran(run)
        found = real_suite.symbolic_locals(run)
        assert not found, "\n".join(found)

    def test_every_view_tensor_payload_describes_its_row(self, runs, mode):
        run = runs(self.program, "plugin", mode)
        assert sum(stop.viewed for stop in run.stops) > 0, ran(run)
        found = [p for stop in run.stops for p in stop.view_problems]
        assert not found, f"{len(found)} payloads:\n" + "\n".join(found[:40])

    def test_every_name_stock_shows_is_there(self, runs, mode):
        stock, plugin = runs(self.program, "stock"), runs(self.program, "plugin", mode)
        assert stock.stops and plugin.stops, (ran(stock), ran(plugin))
        assert any(stop.names for stop in stock.stops), "stock showed no object"
        lost = real_suite.lost_names(stock, plugin)
        assert not lost, f"{len(lost)} names:\n" + "\n".join(lost[:60])

    def test_user_code_called_no_more_than_under_stock(self, runs, mode):
        stock, plugin = runs(self.program, "stock"), runs(self.program, "plugin", mode)
        assert sum(sum(s.reads.values()) for s in stock.stops) > 0, (
            f"the probes were never read: {ran(stock)}"
        )
        assert sum(plugin.reads.values()) > 0, f"the probes' counts never came: {ran(plugin)}"
        more = real_suite.extra_reads(stock, plugin)
        assert not more, f"reads at a stop (plugin, stock): {more}"

    def test_output_is_stocks_when_nothing_ran_eagerly(self, runs, mode):
        stock, plugin = runs(self.program, "stock"), runs(self.program, "plugin", mode)
        if mode == "compiled" and not self.program.compiled:
            assert plugin.stdout == stock.stdout, (
                f"no breakpoint in compiled code, yet the output differs:\n"
                f"under stock:\n{stock.stdout}\nunder the plugin:\n{plugin.stdout}"
            )

    def test_compiled_code_run_eagerly_is_said_and_differs_as_said(self, runs, mode):
        """Where a stop lies in compiled code (or every function runs eagerly), the Debug
        Console says which function runs eagerly and names what differs from its compiled
        run (``EAGER_DIFFERENCES``); the output then differs only in that way: its numbers
        (other random draws, rounding), lines printed by the function's Python code once
        per call instead of once per trace, and Python state the function keeps (a shape's
        ``None`` become a number: ``real_suite.differences_not_said``), compared with stock
        debugpy's run, where every function runs compiled as with no debugger."""
        if mode == "compiled" and not self.program.compiled:
            pytest.skip("no stop lies in compiled code: the output is stock's")
        stock, plugin = runs(self.program, "stock"), runs(self.program, "plugin", mode)
        told = " ".join(plugin.console.split())
        assert " ".join(EAGER_DIFFERENCES.split()) in told, plugin.console[-3000:]
        if mode == "compiled":
            lines = [real_suite.line_of_marker(self.program, m) for m in self.program.compiled]
            named = re.findall(r"because a breakpoint at [^:]+:(\d+) lies in code it runs", told)
            assert {int(n) for n in named} & set(lines), (lines, plugin.console[-3000:])
        found = real_suite.differences_not_said(
            self.program, stock.stdout, plugin.stdout, eager=mode == "eager"
        )
        assert not found, (
            "\n".join(found) + f"\nunder stock:\n{stock.stdout}\nunder the plugin ({mode}):\n"
            f"{plugin.stdout}"
        )


def look_test(look: real_suite.Look):
    """The test of ``look``: it passes where the look, made in the plugin's run of its
    program (its modes), raised nothing at any of its stops."""

    def test(self, runs, mode):
        if mode not in look.modes:
            pytest.skip(f"looked at in the {' and '.join(look.modes)} mode only")
        run = runs(self.program, "plugin", mode)
        stops = {stop.marker: stop for stop in run.stops}
        for marker in look.at:
            assert marker in stops, ran(run)
            assert look.test in stops[marker].looks, f"{marker}: not looked at"
            failure = stops[marker].looks[look.test]
            assert failure is None, f"at {marker}:\n{failure}"

    test.__name__ = test.__qualname__ = look.test
    return test


for _program in real_suite.PROGRAMS:
    _name = f"TestReal_{real_suite.program_id(_program)}"
    _tests: dict = {"program": _program}
    for _look in LOOKS:
        if _look.program == _program.name:
            _tests[_look.test] = look_test(_look)
    globals()[_name] = pytest.mark.parametrize("mode", _program.modes)(
        type(_name, (RealProgramChecks,), _tests)
    )
