"""Gradient capture in compiled Keras steps, on a Keras MLP of 25.2M parameters (Adam).

1. Step time, capture on vs off, in one process: two copies of the model (same weights),
   one whose compiled step was traced with capture on (the shadow and norm ops in its
   graph), one traced with it off; ``train_on_batch`` on each, a few steps a side per
   round, the sides' order alternating every round so drift in machine load hits both
   alike; the per-round ratio of their mean step times. Without and with XLA.
   ``--part profile``: the capture's own ops in TF's profiler (graph mode, where every op
   is its own kernel): per step, the median time of each op, summed, for the ops under the
   ``tf_debug_repr`` name scope against all ops: what the capture adds, less moved by other
   programs on the machine than a step's wall time.
2. Resident memory after many compiled steps, each setting in a fresh subprocess.
3. Breakpoints in compiled code, under a real debugpy session (a smaller model,
   ``benchmarks/programs/compiled_step_timing.py``): the time of a ``fit`` step and of
   another compiled function with no breakpoint, with a breakpoint in ``train_step`` (a
   never-true condition, so it never stops: only that function runs eagerly), and with
   ``TF_DEBUG_REPR_EAGER=1`` (every function eagerly); the control: a never-true breakpoint
   outside compiled code (what any breakpoint costs under pydevd).

    .venv/bin/python benchmarks/compiled_capture.py [--rounds 24 --inner 3 --memory-steps 20]

About ten minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from big_model_capture import BATCH, CLASSES, INPUT, WIDTH, resident_mib  # the same MLP

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

HERE = Path(__file__).parent


def build(jit: bool, seed: int = 0):
    import keras

    keras.utils.set_random_seed(seed)
    model = keras.Sequential(
        [
            keras.Input((INPUT,)),
            keras.layers.Dense(WIDTH, activation="relu"),
            keras.layers.Dense(WIDTH, activation="relu"),
            keras.layers.Dense(INPUT, activation="relu"),
            keras.layers.Dense(CLASSES),
        ]
    )
    model.compile(
        optimizer=keras.optimizers.Adam(1e-4),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        jit_compile=jit,
    )
    return model


def batch():
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, INPUT), dtype=np.float32)
    y = rng.integers(0, CLASSES, (BATCH,))
    return x, y


def median_interval(values: list[float], draws: int = 2000) -> tuple[float, float]:
    """A 95% bootstrap interval of the median of ``values`` (fixed seed)."""
    import random

    pick = random.Random(0)
    medians = sorted(statistics.median(pick.choices(values, k=len(values))) for _ in range(draws))
    return medians[int(0.025 * draws)], medians[int(0.975 * draws) - 1]


def install_capture():
    """What the plugin does once TF is imported and a client is looking."""
    import keras
    import tensorflow as tf

    from tf_debug_repr.gradients import capture as gradient_capture

    gradient_capture.set_enabled(True)
    gradient_capture.install_tape_hooks(tf)
    gradient_capture.install_keras_hooks(keras)
    return gradient_capture


def time_on_off(rounds: int, inner: int, jit: bool, control: bool = False) -> dict:
    """``control``: both copies traced with capture off (an A/A run: how far from 1.000
    the method itself reads)."""
    capture = install_capture()
    from tf_debug_repr.gradients import compiled as compiled_capture

    x, y = batch()
    models = {}
    for on in (True, False):  # traced (at the first step) with capture on, then off
        capture.set_enabled(on and not control)
        models[on] = build(jit)
        for _ in range(2):  # warm-up: the trace, the optimizer's slots
            models[on].train_on_batch(x, y)
    capture.set_enabled(True)
    params = sum(int(v.shape.num_elements()) for v in models[True].trainable_variables)
    times: dict[bool, list[float]] = {True: [], False: []}
    cpu: dict[bool, list[float]] = {True: [], False: []}
    paired, paired_cpu = [], []
    for round_ in range(rounds):
        this, this_cpu = {}, {}
        for on in (True, False) if round_ % 2 == 0 else (False, True):
            start, start_cpu = time.perf_counter(), time.process_time()
            for _ in range(inner):
                models[on].train_on_batch(x, y)
            this[on] = (time.perf_counter() - start) / inner
            # CPU time of the whole process (all TF threads): less moved than wall time by
            # other programs on a shared machine.
            this_cpu[on] = (time.process_time() - start_cpu) / inner
            times[on].append(this[on])
            cpu[on].append(this_cpu[on])
        paired.append(this[True] / this[False])
        paired_cpu.append(this_cpu[True] / this_cpu[False])
    compiled_capture.sync(capture.store_compiled)
    kept = sum(
        1
        for v in models[True].trainable_variables
        if (record := capture.record_of(v)) is not None and record.gradient is not None
    )
    on, off = statistics.median(times[True]), statistics.median(times[False])
    return {
        "params": params,
        "jit": jit,
        "off_ms": off * 1e3,
        "on_ms": on * 1e3,
        "ratio": on / off,
        "paired_median": statistics.median(paired),
        "paired_min": min(paired),
        "paired_max": max(paired),
        "cpu_off_ms": statistics.median(cpu[False]) * 1e3,
        "cpu_on_ms": statistics.median(cpu[True]) * 1e3,
        "cpu_paired_median": statistics.median(paired_cpu),
        "cpu_paired_interval": median_interval(paired_cpu),
        "cpu_paired_min": min(paired_cpu),
        "cpu_paired_max": max(paired_cpu),
        "n": rounds,
        "inner": inner,
        "kept": f"{kept} of {len(models[True].trainable_variables)}",
        "shadow_mib": compiled_capture._shadow_bytes / 2**20,
    }


def profile_capture_ops(steps: int) -> dict:
    """Graph mode: per step, the capture's ops (name scope ``tf_debug_repr``) against all
    ops, from TF's profiler: each op's median time over ``steps`` steps (a step's op that
    another program preempted reads long once, not at the median), summed."""
    import re
    import shutil

    import tensorflow as tf

    try:
        from tsl.profiler.protobuf import xplane_pb2
    except ImportError:  # TF bundles it here
        from tensorflow.tsl.profiler.protobuf import xplane_pb2

    install_capture()
    x, y = batch()
    model = build(jit=False)
    for _ in range(3):
        model.train_on_batch(x, y)
    logdir = tempfile.mkdtemp(prefix="tfdr-profile-")
    try:
        tf.profiler.experimental.start(logdir)
        for _ in range(steps):
            model.train_on_batch(x, y)
        tf.profiler.experimental.stop()
        space = xplane_pb2.XSpace()
        space.ParseFromString(next(Path(logdir).rglob("*.xplane.pb")).read_bytes())
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
    op_event = re.compile(r"^[^:\s]+:[A-Za-z0-9_]+$")  # "scope/name:OpType"
    times: dict[str, list[float]] = {}
    for plane in space.planes:
        names = {k: v.name for k, v in plane.event_metadata.items()}
        for line in plane.lines:
            for event in line.events:
                name = names.get(event.metadata_id, "")
                if op_event.match(name):
                    times.setdefault(name, []).append(event.duration_ps / 1e9)
    per_step = {k: statistics.median(v) * len(v) / steps for k, v in times.items()}
    ours = {k: v for k, v in per_step.items() if "tf_debug_repr" in k}
    return {
        "all_ms": sum(per_step.values()),
        "capture_ms": sum(ours.values()),
        "capture_ops": len(ours),
        "steps": steps,
        "top": sorted(ours.items(), key=lambda kv: -kv[1])[:3],
    }


def memory_child(steps: int, on: bool, jit: bool) -> None:
    if on:
        install_capture()
    model = build(jit)
    x, y = batch()
    for _ in range(steps):
        model.train_on_batch(x, y)
    gc.collect()
    print(json.dumps({"rss_mib": resident_mib()}))


def memory(steps: int, jit: bool) -> dict:
    out = {}
    for on in (False, True):
        run = subprocess.run(
            [sys.executable, __file__, "--memory-child", str(steps)]
            + (["--on"] if on else [])
            + (["--jit"] if jit else []),
            capture_output=True,
            text=True,
            timeout=1800,
            check=True,
        )
        out[on] = json.loads(run.stdout.strip().splitlines()[-1])["rss_mib"]
    return out


def session_timing(mode: str) -> dict:
    """One real debugpy session of the timing program; its own timings back."""
    from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

    program = str(HERE / "programs" / "compiled_step_timing.py")
    out = tempfile.mktemp(suffix=".json")
    env = {"TFDR_OUT": out, "TF_CPP_MIN_LOG_LEVEL": "2"}
    if mode == "global switch":
        env["TF_DEBUG_REPR_EAGER"] = "1"
    breakpoints = {}
    marker = {
        "breakpoint in train_step": "TRAIN_STEP_LINE",
        "breakpoint elsewhere": "ELSEWHERE_LINE",
    }
    if mode in marker:
        breakpoints = {program: [{"line": line_of(program, marker[mode]), "condition": "False"}]}
    client = DapClient(python=sys.executable)
    try:
        client.configure(launch_config(program, env=env), breakpoints)
        client.wait_event("terminated", timeout=1800)
    finally:
        client.close()
    with open(out) as f:
        return json.load(f)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=24)
    parser.add_argument("--inner", type=int, default=3, help="steps a side per round")
    parser.add_argument(
        "--control", action="store_true", help="time: both copies without capture (A/A)"
    )
    parser.add_argument("--profile-steps", type=int, default=10)
    parser.add_argument("--memory-steps", type=int, default=20)
    parser.add_argument("--memory-child", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--on", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--jit", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--part", choices=["time", "profile", "memory", "session", "all"], default="all"
    )
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child, args.on, args.jit)
        return
    if args.part in ("time", "all"):
        for jit in (False, True):
            result = time_on_off(args.rounds, args.inner, jit, args.control)
            print(
                f"{'XLA' if jit else 'graph'}{' A/A control' if args.control else ''}: "
                f"{result['params']:,} params, "
                f"step off {result['off_ms']:,.1f} ms, on {result['on_ms']:,.1f} ms "
                f"(medians of {result['n']} rounds of {result['inner']}), ratio {result['ratio']:.3f}; per-round ratios "
                f"median {result['paired_median']:.3f} [{result['paired_min']:.3f}, "
                f"{result['paired_max']:.3f}]; CPU time off {result['cpu_off_ms']:,.1f} ms, "
                f"on {result['cpu_on_ms']:,.1f} ms, per-round ratios median "
                f"{result['cpu_paired_median']:.3f} (95% interval of the median "
                f"{result['cpu_paired_interval'][0]:.3f}-{result['cpu_paired_interval'][1]:.3f}) "
                f"[{result['cpu_paired_min']:.3f}, "
                f"{result['cpu_paired_max']:.3f}]; values kept for {result['kept']} weights "
                f"({result['shadow_mib']:,.0f} MiB of shadows)",
                flush=True,
            )
    if args.part in ("profile", "all"):
        p = profile_capture_ops(args.profile_steps)
        top = ", ".join(f"{name} {ms:.3f} ms" for name, ms in p["top"])
        print(
            f"graph, profiler: per step, all ops {p['all_ms']:,.1f} ms, the capture's "
            f"{p['capture_ops']} ops {p['capture_ms']:.2f} ms "
            f"({100 * p['capture_ms'] / p['all_ms']:.2f}%; medians of {p['steps']} steps); "
            f"largest: {top}",
            flush=True,
        )
    if args.part in ("memory", "all"):
        for jit in (False, True):
            rss = memory(args.memory_steps, jit)
            print(
                f"{'XLA' if jit else 'graph'}: resident after {args.memory_steps} steps: "
                f"off {rss[False]:,.0f} MiB, on {rss[True]:,.0f} MiB "
                f"({rss[True] - rss[False]:+,.0f} MiB)",
                flush=True,
            )
    if args.part in ("session", "all"):
        modes = (
            "no breakpoint",
            "breakpoint elsewhere",
            "breakpoint in train_step",
            "global switch",
        )
        for mode in modes:
            t = session_timing(mode)
            print(
                f"debug session, {mode}: fit step median {t['step_ms']:,.1f} ms, "
                f"other compiled function median {t['other_ms']:,.2f} ms",
                flush=True,
            )


if __name__ == "__main__":
    main()
