"""``preview(ds)``: a ``tf.data.Dataset``'s first elements, read from a fresh iterator.

A dataset row never reads elements by itself: its ``preview`` row says what a read would
cost and its expression does the read when evaluated (Watch, Debug Console). The read makes
a new iterator of ``ds.take(count)``: the program's own iterators are never touched. It runs
on a worker thread, bounded in time (``SECONDS``; past it the read is abandoned and said
so) and in memory (``MAX_BYTES`` of elements). A pipeline whose fresh iterator would change
the program's state is not read unless ``force=True``: a shuffle that reshuffles each
iteration (a new iterator advances its seed generator, so the program's next epoch would
see another order), ``from_generator`` and ``py_function`` (they run the program's Python),
``tf.random.Generator`` ops (they advance the program's generator).
"""

from __future__ import annotations

import time
from typing import Any

from ..core import bounded
from ..core import formatting as fmt
from ..core.guards import harmless
from ..core.view_model import FACADE, Child, Node, Note, call

COUNT = 3
SECONDS = 5.0
MAX_BYTES = 64 << 20

# Ops in a dataset's graph whose fresh iterator changes the program's state, and why.
_STATEFUL = {
    "GeneratorDataset": "from_generator runs the program's generator again",
    "PyFunc": "a py_function/numpy_function runs the program's Python",
    "EagerPyFunc": "a py_function runs the program's Python",
    "PyFuncStateless": "a numpy_function runs the program's Python",
    "StatefulUniform": "a tf.random.Generator would advance",
    "StatefulUniformFullInt": "a tf.random.Generator would advance",
    "StatefulUniformInt": "a tf.random.Generator would advance",
    "StatefulStandardNormalV2": "a tf.random.Generator would advance",
    "StatefulTruncatedNormal": "a tf.random.Generator would advance",
    "RngReadAndSkip": "a tf.random.Generator would advance",
    "RngSkip": "a tf.random.Generator would advance",
}
_SHUFFLES = ("ShuffleDatasetV2", "ShuffleDatasetV3", "ShuffleAndRepeatDatasetV2")


def cost_text(count: int = COUNT) -> str:
    return (
        f"expand to read {count} elements from a fresh iterator (the pipeline runs again "
        f"for them; the program's iterators are not touched; at most {SECONDS:g} s and "
        f"{fmt.bytes_text(MAX_BYTES)})"
    )


def preview_row(ds: Any) -> Child:
    """The dataset's ``preview`` row: what a read costs, read when expanded. Its expression
    gives the same unread row (Watch, Debug Console), so it shows what the row shows."""
    return Child("preview", PendingPreview(ds), call(f"{FACADE}.dataset_preview({{}})"))


class PendingPreview(Node):
    """A dataset's first elements, not read yet: the summary says what reading them costs;
    expanding reads them (``preview``), once per row."""

    def __init__(self, ds: Any, count: int = COUNT) -> None:
        self.ds = ds
        self.count = count
        self._found: Any = None

    def read(self) -> Any:
        if self._found is None:
            self._found = preview(self.ds, self.count)
        return self._found

    def element(self, index: int) -> Any:
        found = self.read()
        if not isinstance(found, Preview):
            raise LookupError(str(found))
        return found.element(index)

    def summary(self) -> str:
        return cost_text(self.count)

    def children(self) -> list[Child]:
        found = self.read()
        if not isinstance(found, Preview):
            return [Child("not read", found)]
        return [Child("read", Note(found.summary())), *found.children()]


def risks(ds: Any) -> list[str]:
    """Why a fresh iterator of ``ds`` would change the program's state (from its graph)."""
    import tensorflow as tf
    from tensorflow.core.framework import graph_pb2

    with harmless():
        serialized = ds._as_serialized_graph(
            external_state_policy=tf.data.experimental.ExternalStatePolicy.IGNORE
        )
        graph = graph_pb2.GraphDef()
        graph.ParseFromString(bytes(serialized.numpy()))
    nodes = list(graph.node) + [n for f in graph.library.function for n in f.node_def]
    found: list[str] = []
    for node in nodes:
        reason = _STATEFUL.get(node.op)
        if node.op in _SHUFFLES:
            attr = node.attr.get("reshuffle_each_iteration")
            if node.op == "ShuffleDatasetV2" or attr is None or attr.b:
                reason = (
                    "a shuffle that reshuffles each iteration: a fresh iterator advances its "
                    "seed, and the program's next epoch would see another order"
                )
        if reason and reason not in found:
            found.append(reason)
    return found


class Preview(Node):
    """The elements read, with what the read cost."""

    def __init__(self, elements: list, seconds: float, nbytes: int, note: str = "") -> None:
        self.elements = elements
        self.seconds = seconds
        self.nbytes = nbytes
        self.note = note

    def element(self, index: int) -> Any:
        return self.elements[index]

    def summary(self) -> str:
        text = (
            f"{fmt.counted(len(self.elements), 'element')} read from a fresh iterator in "
            f"{self.seconds * 1000:,.0f} ms ({fmt.bytes_text(self.nbytes)})"
        )
        return f"{text}; {self.note}" if self.note else text

    def children(self) -> list[Child]:
        return [
            Child(f"[{i}]", element, f".element({i})") for i, element in enumerate(self.elements)
        ]


def _nbytes(element: Any) -> int:
    from tensorflow.python.util import nest

    total = 0
    for item in nest.flatten(element):
        try:
            total += int(item.numpy().nbytes) if hasattr(item, "numpy") else 0
        except Exception:
            continue
    return total


def _read(ds: Any, count: int, deadline: float) -> tuple[list, int, str]:
    with harmless():
        iterator = iter(ds.take(count))
        elements: list = []
        nbytes = 0
        while len(elements) < count:
            if time.monotonic() > deadline:
                return elements, nbytes, f"stopped after {SECONDS:g} s"
            try:
                element = next(iterator)
            except StopIteration:
                return elements, nbytes, "the dataset ended"
            size = _nbytes(element)
            if nbytes + size > MAX_BYTES:
                return (
                    elements,
                    nbytes,
                    f"stopped: the next element would pass {fmt.bytes_text(MAX_BYTES)}",
                )
            nbytes += size
            elements.append(element)
        return elements, nbytes, ""


def preview(ds: Any, count: int = COUNT, force: bool = False) -> Any:
    """The first ``count`` elements of ``ds`` from a fresh iterator (see the module)."""
    from ..core.tf_types import Kind, kind_of

    if kind_of(ds) is not Kind.DATASET:
        return Note(f"preview reads a tf.data.Dataset, not a {type(ds).__name__}")
    count = max(0, min(int(count), 100))
    if not force:
        try:
            found = risks(ds)
        except Exception as exc:
            found = [f"its graph could not be read to check ({type(exc).__name__})"]
        if found:
            return Note(
                "not read: a fresh iterator would change the program's state ("
                + "; ".join(found)
                + "). preview(ds, force=True) reads anyway"
            )
    start = time.monotonic()
    try:
        elements, nbytes, note = bounded.call(
            _read, ds, count, start + SECONDS, seconds=SECONDS + 1.0, what="preview"
        )
    except bounded.TimedOut:
        return Note(f"not read: the pipeline gave no element within {SECONDS:g} s")
    return Preview(elements, time.monotonic() - start, nbytes, note)
