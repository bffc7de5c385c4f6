"""Benchmark: tf-debug-repr against stock debugpy, measured in the same run.

Sessions of each kind alternate (stock, plugin, extension; the order reversed every other
round) so drift on a shared machine hits all alike. Prints medians and ratios, as a
Markdown table, for:

  * request latency on a small frame (two small tensors): the Locals request, and the
    stackTrace + scopes + variables VS Code sends after each ``next`` (and the ``next``
    itself, request to ``stopped`` event);
  * time to the first stop of a TensorFlow program (wall, and the debuggee's CPU time):
    stock, plugin (pip install), and the VS Code extension's launch path (its bundled copy on PYTHONPATH, in an environment
    where tf-debug-repr is not installed, as vscode-ext/scripts/bundle-python.js builds it);
  * Locals on a frame of 16 tensors of 10^6 float32 and expanding one of them;
  * issue 17's frame (five tf.Variables, eleven tensors of 10^6 float32 in a loop): the
    stackTrace + scopes + Locals after a ``next`` and after a ``continue`` to the next
    iteration (the summaries' time budget, ``TF_DEBUG_REPR_EXACT_MS``, at work);
  * Locals on a frame holding a 2^28-element int8 tensor (256 MiB) and expanding it;
  * the debuggee's peak resident memory after all that (a host copy would show);
  * Locals on a frame holding a Keras model of 300 weights (and their 300 gradients),
    expanding the model, and seeing the gradients: stock expands the program's list of
    them, the plugin the model's ``∇ gradients`` table (one row per weight);
  * time to the first stop of a program without TensorFlow.

"Stock" is the same installation with the plugin switched off (TF_DEBUG_REPR_DISABLE=1):
debugpy then loads the plugin module, which registers nothing. "first" is the first
request at a stop (what a user waits for); the other request figures are medians of
``--repeat`` requests at the same stop. Every figure comes from real DAP requests to a
real ``python -m debugpy.adapter``.

    python benchmarks/debugger_overhead.py            # quick: 3 rounds, ~4 minutes
    python benchmarks/debugger_overhead.py --rounds 6 --repeat 15
    python benchmarks/debugger_overhead.py --startup-only --rounds 8
    python benchmarks/debugger_overhead.py --step-only --rounds 4 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from tf_debug_repr.hosts.demo.dap_client import DapClient, launch_config, line_of

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).parent / "programs"
SMALL = str(HERE / "small_frame.py")
BIG = str(HERE / "big_frames.py")
NO_TF = str(ROOT / "tests" / "programs" / "no_tensorflow.py")
MODEL = str(HERE / "model_300_weights.py")
STEP = str(HERE / "step_frame.py")
BUNDLE = ROOT / "vscode-ext" / "python"
RUSAGE = "__import__('resource')"

Figures = dict[str, list[float]]


class Variant:
    def __init__(self, name: str, env: dict[str, str], python: str = sys.executable) -> None:
        self.name = name
        self.env = {"TF_CPP_MIN_LOG_LEVEL": "2", **env}
        self.python = python

    def start(self, program: str, markers: list[str]) -> tuple[DapClient, dict, float]:
        """A session stopped at the first marker, and the time that took (ms)."""
        start = time.perf_counter()
        client = DapClient()
        try:
            lines = [line_of(program, marker) for marker in markers]
            config = launch_config(program, python=self.python, env=self.env)
            stop = client.start(config, {program: lines})
        except BaseException:
            client.close()
            raise
        return client, stop, (time.perf_counter() - start) * 1e3


def ms(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def first_and_rest(figures: Figures, name: str, fn, repeat: int) -> None:
    figures[f"{name} (first)"].append(ms(fn))
    figures[name].extend(ms(fn) for _ in range(repeat))


def check_loaded(client: DapClient, frame: int, variant: Variant) -> None:
    """The session runs the copy it is meant to: none, the installed one, the bundle."""
    adapter = "__import__('sys').modules.get('tf_debug_repr.hosts.pydevd.adapter')"
    where = client.evaluate(f"getattr({adapter}, '__file__', '')", frame)["result"]
    expected = {"stock": "''", "plugin": str(ROOT / "src"), "extension": str(BUNDLE / "lib")}
    if expected[variant.name] not in where:
        raise RuntimeError(f"{variant.name} session loaded {where}")


def small_frame(variant: Variant, repeat: int, figures: Figures) -> None:
    client, stop, startup = variant.start(SMALL, ["BREAKPOINT"])
    figures["first stop, TensorFlow program"].append(startup)
    try:
        thread = stop["threadId"]
        frame = client.top_frame(thread)["id"]
        check_loaded(client, frame, variant)
        # CPU seconds the debuggee used to get here: less sensitive than wall time to
        # other work on a shared machine.
        cpu = client.evaluate("__import__('time').process_time()", frame)["result"]
        figures["debuggee CPU to first stop, TF program (s)"].append(float(cpu))
        scope = client.locals_reference(frame)
        first_and_rest(figures, "Locals, small frame", lambda: client.variables(scope), repeat)
        for _ in range(repeat):
            start = time.perf_counter()
            client.request("next", {"threadId": thread})
            thread = client.wait_event("stopped")["threadId"]
            stopped = time.perf_counter()
            frames = client.request("stackTrace", {"threadId": thread, "levels": 20})
            scopes = client.request("scopes", {"frameId": frames["stackFrames"][0]["id"]})
            client.variables(scopes["scopes"][0]["variablesReference"])
            done = time.perf_counter()
            figures["step: next → stopped"].append((stopped - start) * 1e3)
            figures["after a step: stackTrace+scopes+Locals"].append((done - stopped) * 1e3)
    finally:
        client.close()


def big_frames(variant: Variant, repeat: int, figures: Figures) -> None:
    client, stop, _ = variant.start(BIG, ["BREAKPOINT sixteen", "BREAKPOINT huge"])
    try:
        scope = client.locals_reference(client.top_frame(stop["threadId"])["id"])
        first_and_rest(
            figures, "Locals, 16 × 10^6 float32", lambda: client.variables(scope), repeat
        )
        t00 = next(v for v in client.variables(scope) if v.name == "t00")
        first_and_rest(
            figures, "expand one 10^6 tensor", lambda: client.variables(t00.reference), repeat
        )
        client.resume(stop["threadId"])
        stop = client.wait_event("stopped")
        frame = client.top_frame(stop["threadId"])["id"]
        scope = client.locals_reference(frame)
        first_and_rest(figures, "Locals, 2^28 int8 tensor", lambda: client.variables(scope), repeat)
        big = next(v for v in client.variables(scope) if v.name == "big")
        first_and_rest(
            figures, "expand the 2^28 int8 tensor", lambda: client.variables(big.reference), repeat
        )
        # The tensors take ~330 MiB in both; a host copy of `big` would add 256 MiB.
        peak_kib = client.evaluate(
            f"{RUSAGE}.getrusage({RUSAGE}.RUSAGE_SELF).ru_maxrss", frame, "watch"
        )["result"]
        figures["debuggee peak RSS (MiB)"].append(int(peak_kib) / 1024)
    finally:
        client.close()


def model_frame(variant: Variant, repeat: int, figures: Figures) -> None:
    client, stop, _ = variant.start(MODEL, ["BREAKPOINT"])
    try:
        scope = client.locals_reference(client.top_frame(stop["threadId"])["id"])
        first_and_rest(
            figures,
            "Locals, frame with a 300-weight model",
            lambda: client.variables(scope),
            repeat,
        )
        rows = {v.name: v for v in client.variables(scope)}
        model = rows["model"]
        first_and_rest(
            figures,
            "expand the 300-weight model",
            lambda: client.variables(model.reference),
            repeat,
        )
        # What a user opens to see the gradients: the model's table, or under stock the
        # program's own list of them.
        table = next(
            (c for c in client.variables(model.reference) if c.name == "∇ gradients"), None
        )
        target = table if table is not None else rows["grads"]
        first_and_rest(
            figures, "see its 300 gradients", lambda: client.variables(target.reference), repeat
        )
    finally:
        client.close()


def step_frame(variant: Variant, repeat: int, figures: Figures) -> None:
    """Issue 17's frame (five tf.Variables, eleven tensors of 10^6 float32): what VS Code
    requests after a ``next`` over a line that changes one variable, and after a
    ``continue`` to the next loop iteration (eleven new tensors, five changed variables)."""
    client, stop, _ = variant.start(STEP, ["BREAKPOINT"])
    try:
        thread = stop["threadId"]

        def paint(when: str) -> None:
            start = time.perf_counter()
            frames = client.request("stackTrace", {"threadId": thread, "levels": 20})
            scopes = client.request("scopes", {"frameId": frames["stackFrames"][0]["id"]})
            asked = time.perf_counter()
            client.variables(scopes["scopes"][0]["variablesReference"])
            done = time.perf_counter()
            figures[f"step frame: {when}, Locals"].append((done - asked) * 1e3)
            figures[f"step frame: {when}, stackTrace+scopes+Locals"].append((done - start) * 1e3)

        paint("first stop")
        for _ in range(repeat):
            client.request("next", {"threadId": thread})
            thread = client.wait_event("stopped")["threadId"]
            paint("after next")
            client.resume(thread)
            thread = client.wait_event("stopped")["threadId"]
            paint("after continue")
    finally:
        client.close()


def no_tf_startup(variant: Variant, figures: Figures) -> None:
    client, _, startup = variant.start(NO_TF, ["BREAKPOINT"])
    client.close()
    figures["first stop, program without TF"].append(startup)


def extension_variant(workdir: str) -> Variant | None:
    """The extension's launch path: its bundle on PYTHONPATH, in an environment that has
    TensorFlow and debugpy but not tf-debug-repr (a venv seeing this one's site-packages
    through a .pth line, which skips the editable install's own .pth)."""
    node = shutil.which("node")
    if node is None:
        print("no node: the extension's launch path is not measured", file=sys.stderr)
        return None
    subprocess.run(
        [node, str(ROOT / "vscode-ext" / "scripts" / "bundle-python.js")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    venv = Path(workdir) / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "parent_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = subprocess.run([python, "-c", "import tf_debug_repr"], capture_output=True)
    if probe.returncode == 0:
        print("tf_debug_repr importable without the bundle: not measured", file=sys.stderr)
        return None
    return Variant("extension", {"PYTHONPATH": str(BUNDLE)}, python)


ROWS = [  # (measure, variant compared with stock)
    ("Locals, small frame (first)", "plugin"),
    ("Locals, small frame", "plugin"),
    ("after a step: stackTrace+scopes+Locals", "plugin"),
    ("step: next → stopped", "plugin"),
    ("Locals, small frame", "extension"),
    ("after a step: stackTrace+scopes+Locals", "extension"),
    ("first stop, TensorFlow program", "plugin"),
    ("first stop, TensorFlow program", "extension"),
    ("debuggee CPU to first stop, TF program (s)", "plugin"),
    ("debuggee CPU to first stop, TF program (s)", "extension"),
    ("first stop, program without TF", "plugin"),
    ("Locals, 16 × 10^6 float32 (first)", "plugin"),
    ("Locals, 16 × 10^6 float32", "plugin"),
    ("expand one 10^6 tensor (first)", "plugin"),
    ("expand one 10^6 tensor", "plugin"),
    ("Locals, 2^28 int8 tensor (first)", "plugin"),
    ("Locals, 2^28 int8 tensor", "plugin"),
    ("expand the 2^28 int8 tensor (first)", "plugin"),
    ("expand the 2^28 int8 tensor", "plugin"),
    ("debuggee peak RSS (MiB)", "plugin"),
    ("Locals, frame with a 300-weight model (first)", "plugin"),
    ("Locals, frame with a 300-weight model", "plugin"),
    ("expand the 300-weight model (first)", "plugin"),
    ("expand the 300-weight model", "plugin"),
    ("see its 300 gradients (first)", "plugin"),
    ("see its 300 gradients", "plugin"),
    ("step frame: first stop, Locals", "plugin"),
    ("step frame: after next, Locals", "plugin"),
    ("step frame: after continue, Locals", "plugin"),
    ("step frame: first stop, stackTrace+scopes+Locals", "plugin"),
    ("step frame: after next, stackTrace+scopes+Locals", "plugin"),
    ("step frame: after continue, stackTrace+scopes+Locals", "plugin"),
]


STEP_MEASURES = [m for m, _ in ROWS if m.startswith("step frame:")]
# Sessions with the summaries' time budget lifted (--unbudgeted-ms): the same frame, compared.
ROWS += [(m, "unbudgeted") for m in STEP_MEASURES]
LABELS = {"extension": ", extension's launch path", "unbudgeted": ", time budget lifted"}


def table(results: dict[str, Figures]) -> str:
    lines = [
        "| measure (medians, ms unless named) | stock | tf-debug-repr | ratio | "
        "tf-debug-repr min–max | n |",
        "|---|---|---|---|---|---|",
    ]
    for measure, variant in ROWS:
        stock, other = results["stock"].get(measure), results.get(variant, {}).get(measure)
        if not stock or not other:
            continue
        a, b = statistics.median(stock), statistics.median(other)
        label = measure + LABELS.get(variant, "")
        digits = 2 if a < 100 and "(s)" in measure else 1
        spread = f"{min(other):,.{digits}f}–{max(other):,.{digits}f}"
        lines.append(
            f"| {label} | {a:,.{digits}f} | {b:,.{digits}f} | {b / a:.2f}x | {spread} | "
            f"{len(other)} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="sessions of each kind (3)")
    parser.add_argument("--repeat", type=int, default=5, help="requests per figure per stop (5)")
    parser.add_argument("--no-big", action="store_true", help="skip the big-tensor frames")
    parser.add_argument(
        "--startup-only", action="store_true", help="only the first-stop figures (more rounds)"
    )
    parser.add_argument(
        "--model-only", action="store_true", help="only the 300-weight model's figures"
    )
    parser.add_argument(
        "--step-only", action="store_true", help="only issue 17's frame (Locals after a step)"
    )
    parser.add_argument(
        "--unbudgeted-ms",
        type=float,
        help="also run issue 17's frame with this budget (a large one: every figure exact)",
    )
    parser.add_argument(
        "--exact-ms",
        type=float,
        help="the plugin's time budget for exact figures (TF_DEBUG_REPR_EXACT_MS; its default)",
    )
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    with tempfile.TemporaryDirectory() as workdir:
        budget = {} if args.exact_ms is None else {"TF_DEBUG_REPR_EXACT_MS": str(args.exact_ms)}
        variants = [Variant("stock", {"TF_DEBUG_REPR_DISABLE": "1"}), Variant("plugin", budget)]
        extension = extension_variant(workdir)
        if extension is not None:
            variants.append(extension)
        if args.unbudgeted_ms is not None:
            lifted = {"TF_DEBUG_REPR_EXACT_MS": str(args.unbudgeted_ms)}
            variants.append(Variant("unbudgeted", lifted))
        results: dict[str, Figures] = {v.name: defaultdict(list) for v in variants}
        for round_ in range(args.rounds):
            order = variants if round_ % 2 == 0 else variants[::-1]
            if args.step_only:
                for variant in [v for v in order if v.name != "extension"]:
                    step_frame(variant, args.repeat, results[variant.name])
                print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
                continue
            order = [v for v in order if v.name != "unbudgeted"]  # issue 17's frame only
            if args.model_only:
                for variant in [v for v in order if v.name != "extension"]:
                    model_frame(variant, args.repeat, results[variant.name])
                print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
                continue
            for variant in order:
                small_frame(variant, 1 if args.startup_only else args.repeat, results[variant.name])
            for variant in [v for v in order if v.name != "extension"]:
                if not (args.no_big or args.startup_only):
                    big_frames(variant, args.repeat, results[variant.name])
                    model_frame(variant, args.repeat, results[variant.name])
                    step_frame(variant, args.repeat, results[variant.name])
                no_tf_startup(variant, results[variant.name])
            print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
