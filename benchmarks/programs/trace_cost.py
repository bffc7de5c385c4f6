"""Benchmark-only debuggee (``benchmarks/trace_cost.py``): runs a program (``TRACE_PROGRAM``)
as ``__main__`` with each of TF's traces timed: the thread CPU and wall seconds of
``tracing_compilation._create_concrete_function`` (a level above ``func_graph_from_py_func``,
so the plugin's wrapper of that, when there is one, is inside what is timed). At exit the
traces (name, nesting depth, CPU, wall) go to ``TRACE_OUT`` as JSON, with the process's CPU."""

import atexit
import json
import os
import runpy
import sys
import time

PROGRAM = os.environ["TRACE_PROGRAM"]
OUT = os.environ["TRACE_OUT"]
traces: list[dict] = []


def _wrap() -> None:
    from tensorflow.python.eager.polymorphic_function import tracing_compilation as tc

    original = tc._create_concrete_function

    depth = [0]

    def _create_concrete_function(*args, **kwargs):
        options = args[3] if len(args) > 3 else kwargs.get("tracing_options")
        name = str(getattr(options, "name", "?"))
        cpu, wall = time.thread_time(), time.perf_counter()
        depth[0] += 1
        try:
            return original(*args, **kwargs)
        finally:
            depth[0] -= 1
            traces.append(
                {
                    "name": name,
                    "depth": depth[0],
                    "cpu": time.thread_time() - cpu,
                    "wall": time.perf_counter() - wall,
                }
            )

    tc._create_concrete_function = _create_concrete_function


def _write() -> None:
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump({"traces": traces, "process_cpu": time.process_time()}, f)


import tensorflow  # noqa: E402,F401  (the program imports it first anyway)

_wrap()
atexit.register(_write)
sys.path.insert(0, os.path.dirname(PROGRAM))
sys.argv = [PROGRAM]
runpy.run_path(PROGRAM, run_name="__main__")
