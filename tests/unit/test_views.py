"""The views on real tensors, without a debugger: what a value looks like, each child's
expression evaluated with eval() as pydevd would, and the adapter's error guard."""

import numpy as np
import pytest
import tensorflow as tf

from tf_debug_repr import views
from tf_debug_repr.core.view_model import Child, Node, Note, Scalar
from tf_debug_repr.hosts.pydevd import adapter as pydevd_adapter
from tf_debug_repr.views import tensors as tensor_views


def resolve_expression(expression, parent: str) -> str:
    return expression(parent) if callable(expression) else parent + expression


def test_every_child_expression_evaluates_to_the_child_value():
    x = tf.reshape(tf.range(2 * 250, dtype=tf.float32), [250, 2])
    frame = {"x": x}
    checked = 0
    for child in views.children(x):
        value = child.resolve()
        code = resolve_expression(child.expression, "x")
        if isinstance(value, tensor_views.AxisRange):
            part = eval(code, frame)
            assert np.array_equal(part.numpy(), x.numpy()[value.start : value.stop])
            for grandchild in views.children(value):
                got = eval(resolve_expression(grandchild.expression, code), frame)
                assert np.array_equal(np.asarray(got), np.asarray(grandchild.resolve()))
                checked += 1
    assert checked == 250


@pytest.mark.parametrize(
    "values",
    [
        np.random.default_rng(0).standard_normal(30_000).astype(np.float32),
        np.random.default_rng(1).standard_normal((250, 3)).astype(np.float16),
        np.random.default_rng(2).integers(-9, 9, (300, 2), dtype=np.int64),
        np.random.default_rng(3).random(1_000) > 0.5,
        np.array([1.0, np.nan, np.inf, -np.inf] * 60, np.float64),
        (np.arange(400) * (1 + 1j)).astype(np.complex64),
    ],
    ids=["float32", "float16 rows", "int64 rows", "bool", "nan and inf", "complex64"],
)
def test_a_range_rows_summary_is_the_sliced_tensors_without_a_slice(values, monkeypatch):
    """A CPU tensor's range rows read views of its host buffer: the same text as a summary
    of the tensor sliced by TF, and no TF slice per row."""
    x = tf.constant(values)
    ranges = [c.resolve() for c in views.children(x) if c.name.startswith("[")]
    assert len(ranges) > 1 and all(isinstance(r, tensor_views.AxisRange) for r in ranges)
    want = [tensor_views.summary(x[r.start : r.stop]) for r in ranges]

    def no_slice(*args, **kwargs):
        raise AssertionError("a range row's summary sliced the tensor with TF")

    monkeypatch.setattr(tensor_views, "_part", no_slice)
    assert [r.summary() for r in ranges] == want


def _range_nodes_with_a_nan_and_an_inf(values: np.ndarray) -> tuple[list, list]:
    """(the top range rows, those and the second one's inner ranges) of a tensor of
    ``values`` with a NaN in its middle and an Inf at element 7."""
    values = values.copy()
    values.reshape(-1)[values.size // 2] = np.nan
    values.reshape(-1)[7] = np.inf
    x = tf.constant(values)
    ranges = [c.resolve() for c in views.children(x) if c.name.startswith("[")]
    inner = [c.resolve() for c in views.children(ranges[1]) if c.name.startswith("[")]
    return ranges, ranges + [r for r in inner if isinstance(r, tensor_views.AxisRange)]


@pytest.mark.parametrize(
    "values",
    [
        np.random.default_rng(5).standard_normal(1_000_000).astype(np.float32) * 3 + 1e4,
        np.random.default_rng(6).standard_normal((3_000, 7)).astype(np.float64),
        np.random.default_rng(7).standard_normal(20_000).astype(np.float16),
    ],
    ids=["float32 10^6", "float64 rows", "float16"],
)
def test_range_rows_figures_taken_together_are_each_ranges_own(values):
    """A range row's figures come from one vectorised pass over every range of the tensor
    (``_range_stats``): bit for bit what ``array_stats`` gives for that range alone, at
    both levels of nested ranges; a range holding a NaN or an Inf, and the last shorter
    one, take the range's own way (their counts)."""
    from tf_debug_repr.core.stats import array_stats

    ranges, nodes = _range_nodes_with_a_nan_and_an_inf(values)
    together = 0
    for node in nodes:
        part = tensor_views._range_part(node.tensor, node.start, node.stop)
        alone = array_stats(part.array)
        known = part.known()
        if known is not None:
            together += 1
            assert known == alone
        else:
            assert alone.bad or node.stop - node.start < ranges[0].stop - ranges[0].start
        assert tensor_views.stats_of(part) == alone
    assert together >= len(ranges) - 2


@pytest.mark.parametrize(
    "values",
    [
        np.random.default_rng(8).standard_normal(1_000_000).astype(np.float32) * 3 + 1e4,
        np.random.default_rng(9).standard_normal((3_000, 7)).astype(np.float64),
        np.random.default_rng(10).standard_normal(20_000).astype(np.float16),
        np.random.default_rng(11).standard_normal(10_001).astype(np.float32),
    ],
    ids=["float32 10^6", "float64 rows", "float16", "a last range of one row"],
)
def test_a_range_rows_line_from_its_siblings_shared_parts_is_the_general_ones(values, monkeypatch):
    """A clean float range row's line is made from the parts every range of its length
    shares (``_range_line``): the same text as the general way (``summary`` of the range's
    host view) at both levels of nested ranges; a range holding a NaN or an Inf, and a
    range of few elements, take the general way."""
    _, nodes = _range_nodes_with_a_nan_and_an_inf(values)
    fast = [tensor_views._range_line(n.tensor, n.start, n.stop) for n in nodes]
    assert sum(line is not None for line in fast) >= len(nodes) - 3
    assert fast[0] is None  # the Inf
    general = [
        tensor_views.summary(tensor_views._range_part(n.tensor, n.start, n.stop)) for n in nodes
    ]
    assert [f for f in fast if f is not None] == [g for f, g in zip(fast, general) if f]
    monkeypatch.setattr(tensor_views, "_range_line", lambda *args: None)
    assert [n.summary() for n in nodes] == general


def test_range_nodes_nest_so_no_level_exceeds_a_hundred():
    x = tf.zeros([123_456])
    top = [c for c in views.children(x) if c.name.startswith("[")]
    assert len(top) == 13 and top[0].name == "[0:10000]" and top[-1].name == "[120000:123456]"
    middle = views.children(top[-1].resolve())
    assert len(middle) == 35 and middle[-1].name == "[123400:123456]"
    leaves = views.children(middle[-1].resolve())
    assert [c.name for c in leaves][:2] == ["[123400]", "[123401]"] and len(leaves) == 56
    assert (
        resolve_expression(leaves[5].expression, "x[120000:123456][123400:123456]")
        == "x[120000:123456][123405]"
    )
    assert resolve_expression(leaves[5].expression, "x[123400:123456]") == "x[123405]"


def test_leaf_scalars_are_plain_values_with_their_dtype():
    """Views speak plain terms; the adapter makes pydevd leaves of them (test_pydevd_adapter)."""
    for dtype in (tf.float32, tf.float16, tf.bfloat16, tf.int64, tf.uint8, tf.bool, tf.complex64):
        leaves = views.children(tf.ones([2], dtype=dtype))[:2]
        for leaf in leaves:
            value = leaf.resolve()
            assert isinstance(value, Scalar) and value.dtype == dtype.name, (dtype, value)
            assert type(value.value) in (int, float, bool, complex), (dtype, value)


def test_accelerator_tensors_are_not_copied_when_children_are_listed(monkeypatch):
    """On a GPU the numpy child is a node that copies only when expanded. No GPU here, so the
    accelerator path is taken by telling the views the tensor is not on the host."""
    monkeypatch.setattr(tensor_views, "is_on_host", lambda tensor: False)
    x = tf.random.stateless_normal([400, 300], seed=[0, 1])
    summary = views.summary(x)
    children = {c.name: c for c in views.children(x)}
    copy = children["numpy"].resolve()
    assert isinstance(copy, tensor_views.HostCopy)
    assert "expand to copy 0.5 MiB to the host" in copy.summary()
    array = copy.children()[0].resolve()
    assert np.array_equal(array, x.numpy())
    assert summary.startswith("float32[400, 300] x∈") and summary.endswith("n=120,000 CPU:0")


def test_console_and_clipboard_are_bounded():
    x = tf.zeros([5000, 10])
    console = views.console_text(x)
    assert console.splitlines()[0] == views.summary(x) and len(console) < 5000
    clip = views.clipboard_text(x)
    assert clip.endswith("… first 1,000 of 5,000 rows shown")
    wide = views.clipboard_text(tf.zeros([2, 50_000]))
    assert wide.endswith("… first 10,000 of 100,000 elements shown (flattened)")


class Exploding(Node):
    def summary(self) -> str:
        raise RuntimeError("summary broke")

    def children(self) -> list[Child]:
        return [
            Child("fine", 1, ".fine"),
            Child("bad", compute=lambda: 1 / 0, expression=".bad"),
            Child("also fine", Note("ok")),
        ]


def test_adapter_turns_errors_into_one_placeholder_each():
    contents = pydevd_adapter._contents(Exploding())
    assert [name for name, _, _ in contents] == ["fine", "bad", "also fine"]
    assert contents[0][1] == 1 and str(contents[2][1]) == "ok"
    assert str(contents[1][1]) == "<error: ZeroDivisionError: division by zero>"
    assert contents[2][2]("x") == "'ok'"  # a note's expression is its own text
    assert (
        pydevd_adapter._summary(Exploding(), None)
        == "Exploding <error: RuntimeError: summary broke>"
    )


def test_adapter_claims_tf_types_and_leaves_others_alone():
    resolver, strings = pydevd_adapter.TensorResolveProvider(), pydevd_adapter.TensorStrProvider()
    eager = type(tf.constant(1.0))
    assert resolver.can_provide(eager, eager.__name__) and strings.can_provide(
        eager, eager.__name__
    )
    assert resolver.can_provide(type(tf.Variable(1.0)), "ResourceVariable")
    assert not resolver.can_provide(Note, "Note") and strings.can_provide(Note, "Note")
    for other in (int, list, np.ndarray, dict, tuple):
        assert not resolver.can_provide(other, other.__name__)
    for other in (int, np.ndarray, set):
        assert not strings.can_provide(other, other.__name__)


def test_containers_of_tensors_get_brief_items_and_others_stay_stock():
    strings = pydevd_adapter.TensorStrProvider()
    w = tf.Variable([1.0, 2.0], name="w")
    assert (
        strings.get_str([tf.ones([4, 8]), tf.zeros([8], tf.int32), 3])
        == "[float32[4, 8], int32[8], 3]"
    )
    assert strings.get_str((tf.ones([2]),)) == "(float32[2],)"
    assert strings.get_str({"a": w}) == "{'a': float32[2] Variable 'w'}"
    assert strings.get_str_in_context([tf.ones([2])], "hover") == "[float32[2]]"
    # None hands the value back to pydevd's own repr: plain containers look as they always did.
    for plain in ([1, 2], {"k": "v"}, (), list(range(10_000))):
        assert strings.get_str(plain) is None
    assert strings.get_str_in_context([tf.ones([2])], "clipboard") is None
    many = strings.get_str([tf.ones([1])] * 500)
    assert many.startswith("500 tensors, 1.95 KiB: [float32[1], float32[1]") and len(many) <= 300


@pytest.mark.parametrize("context", [None, "watch", "hover", "repl", "clipboard"])
def test_every_context_gives_text(context):
    text = pydevd_adapter._summary(tf.constant([[1.0, 2.0]]), context)
    assert isinstance(text, str) and "<error" not in text and "\x1b" not in text


def test_an_element_of_a_tensor_on_another_device_evaluates_there(two_cpus):
    """A tensor on the second CPU: ``far[0]`` would slice it on the default device (CPU:0),
    while its element rows are sliced on CPU:1 (and say so). Their expressions keep the
    device, nested and through range nodes; a tensor on the default device keeps plain
    ``near[0]`` (tests/unit/two_cpus_program.py)."""
    from .conftest import answer

    found = answer(two_cpus, "elements_on_another_device")
    assert found["near"] == ["near[0]", "near[1]", "near[2]"]
    for i, row in enumerate(found["far"]):
        text, got, shown, inner_text, inner_got, inner_shown, value, shown_value = row
        assert shown.endswith("CPU:1") and got == shown, row
        assert (
            text
            == f"__import__('tf_debug_repr._expr', fromlist=['_']).eagerly(lambda v: v[{i}], far)"
        )
        assert inner_text.endswith(f"(lambda v: v[{i}][103], far)"), inner_text
        assert inner_shown.endswith("CPU:1") and inner_got == inner_shown, row
        assert value == shown_value == float((i * 250 + 103) * 2 + 1)
