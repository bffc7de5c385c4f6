"""Where a stop's requests spend their time (issue 27): the training session of
``training_session.py``, with each ``variables`` and ``evaluate`` request timed where pydevd
answers it, in the debuggee, on the suspended thread (``profile_hook/sitecustomize.py``).

For each request kind at the first stop and at stops 2-N it prints the client's round trip,
pydevd's time answering it (``internal_get_variable_json``), and the part of that spent in
the plugin's provider methods (``get_str_in_context``, ``get_contents_debug_adapter_protocol``,
``can_provide``); the rest is pydevd's own work and the transport. With ``--profile`` a sampler reads the
answering thread's stack every ~0.2 ms during each request (cProfile records nothing
there: pydevd answers from inside its trace function), and the functions most often on
the stack for the chosen kinds are printed, with the share of samples they were the leaf.

    python benchmarks/profile_stop.py --stops 4                 # times (plugin)
    python benchmarks/profile_stop.py --stock                   # the same with the plugin off
    python benchmarks/profile_stop.py --profile --show Locals   # where Locals' time goes
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from training_session import MODELS, payload_request, program_of

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

HERE = Path(__file__).parent
PROGRAM = str(HERE / "programs" / "training_session.py")
HOOK = str(HERE / "profile_hook")


def _timer(kinds: list[tuple[str, float]]) -> Callable[[str, Callable[[], Any]], Any]:
    """``timed(kind, fn)``: runs ``fn``, notes its client-side milliseconds under ``kind``."""

    def timed(kind: str, fn: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        result = fn()
        kinds.append((kind, (time.perf_counter() - start) * 1e3))
        return result

    return timed


def one_stop(client: DapClient, thread: int, when: str, kinds: list[tuple[str, float]]) -> None:
    """The requests of ``training_session.py``'s stop, each timed by the client too."""

    timed = _timer(kinds)

    frame = client.top_frame(thread)["id"]
    scope = client.locals_reference(frame)
    rows = timed(f"Locals, {when}", lambda: client.variables(scope))
    by_name = {v.name: v for v in rows}

    def expand(name: str) -> Callable[[], Any]:
        return lambda: client.variables(by_name[name].reference)

    timed(f"expand the model, {when}", expand("model"))
    layers = timed("(layers list)", expand("layers"))
    first = next(v for v in layers if v.name.isdigit() and int(v.name) == 0)
    timed(f"expand a layer, {when}", lambda: client.variables(first.reference))
    timed(f"expand a variable, {when}", expand("big_a"))
    timed(f"expand the optimizer, {when}", expand("optimizer"))
    timed(f"expand the other 10^6 variable, {when}", expand("big_b"))
    for i in range(10):
        timed(f"Watch of one tensor, {when}", lambda i=i: client.evaluate(f"t{i}", frame))
    timed(f"hover, {when}", lambda: client.evaluate("model", frame, "hover"))
    request = payload_request("layers[0].kernel")  # as training_session.py's MLP stop
    timed(f"viewer payload, {when}", lambda: client.evaluate(request, frame, "clipboard"))


def one_stop_models(
    client: DapClient, thread: int, when: str, kinds: list[tuple[str, float]]
) -> None:
    """The requests of ``training_session.py --model`` for programs/session_models.py."""

    timed = _timer(kinds)

    frame = client.top_frame(thread)["id"]
    scope = client.locals_reference(frame)
    rows = timed(f"Locals, {when}", lambda: client.variables(scope))
    by_name = {v.name: v for v in rows}
    for kind, name in (("the model", "model"), ("a layer", "layer"), ("a variable", "weight")):
        timed(f"expand {kind}, {when}", lambda n=name: client.variables(by_name[n].reference))
    timed(f"expand the optimizer, {when}", lambda: client.variables(by_name["optimizer"].reference))
    for i in range(10):
        timed(f"Watch of one tensor, {when}", lambda i=i: client.evaluate(f"t{i}", frame))
    timed(f"hover, {when}", lambda: client.evaluate("model", frame, "hover"))
    request = payload_request("weight")
    timed(f"viewer payload, {when}", lambda: client.evaluate(request, frame, "clipboard"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stops", type=int, default=4)
    parser.add_argument("--model", choices=MODELS, default="mlp", help="as training_session.py")
    parser.add_argument("--stock", action="store_true", help="TF_DEBUG_REPR_DISABLE=1")
    parser.add_argument("--profile", action="store_true", help="sample each request's stack")
    parser.add_argument("--show", action="append", default=[], help="request kinds to profile")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the debuggee")
    args = parser.parse_args()
    out = tempfile.mkdtemp(prefix="tfdr-profile-")
    env = {
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "BENCH_STEPS": str(args.stops),
        "PYTHONPATH": HOOK + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "TFDR_PROFILE_DIR": out,
        "TFDR_PROFILE_MODE": "sample" if args.profile else "time",
    }
    program, model_env = program_of(args.model)
    env.update(model_env)
    stop_requests = one_stop if args.model == "mlp" else one_stop_models
    if args.stock:
        env["TF_DEBUG_REPR_DISABLE"] = "1"
    env.update(dict(item.split("=", 1) for item in args.env))
    kinds: list[tuple[str, float]] = []  # (kind, client ms) in request order
    client = DapClient()
    try:
        stop = client.start(
            launch_config(program, env=env),
            {program: [line_of(program, "BREAKPOINT")]},
            timeout=600,
        )
        thread = stop["threadId"]
        for index in range(args.stops):
            stop_requests(client, thread, "first stop" if index == 0 else "later stops", kinds)
            client.resume(thread)
            if index + 1 < args.stops:
                thread = client.wait_event("stopped", 600)["threadId"]
    finally:
        client.close()
    records = [json.loads(p.read_text()) for p in sorted(Path(out).glob("*.json"))]
    if len(records) != len(kinds):
        print(f"{len(records)} records for {len(kinds)} requests: the hook missed some")
        return 1
    print(f"load average: {os.getloadavg()}; records in {out}")
    by_kind: dict[str, list[tuple[float, dict]]] = defaultdict(list)
    for (kind, client_ms), record in zip(kinds, records, strict=True):
        by_kind[kind].append((client_ms, record))
    print(
        "| request | round trip | pydevd answering | its thread's CPU time "
        "| in the plugin's providers | calls | n |"
    )
    print("|---|---|---|---|---|---|---|")
    for kind, items in by_kind.items():
        trip = statistics.median(c for c, _ in items)
        inside = statistics.median(r["ms"] for _, r in items)
        plugin = statistics.median(sum(r["plugin_ms"].values()) for _, r in items)
        cpu = statistics.median(r["cpu_ms"] for _, r in items)
        calls = items[-1][1]["plugin_calls"]
        text = ", ".join(f"{k.split('.')[-1]} {v}" for k, v in sorted(calls.items()))
        print(
            f"| {kind} | {trip:.1f} | {inside:.1f} | {cpu:.1f} | {plugin:.1f} | {text} "
            f"| {len(items)} |"
        )
    if args.profile:
        for kind, items in by_kind.items():
            if not any(kind.startswith(s) for s in args.show):
                continue
            for _, record in items[:1] + items[-1:]:
                samples = record["samples"]
                total = max(samples["total"], 1)
                print(f"\n## {kind} (request {record['seq']}, {record['ms']:.1f} ms,")
                print(f"{samples['total']} samples): % on the stack, % as the leaf, function")
                ranked = sorted(samples["inclusive"].items(), key=lambda kv: -kv[1])
                for key, count in ranked[: args.top]:
                    own = samples["own"].get(key, 0)
                    print(f"{100 * count / total:5.1f} {100 * own / total:5.1f}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
