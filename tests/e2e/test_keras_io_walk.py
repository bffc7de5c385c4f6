"""Issue 15's Done-when walk: programs transcribed from keras-io and TF's guides
(tests/programs/real/keras_io_walk.py: GAN, WGAN-GP, VAE and knowledge distillation
``train_step``s with several optimizers, loss functions and metric trackers; adapted
preprocessing layers; TF's intro-to-modules ``tf.Module``s and raw-variable Keras layer; a
SavedModel round trip; a CheckpointManager), stopped in a real debugpy session at five
places. At each stop every local is walked three levels deep (of a tensor's, a list's or a
dict's element rows, the first four at each level): no row shows ``<error``, every
row's expression evaluates in the frame to what the row shows, and every attribute stock
debugpy shows for a local and for each object a local holds (``self.d_optimizer``, …) is
reachable: a row of that name, or a row whose expression is that attribute.

scripts/test.sh runs this file under Keras 3, TF 2.15's Keras 2 and tf_keras."""

from __future__ import annotations

import re
import threading
import time

import pytest

from tf_debug_repr.hosts.demo.dap_client import DapError, Variable, line_of

from ..conftest import Stopped, program_path, start_stopped, stock_env
from .walk_checks import GROUPS, first_elements, same_count, same_value

pytestmark = pytest.mark.e2e

PROGRAM = "real/keras_io_walk.py"
STOPS = [
    "GAN_BREAKPOINT",
    "WGAN_BREAKPOINT",
    "VAE_BREAKPOINT",
    "DISTILL_BREAKPOINT",
    "END_BREAKPOINT",
]
DEPTH = 3  # levels below each local
# Values whose rows are stock debugpy's own and whose insides are not the program's
# objects: modules, classes, functions, TF's graphs (pydevd cuts their multi-line reprs).
STOCK_TYPES = {
    "module",
    "type",
    "function",
    "method",
    "builtin_function_or_method",
    "FuncGraph",
    "Graph",
}
CODE_TYPES = {
    "method",
    "function",
    "builtin_function_or_method",
    "method-wrapper",
    "type",
    "classmethod",
}
CONTAINERS = {
    "dict",
    "list",
    "tuple",
    "set",
    "TrackedDict",
    "TrackedList",
    "ListWrapper",
    "_DictWrapper",
}
# A property that makes a new object at each read: its text differs by the address only.
ADDRESS = re.compile(r" at 0x[0-9a-f]+")
# Tensors, variables and their facts: shown by their values (elements, statistics).
VALUES = {
    "EagerTensor",
    "SymbolicTensor",
    "Tensor",
    "KerasTensor",
    "ResourceVariable",
    "UninitializedVariable",
    "Variable",
    "KerasVariable",
    "AutoCastVariable",
    "MirroredVariable",
    "IndexedSlices",
    "SparseTensor",
    "RaggedTensor",
    "TensorShape",
    "DType",
}
# Attributes a structured row shows as a whole (sublayers, weights, a module's variables).
COVERED = {"layers", "weights", "trainable", "variables"}


HANDLES = "__import__('tf_debug_repr.views', fromlist=['_']).handles(type({}))"


def _presented(s: Stopped, row: Variable) -> bool:
    """Does the plugin present this row's value (or is it a container whose items may be
    the plugin's)? Other objects' rows are stock debugpy's own (a distribution strategy's
    properties that raise, numpy's bit generator): not this project's to judge."""
    if row.type in CONTAINERS or not row.evaluate_name:
        return True
    try:
        return s.evaluate(HANDLES.format(row.evaluate_name))["result"] == "True"
    except DapError:
        return True


def _walk(
    s: Stopped, rows: list[Variable], path: str, depth: int, state: dict, ours: bool = True
) -> None:
    """Check each row of a level, then expand them, as a person reads a level before
    opening its rows (opening one may change another: a loaded SavedModel object gets an
    attribute when one of its functions is looked into). Of a tensor's, a list's or a
    dict's element rows, the first ``ELEMENTS`` (``walk_checks``), as the real-program suite."""
    rows = first_elements(rows)
    for row in rows:
        _check(s, row, path, state, ours)
    for row in rows:
        if row.name in GROUPS:
            continue
        where = f"{path}/{row.name}"
        if not row.reference or depth <= 0 or row.type in STOCK_TYPES or not ours:
            continue
        # The same object met again (a weight under its layer, the model's list, the
        # optimizer's table): its rows were walked the first time.
        key = (row.type, row.value)
        if key in state["expanded"]:
            continue
        state["expanded"].add(key)
        # private attributes: their own rows only (TF's and Keras's internals below them)
        below = 1 if row.name == "private attributes" else depth - 1
        if _presented(s, row):
            _walk(s, s.children(row), where, below, state)
        else:  # a stock object: its rows are looked at, not descended into
            _walk(s, s.children(row), where, 0, state, ours=False)


def _check(s: Stopped, row: Variable, path: str, state: dict, ours: bool) -> None:
    if row.name in GROUPS:
        return
    state["checked"] += 1
    where = f"{path}/{row.name}"
    if "<error" in row.value:
        state["problems"].append(f"{where}: shows {row.value[:200]!r}")
    if not ours or not row.evaluate_name or row.evaluate_name in state["evaluated"]:
        return  # a stock object's row: stock's expression
    state["evaluated"].add(row.evaluate_name)
    try:
        result = s.evaluate(row.evaluate_name)["result"]
    except DapError as exc:
        state["problems"].append(f"{where}: {row.evaluate_name!r} fails: {exc}")
        return
    fresh = ADDRESS.sub("", result) == ADDRESS.sub("", row.value)
    if not (same_value(row, result) or fresh or same_count(s, row)):
        state["problems"].append(
            f"{where}: {row.evaluate_name!r} gives {result[:160]!r}, "
            f"the row shows {row.value[:160]!r}"
        )


def _names(s: Stopped, rows: list[Variable], private: bool) -> tuple[set[str], set[str]]:
    """Row names and expressions, with the ``private attributes`` row's and pydevd's
    protected group's when ``private``."""
    names = {r.name for r in rows if r.name not in GROUPS}
    expressions = {r.evaluate_name for r in rows if r.evaluate_name}
    if private:
        for row in rows:
            if row.name in ("private attributes", "protected variables") and row.reference:
                inner = s.children(row)
                names |= {r.name for r in inner}
                expressions |= {r.evaluate_name for r in inner if r.evaluate_name}
    return names, expressions


def _stock_names(s: Stopped, rows: list[Variable]) -> set[str]:
    """What stock debugpy lists as data: rows, and its protected group's, no code."""
    found = {r.name for r in rows if r.name not in GROUPS and r.type not in CODE_TYPES}
    for row in rows:
        if row.name == "protected variables" and row.reference:
            found |= {r.name for r in s.children(row) if r.type not in CODE_TYPES}
    return found


def _children_of(s: Stopped, expression: str) -> list[Variable] | None:
    try:
        answer = s.evaluate(expression)
    except DapError:
        return None
    if not answer.get("variablesReference"):
        return None
    return s.client.variables(answer["variablesReference"])


def _is_value(row: Variable) -> bool:
    """A tensor or variable, whatever its class is named in this TF (stock's text or ours)."""
    return row.type in VALUES or row.value.startswith(("<tf.Variable ", "Variable '"))


def _objects(s: Stopped) -> dict[str, list[Variable]]:
    """Each local and each object a local holds as a public attribute (two levels), by its
    expression, with stock's or the plugin's rows for it. Tensors and variables are shown
    by their values, not by stock's ``dir()`` of them (issue 15 is about objects).

    A row is an attribute's when it is named so and its expression ends in ``.attribute``
    (or its whole expression is ``local.attribute``); the expression's head may be another
    path to the same object: pydevd keys a row's children by the object's id,
    and the expressions they get are those of the last listing that showed the object
    (``end_to_end_model.layers[2].optimizer`` for the local ``model``'s ``optimizer``
    once ``end_to_end_model`` was opened). The object is then read as ``local.attribute``."""
    found: dict[str, list[Variable]] = {}
    for name, local in s.locals().items():
        if local.type in STOCK_TYPES | CONTAINERS or _is_value(local) or not local.reference:
            continue
        if name.startswith("_"):
            continue
        rows = s.children(local)
        found[name] = rows
        for row in rows:
            attribute = (row.evaluate_name or "").rpartition(".")[2]
            if (
                row.reference
                and row.type not in STOCK_TYPES | CONTAINERS | CODE_TYPES
                and not _is_value(row)
                and attribute.isidentifier()
                and not attribute.startswith("_")
                # the attribute's row by its name, or one whose whole expression is it
                and (row.name == attribute or row.evaluate_name == f"{name}.{attribute}")
                and "." in (row.evaluate_name or "")
            ):
                inner = _children_of(s, f"{name}.{attribute}")
                if inner is not None:
                    found[f"{name}.{attribute}"] = inner
    return found


def _stops(s: Stopped, on_stop) -> None:
    path = program_path(PROGRAM)
    for n, marker in enumerate(STOPS):
        assert s.client.top_frame(s.thread_id)["line"] == line_of(path, marker), marker
        on_stop(marker)
        if n + 1 < len(STOPS):  # each train_step runs twice: on to the next program
            lines = [line_of(path, m) for m in STOPS[n + 1 :]]
            s.client.request(
                "setBreakpoints",
                {"source": {"path": path}, "breakpoints": [{"line": line} for line in lines]},
            )
            s.resume_to_next_stop()


class StockNames:
    """Stock debugpy's attribute names at each stop (the plugin switched off), recorded by a
    session of its own in a thread, beside the plugin's session: each waits on its debuggee
    much of its time. ``names[marker]`` waits for that stop's; ``all()`` for the session's end."""

    def __init__(self) -> None:
        self.found: dict[str, dict[str, set[str]]] = {}
        self.reached = {marker: threading.Event() for marker in STOPS}
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._record, name="stock-session", daemon=True)
        self.thread.start()

    def _record(self) -> None:
        try:
            session = start_stopped(PROGRAM, markers=STOPS, env=stock_env())
            try:

                def record(marker: str) -> None:
                    self.found[marker] = {
                        e: _stock_names(session, rows) for e, rows in _objects(session).items()
                    }
                    self.reached[marker].set()

                _stops(session, record)
            finally:
                session.client.close()
        except BaseException as exc:  # raised where the test reads it
            self.error = exc
        finally:
            for reached in self.reached.values():
                reached.set()

    def __getitem__(self, marker: str) -> dict[str, set[str]]:
        self.reached[marker].wait(timeout=900)
        if marker not in self.found:
            raise RuntimeError(f"stock's session did not record {marker}") from self.error
        return self.found[marker]

    def all(self) -> dict[str, dict[str, set[str]]]:
        self.thread.join(timeout=900)
        if self.error is not None:
            raise self.error
        return self.found


@pytest.fixture(scope="module")
def stock() -> StockNames:
    return StockNames()


def test_every_local_three_levels_deep_and_nothing_stock_shows_lost(stock: StockNames):
    s = start_stopped(PROGRAM, markers=STOPS)
    report: list[str] = []
    lost: list[str] = []
    try:

        def check(marker: str) -> None:
            state = {"checked": 0, "problems": [], "evaluated": set(), "expanded": set()}
            start = time.perf_counter()
            rows = [v for v in s.locals().values() if v.type not in {"module"}]
            _walk(s, rows, marker, DEPTH, state)
            report.append(
                f"{marker}: {state['checked']} rows in {time.perf_counter() - start:.0f} s"
            )
            assert state["checked"] > 100, report[-1]
            assert not state["problems"], "\n".join(state["problems"][:40])
            ours = _objects(s)
            for expression, names in stock[marker].items():
                rows = ours.get(expression)
                if rows is None:
                    lost.append(f"{marker}: {expression} is not expandable")
                    continue
                shown, expressions = _names(s, rows, private=True)
                for name in sorted(names - shown - COVERED):
                    reached = {f"{expression}.{name}", f"getattr({expression}, {name!r})"}
                    if not reached & expressions:
                        lost.append(f"{marker}: {expression}.{name}")

        _stops(s, check)
    finally:
        s.client.close()
    print("\n".join(report))
    assert not lost, "\n".join(lost[:60])
    recorded = stock.all()
    assert {"GAN_BREAKPOINT", "END_BREAKPOINT"} <= set(recorded)
    assert "self.d_optimizer" in recorded["GAN_BREAKPOINT"], sorted(recorded["GAN_BREAKPOINT"])
