"""Every per-kind question is answered by the kind's catalog row: a kind added in a test
(its "view module" is this file, its row goes beside the catalog's) is summarised,
expanded, printed, copied, listed, drawn and counted without touching any other module."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Any

import pytest

tf = pytest.importorskip("tensorflow")

from tf_debug_repr import views  # noqa: E402
from tf_debug_repr.core import additions, tf_types  # noqa: E402
from tf_debug_repr.core.additions import Slot  # noqa: E402
from tf_debug_repr.core.tf_types import Kind  # noqa: E402
from tf_debug_repr.core.view_model import Child  # noqa: E402
from tf_debug_repr.forensics import change_views  # noqa: E402
from tf_debug_repr.forensics import memory as memory_report  # noqa: E402
from tf_debug_repr.hosts.notebook import display as ipython_display  # noqa: E402
from tf_debug_repr.viewer import payload as viewer_payload  # noqa: E402
from tf_debug_repr.views import dispatch  # noqa: E402
from tf_debug_repr.views import tensors as tensor_views  # noqa: E402
from tf_debug_repr.views.dispatch import Memory, Row  # noqa: E402


class FakeKind(Enum):
    BOX = "box of a tensor"


class Box:
    """A value of a kind the plugin does not know: a tensor in a box."""

    def __init__(self, tensor: Any) -> None:
        self.t = tensor

    @property
    def shape(self) -> Any:
        return self.t.shape

    @property
    def dtype(self) -> Any:
        return self.t.dtype


# ------------------------------------------------------- the kind's "view module"


def box_summary(box: Box) -> str:
    return f"Box of {tensor_views.brief(box.t)}"


def box_children(box: Box) -> list[Child]:
    return [Child("tensor", box.t, ".t")]


BOX_ROW = Row(
    box_summary,
    box_children,
    values=lambda box: box.t,
    brief=lambda box: f"box {tensor_views.brief(box.t)}",
    source=lambda box: viewer_payload.Source(box.t, "box", box),
    notebook=True,
    memory=Memory.TENSOR,
)
BOX_CLASS = f"{__name__}.Box"


@pytest.fixture
def box_kind():
    views.build_table()  # the catalog first: the fake kind goes beside it
    tf_types.add_class(BOX_CLASS, FakeKind.BOX)
    dispatch.add_row(FakeKind.BOX, BOX_ROW)
    yield
    dispatch.remove_row(FakeKind.BOX)
    tf_types.remove_class(BOX_CLASS)


def test_a_kind_added_beside_the_catalog_answers_every_question(box_kind):
    t = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    box = Box(t)
    assert views.handles(Box)
    assert views.summary(box) == "Box of float32[2, 3]"
    assert [c.name for c in views.children(box)] == ["tensor"]
    # values: the console and the clipboard print the tensor the row names
    assert views.console_text(box) == f"Box of float32[2, 3]\n{tensor_views.console_values(t)}"
    assert views.clipboard_text(box) == views.clipboard_text(t)
    # brief: inside a list
    assert views.container_summary([box, 1]) == "[box float32[2, 3], 1]"
    # the viewer's payload source
    payload = viewer_payload.build(box)
    assert payload["kind"] == "box" and payload["shape"] == [2, 3] and not payload["error"]
    assert payload["summary"] == "Box of float32[2, 3]"
    # memory: counted as a tensor of its own
    found, _ = memory_report.reachable(sys._getframe())
    assert [f.nbytes for f in found if f.expression == "box"] == [24]
    # change tracking: the row says none
    assert change_views.change_since_last_stop(box) is None


def test_without_its_row_the_kind_is_left_alone(box_kind):
    dispatch.remove_row(FakeKind.BOX)
    box = Box(tf.constant([1.0]))
    assert views.summary(box) == repr(box)
    assert views.children(box) == []
    assert (
        "has no tensor values" in viewer_payload.decode(viewer_payload.view_payload(box))["error"]
    )


def test_every_built_in_kind_has_a_row():
    assert set(views.build_table()) >= set(Kind)


def test_the_notebook_draws_the_kinds_whose_rows_say_so():
    """The notebook registers its printers at ``%load_ext``, before numpy may be imported,
    so its list of kinds is a copy: pinned here to the catalog's rows."""
    table = views.build_table()
    assert set(ipython_display.VALUE_KINDS) == {k for k, r in table.items() if r.notebook}


def test_additions_have_an_explicit_order():
    marks = []
    additions.add(Slot.MARK, "test late", 99, lambda obj, kind: "late")
    additions.add(Slot.MARK, "test early", 1, lambda obj, kind: "early")
    try:
        names = [a.name for a in additions.of(Slot.MARK)]
        assert names.index("test early") < names.index("test late")
        assert names[0] == "test early" and names[-1] == "test late"
        line = dispatch.marked("float32[3]", object(), None)
        marks = line.split()
        assert marks.index("early") < marks.index("late")
        # registering a name again replaces it: installing twice changes nothing
        before = len(additions.of(Slot.MARK))
        additions.add(Slot.MARK, "test late", 99, lambda obj, kind: "late")
        assert len(additions.of(Slot.MARK)) == before
    finally:
        additions.remove(Slot.MARK, "test late")
        additions.remove(Slot.MARK, "test early")


def test_change_and_gradient_marks_end_the_line_in_that_order():
    assert additions.MARK_REPLICA < additions.MARK_CHANGE < additions.MARK_GRADIENT
    assert additions.CHILD_GRADIENT < additions.CHILD_CHANGE < additions.CHILD_MEMORY
