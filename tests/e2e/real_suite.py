"""The real-program suite's harness: each program of ``PROGRAMS`` run once with no debugger,
once under stock debugpy and once under the plugin per mode (compiled: the default; eager:
``TF_DEBUG_REPR_EAGER=1``), stopped at its markers in turn. What each debugger showed is
recorded once (rows, each row's expression's result, the names shown on each object, the
program's exit code, output and probe counts); tests/e2e/test_real_programs.py asserts one
check per test on those records. A program's runs are started together (``Runs``), at the first
asking for any of them: the debug sessions wait on their debuggees much of their time.

Stock debugpy answers each request in ~42 ms (here with ``TCP_NODELAY`` on its socket,
``conftest.stock_env``: the delayed ACK's ~40 ms go, what it shows stays its own), so its run
records only what the name comparison needs: each local object and each object it holds, two levels. The plugin's run
walks every local three levels deep: every row of the first two levels, the first
``THIRD_WIDTH`` of the third.
"""

from __future__ import annotations

import ast
import concurrent.futures
import dataclasses
import json
import os
import queue
import re
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path

from tf_debug_repr.hosts.demo.dap_client import (
    DapClient,
    DapError,
    Variable,
    launch_config,
    line_of,
)

from ..conftest import PROGRAMS as PROGRAM_DIR
from ..conftest import Stopped, stock_env
from . import viewer_walk
from .test_keras_io_walk import (
    ADDRESS,
    STOCK_TYPES,
    _objects,
    _presented,
    _stock_names,
)
from .walk_checks import GROUPS, first_elements, same_count, same_value

DEPTH = 3  # levels below each local
THIRD_WIDTH = 8  # rows of the third level looked at (every row of the first two)
PAYLOADS = 60  # View Tensor payloads checked per stop (one of each type first)
LOCAL_ROWS = 150  # rows looked at below one local: a walk past this is cut (and says so)
RAISE_GROUP = "raise when read"
PROBES = ("probe", "module_probe")  # tests/programs/real/probe.py's objects
PROBE_TYPES = {"Probe", "ModuleProbe"}
# What reads as an error: the placeholder, a traceback, an exception's name as a message's
# head (``ValueError: …``) or a repr (``ValueError('…')``), a row saying that reading raises.
ERROR = re.compile(r"<error|Traceback|\b\w*(?:Error|Exception)(?::|\()|\braises\b")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|\bnan\b|\binf\b")
DEBUGGERS = ("stock", "plugin")
MODES = ("compiled", "eager")
ENV = {"TF_CPP_MIN_LOG_LEVEL": "2"}
# How many runs go at once in one pytest process (each a TF process of ~0.9 GB), the longest
# first. 1 by default: in a clean-clone run on 2 cores (two pytest workers, the Keras 2 and
# Python 3.9 environments' runs beside them), 2 at once made the e2e part slower (33m41s
# against 28m41s) and a run missed its 90 s wait for a continue; more cores can take more.
RUNS_AT_ONCE = int(os.environ.get("REAL_SUITE_RUNS_AT_ONCE", "1"))


@dataclasses.dataclass(frozen=True)
class Program:
    """A real program and where its users stop: ``stops`` visited in turn, each at its first
    hit after the one before; ``compiled``: those that lie in code that runs compiled
    (a ``tf.function``, a compiled ``fit``'s ``train_step``)."""

    name: str
    stops: tuple[str, ...]
    compiled: tuple[str, ...] = ()
    # how lines printed by Python code inside a tf.function begin: run eagerly, that code
    # prints at every call (and prints values, not symbolic tensors), not once per trace
    traced_prints: tuple[str, ...] = ()
    # locals that hold another object when every function runs eagerly, as the Debug
    # Console says (tf.data's debug mode leaves prefetch out: a dataset made with
    # .prefetch() is the dataset before it): their names are not compared in that mode
    eager_objects: tuple[str, ...] = ()
    # stops whose locals hold nothing three levels deep (a custom gradient's ``dy``): walked
    # as deep as they go
    shallow: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        return str(PROGRAM_DIR / self.name)

    @property
    def modes(self) -> tuple[str, ...]:
        """The plugin's modes this program runs under: eager (every function run as Python)
        only where a stop lies in compiled code; elsewhere it would run the same code as the
        default mode up to the same stops."""
        return MODES if self.compiled else MODES[:1]


PROGRAMS = (
    Program(
        "real/actor_critic.py", ("EPISODE_BREAKPOINT", "END_BREAKPOINT"), ("EPISODE_BREAKPOINT",)
    ),
    Program("real/conditional_gan.py", ("STEP_BREAKPOINT", "END_BREAKPOINT")),
    Program("real/custom_train_step.py", ("MODEL_BREAKPOINT", "GAN_BREAKPOINT")),
    Program("real/cyclegan.py", ("STEP_BREAKPOINT", "LOOP_BREAKPOINT"), ("STEP_BREAKPOINT",)),
    Program("real/dcgan_loop.py", ("BREAKPOINT",)),
    Program(
        "real/dcgan_tutorial.py",
        ("APPLY_BREAKPOINT", "END_BREAKPOINT"),
        ("APPLY_BREAKPOINT",),
        ("gradients computed",),
    ),
    Program("real/image_classification.py", ("AUGMENT_BREAKPOINT", "PREDICT_BREAKPOINT")),
    Program("real/keras_io_walk.py", ("DISTILL_BREAKPOINT", "END_BREAKPOINT")),
    Program(
        "real/mixed_precision.py", ("STEP_BREAKPOINT", "EPOCH_BREAKPOINT"), ("STEP_BREAKPOINT",)
    ),
    Program("real/oxford_pets_segmentation.py", ("BATCH_BREAKPOINT", "MASK_BREAKPOINT")),
    Program("real/pix2pix.py", ("FIT_BREAKPOINT", "STEP_BREAKPOINT"), ("STEP_BREAKPOINT",)),
    Program(
        "real/quickstart_expert.py", ("TRACE_BREAKPOINT", "EPOCH_BREAKPOINT"), ("TRACE_BREAKPOINT",)
    ),
    Program(
        "real/text_classification.py", ("BATCH_BREAKPOINT", "END_BREAKPOINT", "VECTOR_BREAKPOINT")
    ),
    Program("real/timeseries_weather.py", ("BATCH_BREAKPOINT", "PLOT_BREAKPOINT")),
    Program("real/transformer_block.py", ("BREAKPOINT",)),
    Program(
        "real/saved_module.py",
        ("MODULE_BREAKPOINT", "RESTORED_BREAKPOINT"),
        ("MODULE_BREAKPOINT",),
        ("Tracing with ",),
    ),
    Program(
        "real/transformer_attention.py",
        ("CROSS_BREAKPOINT", "END_BREAKPOINT"),
        ("CROSS_BREAKPOINT",),
    ),
    Program(
        "real/seq2seq_teacher.py",
        ("TEACHER_BREAKPOINT", "EPOCH_BREAKPOINT"),
        ("TEACHER_BREAKPOINT",),
    ),
    Program(
        "real/distributed_loop.py",
        ("REPLICA_BREAKPOINT", "EPOCH_BREAKPOINT"),
        ("REPLICA_BREAKPOINT",),
    ),
    Program(
        "real/vae_sampling.py", ("TRAIN_BREAKPOINT", "CALLBACK_BREAKPOINT"), ("TRAIN_BREAKPOINT",)
    ),
    Program("real/distillation.py", ("STEP_BREAKPOINT", "END_BREAKPOINT"), ("STEP_BREAKPOINT",)),
    Program(
        "real/text_generation.py",
        ("MASK_BREAKPOINT", "GENERATE_BREAKPOINT", "STEP_BREAKPOINT", "END_BREAKPOINT"),
        ("GENERATE_BREAKPOINT", "STEP_BREAKPOINT"),
        eager_objects=("dataset",),
    ),
    Program(
        "real/word2vec.py",
        ("SAMPLE_BREAKPOINT", "CALL_BREAKPOINT", "END_BREAKPOINT"),
        ("CALL_BREAKPOINT",),
        eager_objects=("dataset",),
    ),
    Program(
        "real/advanced_autodiff.py",
        (
            "CUSTOM_BREAKPOINT",
            "NESTED_BREAKPOINT",
            "JACOBIAN_BREAKPOINT",
            "COMPILED_BREAKPOINT",
            "END_BREAKPOINT",
        ),
        ("COMPILED_BREAKPOINT",),
        shallow=("CUSTOM_BREAKPOINT",),
    ),
)


@dataclasses.dataclass(frozen=True)
class Look:
    """A test's own look at a program's stops, made in the plugin's run of the program
    (``modes``) instead of a session of its own: ``at[marker]`` is called with the stopped
    session once the suite has recorded that stop (its probe counts included), and what it
    raised is kept in the stop's ``looks`` under ``test``, whose test fails on it."""

    test: str
    program: str  # Program.name
    modes: tuple[str, ...]
    at: Mapping[str, Callable[[Stopped], None]]


@dataclasses.dataclass
class Row:
    """One row as VS Code showed it, where it was, and what its expression gave."""

    path: str
    value: str
    type: str
    evaluate_name: str | None
    level: int  # 0: a local
    ours: bool  # a row of an object the plugin presents (others are stock debugpy's)
    raise_group: bool  # inside the ``raise when read`` group
    result: str | None = None  # the expression's watch value, or the failure's text
    mismatch: str | None = None  # why the result is not what the row shows


@dataclasses.dataclass
class Stop:
    marker: str
    line: int
    rows: list[Row] = dataclasses.field(default_factory=list)
    cut: list[str] = dataclasses.field(default_factory=list)  # locals past LOCAL_ROWS
    # expression of an object -> the names shown on it (stock), or (names, expressions)
    # reachable from its rows, groups included (plugin)
    names: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    reachable: dict[str, tuple[set[str], set[str]]] = dataclasses.field(default_factory=dict)
    reads: dict[str, int] = dataclasses.field(default_factory=dict)  # probe reads while here
    viewed: int = 0  # rows View Tensor is offered on whose payload was checked
    view_problems: list[str] = dataclasses.field(default_factory=list)
    seconds: float = 0.0
    # a Look's test -> what its look raised here (a traceback), None where it passed
    looks: dict[str, str | None] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Run:
    program: Program
    debugger: str  # "stock" or "plugin"
    mode: str
    exit_code: int | None = None
    stdout: str = ""
    console: str = ""  # everything else the program and the debugger wrote
    stops: list[Stop] = dataclasses.field(default_factory=list)
    reads: dict[str, int] = dataclasses.field(default_factory=dict)
    failure: str | None = None  # the session broke: how
    seconds: float = 0.0
    # CPU seconds of the program (its own count, at its exit) and, in a debug run, of the
    # thread that walked it; the adapter's are left out
    cpu: float = 0.0


class RecordingClient(DapClient):
    """A DapClient that keeps each output event's category."""

    def __init__(self, **kwargs) -> None:
        self.stdout_parts: list[str] = []
        self.other_parts: list[str] = []
        super().__init__(**kwargs)

    def _read_message(self) -> dict | None:
        message = super()._read_message()
        if message and message.get("type") == "event" and message.get("event") == "output":
            body = message.get("body") or {}
            part = body.get("output", "")
            if body.get("category") == "stdout":
                self.stdout_parts.append(part)
            else:
                self.other_parts.append(part)
        return message


def program_cpu(probe_out: str) -> float:
    """The CPU seconds the program wrote at its exit (tests/programs/real/probe.py)."""
    if not os.path.exists(probe_out + ".cpu"):
        return 0.0
    with open(probe_out + ".cpu", encoding="utf-8") as written:
        return float(written.read())


def env_for(debugger: str, mode: str, probe_out: str | None = None) -> dict[str, str]:
    env = dict(ENV)
    if debugger == "stock":
        env.update(stock_env())  # TCP_NODELAY on its socket: each request ~40 ms sooner
    if mode == "eager":
        env["TF_DEBUG_REPR_EAGER"] = "1"
    if probe_out:
        env["REAL_PROBE_OUT"] = probe_out
    return env


def _next_event(client: DapClient, names: set[str], timeout: float = 300) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise DapError(f"none of {sorted(names)} within {timeout}s")
        try:
            event = client.events.get(timeout=remaining)
        except queue.Empty:
            continue
        if event["event"] in names or event["event"] == "_closed":
            return event


def _look(look: Callable[[Stopped], None], session: Stopped) -> str | None:
    try:
        look(session)
    except Exception:  # an assertion's, or the session's: the look's test fails with it
        return traceback.format_exc()
    return None


def debug_run(program: Program, debugger: str, mode: str, looks: tuple[Look, ...] = ()) -> Run:
    """Run the program under ``debugger`` to its end, recording each stop's walk, then
    making the ``looks`` due there."""
    run = Run(program, debugger, mode)
    path = program.path
    lines = {line_of(path, m): m for m in program.stops}
    with tempfile.TemporaryDirectory() as scratch:
        probe_out = os.path.join(scratch, "reads.json")
        cpu = time.thread_time()
        client = RecordingClient(python=sys.executable)
        start = time.perf_counter()
        try:
            client.configure(
                launch_config(path, env=env_for(debugger, mode, probe_out)), {path: list(lines)}
            )
            visited: list[str] = []
            exited = False
            while not exited:
                event = _next_event(client, {"stopped", "exited", "terminated"})
                if event["event"] == "_closed":
                    raise DapError("the adapter closed")
                if event["event"] in ("exited", "terminated"):
                    run.exit_code = (event.get("body") or {}).get("exitCode", run.exit_code)
                    exited = event["event"] == "terminated" or run.exit_code is not None
                    continue
                thread = event["body"]["threadId"]
                try:
                    line = client.top_frame(thread)["line"]
                except DapError:  # a stop the ending program left behind: it has gone
                    continue
                marker = lines.get(line)
                if marker is not None and marker not in visited:
                    visited.append(marker)
                    session = Stopped(client, event["body"])
                    stop = Stop(marker, line)
                    began = time.perf_counter()
                    counted = probe_counts(session)
                    if debugger == "stock":
                        record_stock(session, stop)
                    else:
                        record_plugin(session, stop)
                    stop.reads = {
                        name: count - counted.get(name, 0)
                        for name, count in probe_counts(session).items()
                        if count > counted.get(name, 0)
                    }
                    stop.seconds = time.perf_counter() - began
                    for look in looks:
                        if marker in look.at:
                            stop.looks[look.test] = _look(look.at[marker], session)
                    run.stops.append(stop)
                    rest = [n for n, m in lines.items() if m not in visited]
                    client.request(
                        "setBreakpoints",
                        {"source": {"path": path}, "breakpoints": [{"line": n} for n in rest]},
                    )
                client.resume(thread)
            if run.exit_code is None:  # terminated came first: the exit code may follow
                try:
                    exited_event = _next_event(client, {"exited"}, timeout=10)
                    run.exit_code = (exited_event.get("body") or {}).get("exitCode")
                except DapError:
                    pass
        except Exception as exc:  # the record says how the session broke; checks fail on it
            run.failure = f"{type(exc).__name__}: {exc}"[:3000]
        finally:
            time.sleep(0.2)  # the last output events
            client.close()
        run.seconds = time.perf_counter() - start
        run.cpu = time.thread_time() - cpu + program_cpu(probe_out)
        run.stdout = "".join(client.stdout_parts)
        run.console = "".join(client.other_parts)
        if os.path.exists(probe_out):
            with open(probe_out, encoding="utf-8") as written:
                run.reads = json.load(written)
    return run


class Runs:
    """``runs.get(program, debugger, mode)``: that run, made once. At the first asking for
    any run of a program, all of its runs (the plugin's per mode, then stock's) are started,
    ``RUNS_AT_ONCE`` at a time, each in a thread of its own; a run's figures go to
    ``report`` (one JSON line each) when it ends. The plugin's runs make the ``looks`` of
    their program and mode."""

    def __init__(
        self, report: str | None = None, at_once: int = RUNS_AT_ONCE, looks: tuple[Look, ...] = ()
    ) -> None:
        self._looks = looks
        self._pool = concurrent.futures.ThreadPoolExecutor(max(at_once, 1), "real-run")
        self._runs: dict[tuple[str, str, str], concurrent.futures.Future[Run]] = {}
        self._lock = threading.Lock()
        self._report = report

    def _make(self, program: Program, debugger: str, mode: str) -> Run:
        looks = tuple(
            look
            for look in self._looks
            if debugger == "plugin" and look.program == program.name and mode in look.modes
        )
        run = debug_run(program, debugger, mode, looks)
        if self._report:
            with self._lock, open(self._report, "a", encoding="utf-8") as out:
                out.write(summary(run) + "\n")
        return run

    def get(self, program: Program, debugger: str, mode: str = "compiled") -> Run:
        if debugger != "plugin":
            mode = "compiled"  # stock debugpy has no modes
        with self._lock:
            if (program.name, debugger, mode) not in self._runs:
                every = [("plugin", m) for m in program.modes]
                every += [("stock", "compiled")]
                if (debugger, mode) not in every:  # a mode the program is not listed with
                    every.insert(0, (debugger, mode))
                for kind, its_mode in every:
                    key = (program.name, kind, its_mode)
                    if key not in self._runs:
                        self._runs[key] = self._pool.submit(self._make, program, kind, its_mode)
            made = self._runs[(program.name, debugger, mode)]
        return made.result()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


# ------------------------------------------------------------------ stock


def probe_counts(session: Stopped) -> dict[str, int]:
    """tests/programs/real/probe.py's counts of user-property reads so far (its plain dict,
    as JSON text: reading it calls no property). The difference across a stop is what that
    stop's look read, comparable between debuggers at the stops both reached."""
    answer = session.evaluate("__import__('json').dumps(__import__('probe').READS)")
    return json.loads(ast.literal_eval(answer["result"]))


def _probe_rows(session: Stopped) -> None:
    """Each probe looked at once, as a person opens it: its row, then its attributes."""
    for name in PROBES:
        try:
            answer = session.evaluate(name)
            if answer.get("variablesReference"):
                session.client.variables(answer["variablesReference"])
        except DapError:
            pass


def record_stock(session: Stopped, stop: Stop) -> None:
    # The locals listed as often as the plugin's run lists them (its walk, then the names):
    # a probe among them is formatted as often under both.
    session.locals()
    stop.names = {
        expression: _stock_names(session, rows) for expression, rows in _objects(session).items()
    }
    _probe_rows(session)


# ------------------------------------------------------------------ plugin


def _reachable(session: Stopped, rows: list[Variable]) -> tuple[set[str], set[str]]:
    """Names and expressions of an object's rows, with those of its ``private attributes``
    row, pydevd's protected group and the ``raise when read`` group."""
    names = {r.name for r in rows if r.name not in GROUPS}
    expressions = {r.evaluate_name for r in rows if r.evaluate_name}
    for row in rows:
        inside = row.name in ("private attributes", "protected variables")
        if (inside or row.name.startswith(RAISE_GROUP)) and row.reference:
            inner = session.children(row)
            names |= {r.name for r in inner}
            expressions |= {r.evaluate_name for r in inner if r.evaluate_name}
    return names, expressions


def record_plugin(session: Stopped, stop: Stop) -> None:
    state: dict = {
        "evaluated": {},
        "expanded": set(),
        "stop": stop,
        "left": LOCAL_ROWS,
        "seen": [],  # (path, row) of the plugin's rows, for View Tensor
    }
    local_rows = [v for v in session.locals().values() if v.type != "module"]
    for local in local_rows:  # each local with its own budget, so that every one is seen
        state["left"] = LOCAL_ROWS
        _walk(session, [local], "", 0, state, ours=True, raise_group=False)
        if state["left"] <= 0:
            stop.cut.append(local.name)
    for expression, rows in _objects(session).items():
        stop.reachable[expression] = _reachable(session, rows)
    # View Tensor on the rows the extension offers it on, as the extension fetches it
    stop.viewed, stop.view_problems = viewer_walk.check_rows(session, state["seen"], PAYLOADS)
    _probe_rows(session)


def _record(
    session: Stopped, row: Variable, where: str, level: int, state: dict, ours: bool, raised: bool
) -> None:
    stop: Stop = state["stop"]
    record = Row(where, row.value, row.type, row.evaluate_name, level, ours, raised)
    stop.rows.append(record)
    if ours:
        state["seen"].append((where, row))
    if not ours or not row.evaluate_name or row.type in PROBE_TYPES:
        return  # a stock object's row (stock's expression), or a probe (read once, apart)
    known = state["evaluated"].get(row.evaluate_name)
    if known is not None:
        record.result = known
        return
    try:
        result = session.evaluate(row.evaluate_name)["result"]
    except DapError as exc:
        record.result = f"(does not evaluate: {exc})"
        record.mismatch = record.result
        state["evaluated"][row.evaluate_name] = record.result
        return
    record.result = result
    state["evaluated"][row.evaluate_name] = result
    fresh = ADDRESS.sub("", result) == ADDRESS.sub("", row.value)
    if not (same_value(row, result) or fresh or same_count(session, row)):
        record.mismatch = f"gives {result[:200]!r}, the row shows {row.value[:200]!r}"


def _walk(
    session: Stopped,
    rows: list[Variable],
    path: str,
    level: int,
    state: dict,
    ours: bool,
    raise_group: bool,
) -> None:
    """Record each row of a level, then open them, as a person reads a level before opening
    its rows (opening one may change another)."""
    shown = first_elements([r for r in rows if r.name not in GROUPS])
    if level > 2:
        shown = shown[:THIRD_WIDTH]
    for row in shown:
        if state["left"] <= 0:
            return
        state["left"] -= 1
        _record(session, row, f"{path}/{row.name}", level, state, ours, raise_group)
    if level >= DEPTH:
        return
    for row in shown:
        if not row.reference or not ours or row.type in STOCK_TYPES | PROBE_TYPES:
            continue
        key = (row.type, row.value)  # the same object met again: walked the first time
        if key in state["expanded"]:
            continue
        state["expanded"].add(key)
        raised = raise_group or row.name.startswith(RAISE_GROUP)
        below = DEPTH if row.name == "private attributes" else level + 1
        where = f"{path}/{row.name}"
        try:
            children = session.children(row)
        except DapError as exc:
            state["stop"].rows.append(
                Row(
                    where + "/…",
                    f"<error: children not listed: {exc}>",
                    "",
                    None,
                    level + 1,
                    True,
                    raised,
                )
            )
            continue
        if _presented(session, row):
            _walk(session, children, where, below, state, True, raised)
        else:  # a stock object: its rows are looked at, not opened
            _walk(session, children, where, DEPTH, state, False, raised)


# ------------------------------------------------------------------ verdicts


def error_rows(run: Run) -> list[str]:
    """Rows of the plugin, and results of rows' expressions, that read as errors, outside the
    ``raise when read`` group."""
    found = []
    for stop in run.stops:
        for row in stop.rows:
            if not row.ours or row.raise_group:
                continue
            if ERROR.search(row.value):
                found.append(f"{stop.marker}{row.path}: shows {row.value[:200]!r}")
            elif row.result and ERROR.search(row.result) and not row.mismatch:
                found.append(
                    f"{stop.marker}{row.path}: {row.evaluate_name!r} gives {row.result[:200]!r}"
                )
    return found


def symbolic_locals(run: Run) -> list[str]:
    """Locals at a stop in compiled code that show a symbolic tensor (a trace), not a value."""
    return [
        f"{stop.marker}{row.path}: {row.value[:160]!r}"
        for stop in run.stops
        if stop.marker in run.program.compiled
        for row in stop.rows
        if row.level == 0 and row.ours and "symbolic" in row.value
    ]


def mismatches(run: Run) -> list[str]:
    return [
        f"{stop.marker}{row.path}: {row.evaluate_name!r} {row.mismatch}"
        for stop in run.stops
        for row in stop.rows
        if row.mismatch
    ]


def lost_names(stock: Run, plugin: Run) -> list[str]:
    """Names stock shows on an object that the plugin shows nowhere on it (as a row, in a
    group, or as a row whose expression is that attribute)."""
    ours = {stop.marker: stop for stop in plugin.stops}
    other = plugin.program.eager_objects if plugin.mode == "eager" else ()
    lost = []
    for stop in stock.stops:
        mine = ours.get(stop.marker)
        if mine is None:
            continue
        for expression, names in stop.names.items():
            head = re.match(r"[A-Za-z_]\w*", expression)
            if head is not None and head[0] in other:
                continue
            reachable = mine.reachable.get(expression)
            if reachable is None:
                lost.append(f"{stop.marker}: {expression} is not expandable")
                continue
            shown, expressions = reachable
            for name in sorted(names - shown - {"layers", "weights", "trainable", "variables"}):
                if not {f"{expression}.{name}", f"getattr({expression}, {name!r})"} & expressions:
                    lost.append(f"{stop.marker}: {expression}.{name}")
    return lost


def line_of_marker(program: Program, marker: str) -> int:
    return line_of(program.path, marker)


# A shape as Python prints it, its numbers already ``#``: ``(None, #, #)``, ``[#, None]``.
SHAPE = re.compile(r"[(\[](?:\s*(?:None|#)\s*,)*\s*(?:None|#)\s*,?\s*[)\]]")
DIM = re.compile(r"None|#")


def differences_not_said(
    program: Program, stock: str, plugin: str, eager: bool = False
) -> list[str]:
    """The lines of the output under the plugin that differ from stock debugpy's run's
    (where every function runs compiled, as with no debugger) in a way ``EAGER_DIFFERENCES``
    does not name; empty when none does. Named: numbers, lines the function's Python code
    prints (``as_differences_allow``), and Python state a function run eagerly keeps: where
    the compiled run printed a traced tensor's shape, the eager run prints the value's, so a
    ``None`` of the compiled run's shape may be a number (only that: not a number become
    ``None``, not a dim more or less, not the tensor's text)."""
    theirs, ours = as_differences_allow(program, stock), as_differences_allow(program, plugin)
    if eager and program.eager_objects:  # a dataset's class, as its repr prints it
        theirs = [DATASET_CLASS.sub("<Dataset", line) for line in theirs]
        ours = [DATASET_CLASS.sub("<Dataset", line) for line in ours]
    if len(theirs) != len(ours):
        return [f"{len(ours)} lines under the plugin, {len(theirs)} under stock"]
    return [
        f"stock {a!r}, under the plugin {b!r}"
        for a, b in zip(theirs, ours)
        if a != b and not _shapes_made_concrete(a, b)
    ]


# tf.data's debug mode (every function eager) leaves prefetch out: a dataset made with
# .prefetch() prints as the dataset before it (``<CacheDataset …>``, not ``<_PrefetchDataset
# …>``), as the Debug Console says; the programs' ``eager_objects`` name such datasets.
DATASET_CLASS = re.compile(r"<_?\w*Dataset\b")


def _shapes_made_concrete(compiled: str, eager: str) -> bool:
    """Do the two lines (numbers already ``#``) differ only in shapes, each the same but
    for a ``None`` of ``compiled`` that is a number in ``eager``?"""
    theirs, ours = SHAPE.findall(compiled), SHAPE.findall(eager)
    if len(theirs) != len(ours) or SHAPE.sub("()", compiled) != SHAPE.sub("()", eager):
        return False
    for a, b in zip(theirs, ours):
        dims_a, dims_b = DIM.findall(a), DIM.findall(b)
        if (a[0], len(dims_a)) != (b[0], len(dims_b)):
            return False
        if any(x != y and (x, y) != ("None", "#") for x, y in zip(dims_a, dims_b)):
            return False
    return True


def as_differences_allow(program: Program, output: str) -> list[str]:
    """A program's output less what ``EAGER_DIFFERENCES`` says may differ when a function runs
    eagerly: its numbers (random draws, rounding) and the lines the function's own Python
    code prints (``traced_prints``: at every call, not once per trace)."""
    return [
        NUMBER.sub("#", line)
        for line in output.splitlines()
        if not line.startswith(program.traced_prints or ("\0",))
    ]


def extra_reads(stock: Run, plugin: Run) -> dict[str, tuple[int, int]]:
    """``"marker name": (plugin's reads, stock's)`` where the plugin's look at a stop both
    reached read a user property more often than stock's."""
    theirs = {stop.marker: stop.reads for stop in stock.stops}
    more = {}
    for stop in plugin.stops:
        if stop.marker not in theirs:
            continue
        for name, count in stop.reads.items():
            if count > theirs[stop.marker].get(name, 0):
                more[f"{stop.marker} {name}"] = (count, theirs[stop.marker].get(name, 0))
    return more


def describe(run: Run) -> str:
    rows = sum(len(s.rows) for s in run.stops)
    stops = ", ".join(f"{s.marker} {len(s.rows)} rows {s.seconds:.0f} s" for s in run.stops)
    return (
        f"{run.program.name} {run.debugger}/{run.mode}: {rows} rows, {run.seconds:.0f} s ({stops})"
    )


def program_id(program: Program) -> str:
    return Path(program.name).stem


def summary(run: Run) -> str:
    """One JSON line: the run's figures and its findings, for the suite's report."""
    figures: dict = {
        "program": program_id(run.program),
        "debugger": run.debugger,
        "mode": run.mode,
        "seconds": round(run.seconds, 1),
        "cpu": round(run.cpu, 1),
        "exit": run.exit_code,
        "failure": run.failure,
        "stops": [[s.marker, len(s.rows), round(s.seconds, 1), s.cut, s.reads] for s in run.stops],
        "rows": sum(len(s.rows) for s in run.stops),
        "reads": run.reads,
    }
    if run.debugger == "plugin":
        figures["errors"] = error_rows(run)
        figures["mismatches"] = mismatches(run)
        figures["viewed"] = sum(stop.viewed for stop in run.stops)
        figures["view_problems"] = [p for stop in run.stops for p in stop.view_problems]
    return json.dumps(figures)
