"""Benchmark: tf-debug-repr against stock debugpy, measured in the same run.

Prints medians (ms) and ratios for:
  * the Locals request of a frame holding 16 tensors of 10^6 float32 elements,
  * expanding one of those tensors,
  * the watch value of one 2^26-element tensor (size independence, 0.5 s notice),
  * time to the first breakpoint of a program that never imports TensorFlow,
  * the debuggee's peak resident memory after all of it (a host copy would show).

"Stock" is the same installation with the plugin switched off (TF_DEBUG_REPR_DISABLE=1):
debugpy then loads the plugin module, which registers nothing. Every figure comes from
real DAP requests to a real ``python -m debugpy.adapter``.

    python benchmarks/debugger_overhead.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from tf_debug_repr.dap_client import DapClient, launch_config, line_of

HERE = Path(__file__).parent / "programs"
TENSORS = str(HERE / "sixteen_tensors.py")
NO_TF = str(HERE / "no_tensorflow.py")
RUSAGE = "__import__('resource')"


def env_for(plugin: bool) -> dict[str, str]:
    env = {"TF_CPP_MIN_LOG_LEVEL": "2"}
    if not plugin:
        env["TF_DEBUG_REPR_DISABLE"] = "1"
    return env


def timed(fn, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e3)
    return samples


def tensor_figures(plugin: bool, repeat: int) -> dict[str, list[float]]:
    client = DapClient()
    try:
        lines = [line_of(TENSORS, "BREAKPOINT"), line_of(TENSORS, "BREAKPOINT huge")]
        stop = client.start(launch_config(TENSORS, env=env_for(plugin)), {TENSORS: lines})
        frame = client.top_frame(stop["threadId"])["id"]
        scope = client.locals_reference(frame)
        figures = {"locals (16 x 1e6 float32)": timed(lambda: client.variables(scope), repeat)}
        t00 = next(v for v in client.variables(scope) if v.name == "t00")
        figures["expand one 1e6 tensor"] = timed(lambda: client.variables(t00.reference), repeat)
        client.request("continue", {"threadId": stop["threadId"]})
        stop = client.wait_event("stopped")
        frame = client.top_frame(stop["threadId"])["id"]
        figures["watch value, 2^26 elements"] = timed(
            lambda: client.evaluate("huge", frame, "watch"), max(3, repeat // 3)
        )
        for _ in range(3):  # expand it too: the numpy child must not copy 256 MiB
            client.variables(client.evaluate("huge", frame, "watch")["variablesReference"])
        # Memory: the debuggee's peak resident size after all of the above (MiB). The
        # tensors themselves take ~320 MiB in both; a copy of `huge` would add 256 MiB.
        peak_kib = client.evaluate(
            f"{RUSAGE}.getrusage({RUSAGE}.RUSAGE_SELF).ru_maxrss", frame, "watch"
        )["result"]
        figures["debuggee peak RSS (MiB)"] = [int(peak_kib) / 1024]
        return figures
    finally:
        client.close()


def startup_figures(plugin: bool, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        client = DapClient()
        try:
            start = time.perf_counter()
            client.start(
                launch_config(NO_TF, env=env_for(plugin)), {NO_TF: [line_of(NO_TF, "BREAKPOINT")]}
            )
            samples.append((time.perf_counter() - start) * 1e3)
        finally:
            client.close()
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    results: dict[str, dict[str, list[float]]] = {"stock": {}, "plugin": {}}
    # Alternate stock and plugin sessions so drift on a shared machine hits both alike.
    for round_ in range(2):
        for name, plugin in (("stock", False), ("plugin", True)):
            for key, samples in tensor_figures(plugin, args.repeat).items():
                results[name].setdefault(key, []).extend(samples)
            results[name].setdefault("first stop, program without TF", []).extend(
                startup_figures(plugin, max(2, args.repeat // 5))
            )
        print(f"round {round_ + 1} done", file=sys.stderr)
    print(
        f"{'measure':<34} {'stock':>10} {'plugin':>10} {'ratio':>7}   (medians, ms unless named; n per cell)"
    )
    for key in results["stock"]:
        stock = statistics.median(results["stock"][key])
        plugin = statistics.median(results["plugin"][key])
        n = len(results["plugin"][key])
        print(f"{key:<34} {stock:>10.1f} {plugin:>10.1f} {plugin / stock:>6.2f}x   (n={n})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
