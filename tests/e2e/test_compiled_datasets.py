"""Breakpoints in tf.data functions (TF's tf.data guide's shapes), through a real debugpy
adapter: while a breakpoint lies in a `Dataset.map`/`filter`/`interleave`/`flat_map`
function, that dataset's elements are made by running the function as Python, in order,
and each stop shows that element's eager values; other datasets stay compiled; the program
prints what a plain run prints. Stock debugpy never stops there."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from tf_debug_repr.hosts.demo.dap_client import line_of

from ..conftest import attach_stopped, free_port, is_listening, program_path
from .test_compiled_breakpoints import (
    check_stop,
    line,
    next_event,
    plain_output,
    printed,
    py,
    run_to_end,
    stock_run,
    thread_name,
)

pytestmark = pytest.mark.e2e

NAME = "compiled_datasets.py"
FEATURES = np.arange(12, dtype="float32").reshape(6, 2)
LABELS = [0, 1, 1, 0, 1, 0]
MEAN = FEATURES.mean(axis=0)
AS_PYTHON = "now runs as Python for each element"


def told(s, text: str) -> list[str]:
    return [o for o in s.client.output if text in o]


def test_breakpoints_in_map_and_filter_functions_stop_at_each_element_in_order(debug_session):
    path = program_path(NAME)
    plain = plain_output(NAME)
    assert len(plain) == 8, plain
    markers = ["MAP_BREAKPOINT", "FILTER_BREAKPOINT"]
    stock_code, stock_out, stock_stops = stock_run(NAME, markers)
    assert (stock_code, stock_out, stock_stops) == (0, plain, 0)

    s = debug_session(NAME, markers=markers)
    threads = set()
    for i in range(3):  # the parallel map made sequential: map, then filter, element by element
        if i:
            assert next_event(s)["event"] == "stopped", i
        check_stop(s, path, "MAP_BREAKPOINT", "scaled", ((FEATURES[i] - MEAN) / 4.0).tolist())
        assert py(s, "str(x.numpy().tolist())") == repr(str(FEATURES[i].tolist()))
        assert py(s, "int(y)") == str(LABELS[i])
        threads.add(thread_name(s))
        assert next_event(s)["event"] == "stopped", i
        assert line(s) == line_of(path, "FILTER_BREAKPOINT")
        assert py(s, "type(keep).__name__") == "'EagerTensor'"
        assert py(s, "bool(keep)") == str(LABELS[i] == 1)
        assert py(s, "str(x.numpy().tolist())") == repr(str(((FEATURES[i] - MEAN) / 4.0).tolist()))
    assert "MainThread" not in threads, threads  # tf.data's own threads run the function
    # The breakpoints go mid-run: the rest of the elements are made without stopping.
    s.client.request(
        "setBreakpoints",
        {"source": {"path": path}, "breakpoints": [{"line": line_of(path, "END")}]},
    )
    assert next_event(s)["event"] == "stopped"
    assert line(s) == line_of(path, "END")
    assert py(s, "len(untouched_traces)") == "1"  # the map with no breakpoint: traced once
    assert run_to_end(s) == 0
    assert printed(s) == plain  # the same elements, in the same order
    notes = told(s, AS_PYTHON)
    assert len(notes) == 2, notes
    assert "Dataset.map(normalize)" in notes[0] and "Dataset.filter(has_label)" in notes[1]
    assert f"made at {NAME}:" in notes[0] and "num_parallel_calls set aside" in notes[0]
    assert not any("untouched" in o for o in s.client.output)


def test_interleave_and_flat_map_functions_stop_and_a_dataset_made_before_says_why(
    debug_session,
):
    path = program_path(NAME)
    plain = plain_output(NAME)
    markers = ["INTERLEAVE_BREAKPOINT", "FLAT_MAP_BREAKPOINT", "ADD_BREAKPOINT", "GRAPH_BREAKPOINT"]
    stock_code, stock_out, stock_stops = stock_run(NAME, markers)
    assert (stock_code, stock_out, stock_stops) == (0, plain, 1)  # ADD_BREAKPOINT only

    s = debug_session(NAME, markers=markers)
    for index in range(3):  # each file's dataset, in the order interleave opens them
        if index:
            assert next_event(s)["event"] == "stopped", index
        assert line(s) == line_of(path, "INTERLEAVE_BREAKPOINT"), index
        assert py(s, "int(index)") == str(index)
        assert py(s, "type(index).__name__") == "'EagerTensor'"
    for text in ("the quick fox", "jumps over", "the dog"):
        assert next_event(s)["event"] == "stopped", text
        assert line(s) == line_of(path, "FLAT_MAP_BREAKPOINT"), text
        assert py(s, "line.numpy().decode()") == repr(text)
        assert py(s, "str([w.decode() for w in words.numpy().tolist()])") == repr(str(text.split()))
    assert next_event(s)["event"] == "stopped"
    assert line(s) == line_of(path, "ADD_BREAKPOINT")
    # `early` was made before this breakpoint: it runs compiled, and the console says so.
    s.client.request(
        "setBreakpoints",
        {
            "source": {"path": path},
            "breakpoints": [
                {"line": line_of(path, m)} for m in ("LATE_BREAKPOINT", "END", "GRAPH_BREAKPOINT")
            ],
        },
    )
    assert next_event(s)["event"] == "stopped"
    assert line(s) == line_of(path, "END")
    assert run_to_end(s) == 0
    assert printed(s) == plain
    notes = told(s, AS_PYTHON)
    assert len(notes) == 2, notes
    assert "Dataset.interleave(read_file)" in notes[0] and "num_parallel_calls" in notes[0]
    assert "Dataset.flat_map(split_words)" in notes[1]
    before = told(s, "made before the breakpoint was set")
    assert len(before) == 1, before
    assert "Dataset.map(late)" in before[0], before
    assert f"made at {NAME}:{line_of(path, 'EARLY')}" in before[0], before
    in_graph = told(s, "made while a graph was built")
    assert len(in_graph) == 1, in_graph
    assert "Dataset.map(in_graph)" in in_graph[0], in_graph
    assert f"made at {NAME}:{line_of(path, 'IN_GRAPH')}" in in_graph[0], in_graph


@pytest.mark.parametrize("mode", ["0", "1"])
def test_the_program_ends_with_the_plain_output_with_the_switch_off_and_on(debug_session, mode):
    """TF_DEBUG_REPR_EAGER=0 (every function compiled) and =1 (tf.data's debug mode): the
    same breakpoint in the map function; the program ends with the plain run's output."""
    path = program_path(NAME)
    plain = plain_output(NAME)
    s = debug_session(NAME, markers=["MAP_BREAKPOINT", "END"], env={"TF_DEBUG_REPR_EAGER": mode})
    stops = 0
    while line(s) == line_of(path, "MAP_BREAKPOINT"):
        stops += 1
        assert next_event(s)["event"] == "stopped"
    assert line(s) == line_of(path, "END")
    assert stops == (0 if mode == "0" else 6), stops  # =1: every element, as Python
    assert run_to_end(s) == 0
    out = printed(s)
    if mode == "1":  # every tf.data function runs as Python: `untouched` at each element too
        assert out[3] == "UNTOUCHED 7" and plain[3] == "UNTOUCHED 1", out
        out[3] = plain[3]
    assert out == plain
    assert not told(s, AS_PYTHON)  # only the default mode decides per dataset


def test_a_map_function_stops_on_tf_data_threads_that_ran_before_the_client_attached(tmp_path):
    """The program listens itself, runs a py_function on tf.data's threads with no client,
    then waits for one: a later dataset's map function with a breakpoint stops at each
    element (those threads are traced once a client is there, not marked done before)."""
    program = program_path("dataset_before_attach.py")
    port = free_port()
    log = tmp_path / "out.txt"
    with open(log, "w") as out:
        debuggee = subprocess.Popen(
            [sys.executable, program],
            env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "DEBUG_PORT": str(port)},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        while "RESULT" not in log.read_text():  # the early dataset ran before any client
            assert time.monotonic() < deadline and debuggee.poll() is None, log.read_text()
            time.sleep(0.2)
        assert is_listening(port)
        s = attach_stopped(program, port)
        try:
            for i in range(4):
                if i:
                    assert next_event(s)["event"] == "stopped", i
                check_stop(
                    s, program, "BREAKPOINT", "scaled", float(np.float32(i) / np.float32(10))
                )
                assert thread_name(s) != "MainThread"
            event = next_event(s)
            assert event["event"] in ("exited", "terminated", "_closed"), event
        finally:
            s.client.close()
        assert debuggee.wait(timeout=120) == 0
    finally:
        if debuggee.poll() is None:
            debuggee.kill()
            debuggee.wait(timeout=30)
    results = [r for r in log.read_text().splitlines() if r.startswith("RESULT")]
    assert results == ["RESULT [0, 2, 4, 6, 8, 10, 12, 14]", "RESULT [0.0, 0.1, 0.2, 0.3]"]


def test_a_parallel_interleave_with_the_default_cycle_length_stops_in_order(debug_session):
    """`interleave(f, num_parallel_calls=...)` with no cycle_length: its cycle length follows
    num_parallel_calls; the dataset is made sequential with that cycle length, so the calls
    come one at a time, in order, and the elements are the plain run's."""
    name = "dataset_interleave.py"
    path = program_path(name)
    plain = plain_output(name)
    assert plain[0] != plain[1], plain  # the two cycle lengths give two orders
    markers = ["INTERLEAVE_BREAKPOINT", "END"]
    stock_code, stock_out, stock_stops = stock_run(name, markers)
    assert (stock_code, stock_out, stock_stops) == (0, plain, 1)  # END only

    s = debug_session(name, markers=markers)
    for index in [0, 1, 2, 3, 0, 1, 2, 3]:  # each dataset opens its files in order
        assert line(s) == line_of(path, "INTERLEAVE_BREAKPOINT"), index
        assert py(s, "int(index)") == str(index)
        assert py(s, "type(index).__name__") == "'EagerTensor'"
        assert thread_name(s) != "MainThread"
        assert py(s, "len(opened)") == "1", index  # no other call under way
        assert next_event(s)["event"] == "stopped", index
    assert line(s) == line_of(path, "END")
    for dataset in ("autotuned", "two"):  # made sequential (a plain run's are parallel)
        assert py(s, f"type({dataset}).__name__") == "'_InterleaveDataset'", dataset
    assert run_to_end(s) == 0
    assert printed(s) == plain
    notes = told(s, AS_PYTHON)
    assert len(notes) == 1, notes  # one function, told once
    assert "Dataset.interleave(read_file)" in notes[0]
    assert not told(s, "stay parallel"), s.client.output


def test_a_dataset_whose_function_is_a_restored_graph_says_why_it_cannot_stop(debug_session):
    """`Dataset.map(restored.scale)`, a function loaded from a SavedModel: no Python to run.
    The console says which dataset and why, once; the program ends as the plain run."""
    name = "dataset_restored.py"
    path = program_path(name)
    plain = plain_output(name)
    markers = ["SOURCE_BREAKPOINT", "END"]
    stock_code, stock_out, stock_stops = stock_run(name, markers)
    assert stock_code == 0 and stock_out == plain

    s = debug_session(name, markers=markers)
    while line(s) == line_of(path, "SOURCE_BREAKPOINT"):  # the export's trace, if at all
        assert next_event(s)["event"] == "stopped"
    assert line(s) == line_of(path, "END")
    assert run_to_end(s) == 0
    assert printed(s) == plain
    notes = told(s, "with no Python to run")
    assert len(notes) == 1, notes
    assert "Dataset.map(scale)" in notes[0], notes
    assert "restored from a SavedModel" in notes[0], notes
    assert f"made at {name}:{line_of(path, 'MADE')}" in notes[0], notes
    assert not told(s, AS_PYTHON)
