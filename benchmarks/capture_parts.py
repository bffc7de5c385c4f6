"""Where a compiled step's extra time under the plugin goes (issues 27 and 28): one process,
no debugger, the same training step traced once per side with a part of the capture on,
all sides called in turn every round (the order reversed every other round), so that the
machine's load hits them alike.

Sides (``--sides``, comma-separated):

- ``off``, ``off2``: capture off (``off2`` is an A/A copy: the method's own noise);
- ``gradients``: gradient capture only (``gradients/compiled.py``: norms, samples, the
  values' shadows within ``TF_DEBUG_REPR_GRADIENT_BUDGET_MB``);
- ``norms``: gradient capture with a budget of 0 (norms and samples, no values held);
- ``norms-padded``: the same with the samples kept as before 2026-12-07 (``padded_samples``:
  each padded to ``SAMPLE`` floats and stacked), for a before/after in one run;
- ``outputs``: layer-output capture only (``gradients/activations.py``, ``→ output``);
- ``outputs-ops``: the same ops and shadow inputs, each assign given an empty tensor
  instead of the output (what the ops cost without any buffer held to the next step);
- ``both``: as the plugin traces a step with a client attached;
- ``gradients-values``, ``both-values``: the same with every ``Conv2D`` kernel's gradient
  kept as its values, as before 2026-12-07 (now its ``Conv2DBackpropFilter``'s inputs where
  they are the smaller), for a before/after in one run.

Per round, each side's CPU time (the process's, all TF threads) over ``off``'s; printed:
per side the median step (ms), the median ratio with its interquartile range, the ops
the capture added to the graph, the bytes its shadows hold (layer outputs, gradients),
the median minor page faults and system CPU of a step. ``--threads 1`` runs TF on
one thread (its CPU time is then the work itself, without the pool's spinning under
load). ``--part held``: the mechanism alone, a chain of elementwise ops on 512 KiB
tensors with each result assigned to a variable of its own (held to the next call)
or not. ``--part conv``: every ``Conv2D`` kernel's gradient of the step computed again from
its ``Conv2DBackpropFilter``'s inputs (a stop's work for a kernel kept as those), compared
bit for bit.

    .venv/bin/python benchmarks/capture_parts.py --model transformer --rounds 300
    .venv/bin/python benchmarks/capture_parts.py --model resnet --rounds 40 --sides off,off2,gradients,outputs,both
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

SIDES = "off,outputs,outputs-ops,off2,gradients,norms,norms-padded,both"


def quartiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 4], statistics.median(ordered), ordered[(3 * n) // 4]


def padded_samples(tf: Any, site: Any, rows: list[int], samples: list) -> None:
    """``compiled._keep_samples`` before 2026-12-07: every sample padded to ``SAMPLE`` floats,
    the rows stacked (timed only: its layout is not the one a stop now reads)."""
    from tf_debug_repr.gradients import compiled

    if getattr(site, "padded", None) is None:
        with tf.init_scope():
            site.padded = (
                compiled._variable(
                    tf, False, tf.zeros([len(rows), compiled.SAMPLE]), trainable=False
                ),
                compiled._variable(tf, False, tf.zeros([len(rows)], tf.int64), trainable=False),
            )
    flats = [tf.reshape(sample, [-1])[: compiled.SAMPLE] for sample in samples]
    site.padded[1].assign(tf.stack([tf.size(flat, out_type=tf.int64) for flat in flats]))
    site.padded[0].assign(
        tf.stack([tf.pad(flat, [[0, compiled.SAMPLE - tf.size(flat)]]) for flat in flats])
    )


@contextlib.contextmanager
def side(name: str, seen: list) -> Iterator[None]:
    """The capture switches as ``name`` wants them while its step is traced; ``seen``
    gets the layer-output shadows its trace wrote."""
    from tf_debug_repr.gradients import activations, capture, compiled

    # A traced tape's site and its shadows are keyed by where ``tape.gradient`` is called (the
    # same line for every side): ``norms`` gets empty tables, so that its budget decides.
    tables = compiled._tape_sites, compiled._shadows, compiled._shadow_bytes
    keep_samples = compiled._keep_samples
    conv_factors = compiled._conv_factors_of
    was = (
        capture._enabled,
        activations._on,
        activations._allowed,
        activations._keep,
        capture._budget_bytes,
    )
    keep = activations._keep

    def empty(tf: Any, step: Any, shadow: Any, tensor: Any, in_body: bool = False) -> None:
        shadow.values.assign(tf.zeros([0], tensor.dtype))

    def recorded(tf: Any, step: Any, shadow: Any, tensor: Any, in_body: bool = False) -> None:
        seen.append(shadow)
        (empty if name == "outputs-ops" else keep)(tf, step, shadow, tensor, in_body)

    if name.endswith("-values"):  # as before 2026-12-07: a conv kernel's gradient kept whole
        compiled._conv_factors_of = lambda grad: None
        compiled._tape_sites, compiled._shadows, compiled._shadow_bytes = {}, {}, 0
        name = name[: -len("-values")]
    try:
        if name.startswith("off"):
            capture._enabled, activations._on = False, False
        elif name in ("gradients", "norms", "norms-padded"):
            activations._on = False
            if name == "norms-padded":
                compiled._keep_samples = padded_samples
            if name.startswith("norms"):
                capture.set_budget_mb(0)
                compiled._tape_sites, compiled._shadows, compiled._shadow_bytes = {}, {}, 0
        elif name in ("outputs", "outputs-ops"):
            capture._enabled = False  # gradient capture off; layer outputs allowed anyway
            activations._allowed = lambda: True
        elif name != "both":
            raise SystemExit(f"unknown side {name!r}")
        activations._keep = recorded
        yield
    finally:
        capture._enabled, activations._on, activations._allowed, activations._keep = was[:4]
        capture._budget_bytes = was[4]
        compiled._tape_sites, compiled._shadows, compiled._shadow_bytes = tables
        compiled._keep_samples = keep_samples
        compiled._conv_factors_of = conv_factors


def held_mib(shadows: list) -> float:
    total = 0
    for shadow in {id(s): s for s in shadows}.values():
        with contextlib.suppress(Exception):
            total += int(math.prod(shadow.values.value().shape)) * shadow.dtype.size
    return total / (1 << 20)


def gradients_mib() -> float:
    """Bytes the gradient shadows hold now: values, indices, a product's factors."""
    from tf_debug_repr.gradients import compiled

    total = 0
    for shadow in list(compiled._shadows.values()):
        parts = [shadow.values, shadow.indices, *(shadow.factors or ())]
        for variable in parts:
            if variable is not None:
                with contextlib.suppress(Exception):
                    shape = tf_shape(variable)
                    total += int(math.prod(shape)) * variable.dtype.size
    return total / (1 << 20)


def tf_shape(variable: Any) -> list[int]:
    from tensorflow.python.ops import gen_resource_variable_ops

    return [int(d) for d in gen_resource_variable_ops.variable_shape(variable.handle).numpy()]


def steps(args: argparse.Namespace) -> dict:
    import keras
    import tensorflow as tf

    if args.threads:
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    from tf_debug_repr.gradients import capture

    capture.set_enabled(True)  # the hooks installed, as with a client attached
    keras.utils.set_random_seed(0)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    # the step benchmarks' own models and batches (programs/session_builders.py)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs"))
    import session_builders

    model, x, y = session_builders.build(args.model)
    optimizer = keras.optimizers.Adam(1e-3)

    def body(x: Any, y: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    names = args.sides.split(",")
    functions: dict[str, Callable[..., Any]] = {}
    ops: dict[str, int] = {}
    seen: dict[str, list] = {}
    gradients_held: dict[str, float] = {}
    for name in names:
        seen[name] = []
        with side(name, seen[name]):
            function = tf.function(body)
            for _ in range(3):
                float(function(x, y))
            gradients_held[name] = (
                gradients_mib() if name.startswith(("gradients", "norms", "both")) else 0.0
            )
        functions[name] = function
        graph = function.get_concrete_function(x, y).graph
        ops[name] = len(graph.get_operations())
    cpu: dict[str, list[float]] = {n: [] for n in names}
    ratios: dict[str, list[float]] = {n: [] for n in names}
    faults: dict[str, list[int]] = {n: [] for n in names}
    system: dict[str, list[float]] = {n: [] for n in names}
    load = [os.getloadavg()[0]]
    for round_ in range(args.rounds):
        got = {}
        for name in names if round_ % 2 == 0 else names[::-1]:
            before = resource.getrusage(resource.RUSAGE_SELF)
            start = time.process_time()
            float(functions[name](x, y))
            got[name] = (time.process_time() - start) * 1e3
            after = resource.getrusage(resource.RUSAGE_SELF)
            faults[name].append(after.ru_minflt - before.ru_minflt)
            system[name].append((after.ru_stime - before.ru_stime) * 1e3)
            cpu[name].append(got[name])
        for name in names:
            ratios[name].append(got[name] / got[names[0]])
    load.append(os.getloadavg()[0])
    return {
        "model": args.model,
        "threads": args.threads or "default",
        "rounds": args.rounds,
        "load": [round(v, 1) for v in load],
        "sides": {
            name: {
                "cpu_ms": round(statistics.median(cpu[name]), 2),
                "ratio_q1_median_q3": [round(v, 3) for v in quartiles(ratios[name])],
                "ops_added": ops[name] - ops[names[0]],
                "minor_faults": round(statistics.median(faults[name])),
                "system_cpu_ms": round(statistics.median(system[name]), 2),
                "held_outputs_mib": round(held_mib(seen[name]), 2),
                "held_gradients_mib": round(gradients_held[name], 2),
            }
            for name in names
        },
    }


def held(args: argparse.Namespace) -> dict:
    """The mechanism: ``count`` chained adds on a 512 KiB tensor, each result assigned to a
    variable (the buffer held to the next call: every add writes a fresh one) or not (each
    add may write in place, into its input's buffer, which stays in cache)."""
    import tensorflow as tf
    from tensorflow.python.ops import resource_variable_ops

    if args.threads:
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    x = tf.ones([16, 64, 128])  # a transformer layer's output: 512 KiB
    count = 60

    def make(kind: str) -> Any:
        shadows = [
            resource_variable_ops.ResourceVariable(
                tf.zeros([0]), shape=tf.TensorShape(None), trainable=False
            )
            for _ in range(count)
        ]

        @tf.function
        def chain(x: Any) -> Any:
            y = x * 2.0
            for i, shadow in enumerate(shadows):
                y = y + float(i)
                if kind == "held":
                    shadow.assign(y)
                elif kind == "ops only":
                    shadow.assign(tf.zeros([0]))
            return tf.reduce_sum(y)

        float(chain(x))
        return chain

    kinds = ["not held", "held", "ops only"]
    functions = {kind: make(kind) for kind in kinds}
    cpu: dict[str, list[float]] = {k: [] for k in kinds}
    for round_ in range(args.rounds):
        for kind in kinds if round_ % 2 == 0 else kinds[::-1]:
            start = time.process_time()
            float(functions[kind](x))
            cpu[kind].append((time.process_time() - start) * 1e3)
    return {
        "part": "held",
        "count": count,
        "tensor_kib": 512,
        "threads": args.threads or "default",
        "rounds": args.rounds,
        "load": round(os.getloadavg()[0], 1),
        "cpu_ms": {k: round(statistics.median(v), 3) for k, v in cpu.items()},
    }


def conv(args: argparse.Namespace) -> dict:
    """Every ``Conv2D`` kernel gradient of the model's step, computed again eagerly by
    ``Conv2DBackpropFilter`` from the step's own input and output gradient (what a stop does
    with a kernel kept as those): how many are bit-equal to the step's, and how many such
    factors hold fewer elements than their kernel."""
    import keras
    import numpy as np
    import tensorflow as tf

    keras.utils.set_random_seed(0)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs"))
    import session_builders

    model, x, y = session_builders.build(args.model)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    names = ("strides", "padding", "explicit_paddings", "dilations", "data_format")
    attrs: list[dict] = []

    @tf.function
    def step(x: Any, y: Any) -> Any:
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        attrs.clear()
        found = []
        for grad in grads:
            if grad.op.type == "Conv2DBackpropFilter":
                attrs.append({name: grad.op.get_attr(name) for name in names})
                found.append((grad, *grad.op.inputs))
        return found

    equal = smaller = 0
    found = step(x, y)
    for named, (grad, a, sizes, b) in zip(attrs, found, strict=True):
        again = tf.raw_ops.Conv2DBackpropFilter(
            input=a, filter_sizes=sizes, out_backprop=b, **named
        )
        equal += int(np.array_equal(grad.numpy(), again.numpy()))
        smaller += int(int(tf.size(a)) + int(tf.size(b)) < int(tf.size(grad)))
    return {"model": args.model, "kernels": len(found), "bit_equal": equal, "smaller": smaller}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="transformer", choices=["transformer", "resnet"])
    parser.add_argument("--part", default="steps", choices=["steps", "held", "conv"])
    parser.add_argument("--sides", default=SIDES)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    parts = {"steps": steps, "held": held, "conv": conv}
    result = parts[args.part](args)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
