"""The unit tests' checks that need TensorFlow in a fresh process with two logical CPUs, run
once as one program (each check used to start its own interpreter and import TF: ~10 s each).

Run as a script by the ``two_cpus`` fixture (tests/unit/conftest.py); prints one JSON line,
``{check: result}``, a failed check's result being ``{"error": "..."}`` so the others still
answer. Order matters: ``memory()`` runs first, before TF's runtime starts, then the program
configures its devices, as a program stopped before its device set-up would.
"""

import json
import traceback

import tensorflow as tf

import tf_debug_repr

results: dict[str, object] = {}


def check(name):
    def run(fn):
        try:
            results[name] = fn()
        except Exception:  # one failed check is that check's answer, not the program's
            results[name] = {"error": traceback.format_exc()[-2000:]}
        return fn

    return run


@check("memory_before_the_runtime_starts")
def _():
    # Evaluated as the Watch pane would, before the devices are configured: this raised
    # ("cannot be modified after being initialized") when memory() listed logical devices.
    text = tf_debug_repr.memory().console_text()
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    return {
        "host_in_report": "host" in text,
        "logical_cpus": len(tf.config.list_logical_devices("CPU")),
    }


@check("memory_of_a_mirrored_variable")
def _():
    with tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]).scope():
        w = tf.Variable(tf.zeros([100, 10]))
    found = tf_debug_repr.memory().found
    del w
    return [[f.expression, f.nbytes, f.device] for f in found]


@check("elements_on_another_device")
def _():
    from tf_debug_repr import views

    with tf.device("/cpu:1"):
        far = tf.reshape(tf.range(3 * 250 * 2, dtype=tf.float32), [3, 250, 2])
    near = tf.reshape(tf.range(6, dtype=tf.float32), [3, 2])
    frame = {"far": far, "near": near}

    def code(child, parent):
        e = child.expression
        return e(parent) if callable(e) else parent + e

    def elements(value):
        return [c for c in views.children(value) if c.name.startswith("[")]

    found = {"near": [code(c, "near") for c in elements(near)], "far": []}
    for child in elements(far)[:2]:  # [0], [1]: rows of 250 x 2, their rows in ranges
        text = code(child, "far")
        got, shown = eval(text, frame), child.resolve()
        ranges = elements(shown)
        inner = elements(ranges[1].resolve())[3]  # [103]: one row of 2, sliced on CPU:1
        inner_text = code(inner, code(ranges[1], text))
        deepest = elements(inner.resolve())[1]  # [103][1]: a float
        found["far"].append(
            [
                text,
                got.device,
                shown.device,
                inner_text,
                eval(inner_text, frame).device,
                inner.resolve().device,
                float(eval(code(deepest, inner_text), frame)),
                float(deepest.resolve()),
            ]
        )
    return found


@check("sync_on_read_in_a_replica_context")
def _():
    from tf_debug_repr.viewer import payload as vp

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        s = tf.Variable(
            [1.0, 2.0],
            synchronization=tf.VariableSynchronization.ON_READ,
            aggregation=tf.VariableAggregation.SUM,
        )
    inside = []

    def step():  # the public call (AutoGraph calls it as written; it converts vp.build)
        inside.append(vp.decode(repr(tf_debug_repr.view_payload(s))))
        return tf.constant(0.0)

    strategy.run(tf.function(step))
    outside = vp.build(s)
    return [
        inside[0]["summary"],
        inside[0]["stats"]["max"],
        outside["summary"],
        outside["stats"]["max"],
    ]


@check("replica_sum_of_a_shadow")
def _():
    """A per-replica SUM variable (a replicated step's gradient shadow) read by the
    capture's direct path against TF's aggregated read: bit for bit, and the strategy's
    reduce path not taken (no Identity op)."""
    from tensorflow.python.eager import context as eager_context

    from tf_debug_repr.gradients import compiled

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        v = tf.Variable(
            tf.zeros([300, 200]),
            synchronization=tf.VariableSynchronization.ON_READ,
            aggregation=tf.VariableAggregation.SUM,
        )

    def write():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        v.assign(tf.random.stateless_normal([300, 200], seed=[rid, 7]) * 1e3)

    strategy.run(tf.function(write))
    ran = []
    from tensorflow.python.framework import op_callbacks

    def note(op_type, *args, **kwargs):
        ran.append(op_type)

    op_callbacks.add_op_callback(note)
    try:
        direct = compiled._snapshot(v)
    finally:
        op_callbacks.remove_op_callback(note)
    aggregated = tf.identity(v)
    halves = [c.numpy() for c in v.values]
    assert eager_context.executing_eagerly()
    return [
        bool((direct.numpy() == aggregated.numpy()).all()),
        bool((direct.numpy() == halves[0] + halves[1]).all()),
        bool((halves[0] != halves[1]).any()),
        sorted(set(ran)),
    ]


@check("replica_estimate_of_a_shadow")
def _():
    """A replicated step's gradient norm as a model's global norm reads it: from the
    replicas' values added at the ring's sampled elements (all of a small gradient), with
    no op but one read per replica, against a numpy recompute from TF's aggregated read."""
    import math

    import numpy as np

    from tf_debug_repr.gradients import compiled

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    found = {}
    for shape in ([100, 30], [512, 512]):
        with strategy.scope():
            v = tf.Variable(
                tf.zeros(shape),
                synchronization=tf.VariableSynchronization.ON_READ,
                aggregation=tf.VariableAggregation.SUM,
            )

        def write(v=v, shape=shape):
            rid = tf.distribute.get_replica_context().replica_id_in_sync_group
            v.assign(tf.random.stateless_normal(shape, seed=[rid, 3]) * 1e2)

        strategy.run(tf.function(write))
        summed = tf.identity(v).numpy().astype(np.float64).reshape(-1)
        shadow = compiled._Shadow(v, None, None, 0)
        ran = []
        from tensorflow.python.framework import op_callbacks

        def note(op_type, *args, ran=ran, **kwargs):
            ran.append(op_type)

        op_callbacks.add_op_callback(note)
        try:
            norm, sampled = compiled._replica_estimate(shadow, shape)
        finally:
            op_callbacks.remove_op_callback(note)
        step = compiled.sample_step(shape)
        blocks = compiled.SAMPLE // compiled.BLOCK
        picked = (
            summed[: blocks * step].reshape(blocks, step)[:, : compiled.BLOCK] if step else summed
        )
        want = math.sqrt(float(np.sum(picked**2)) * (summed.size / compiled.SAMPLE if step else 1))
        found[str(shape)] = {
            "sampled": sampled,
            "relative_to_the_sample": abs(norm - want) / want,
            "relative_to_the_exact": abs(norm - float(np.linalg.norm(summed))) / want,
            "ops": sorted(set(ran)),
        }
    return found


print(json.dumps(results))
