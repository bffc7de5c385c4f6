"""The benchmark's debuggee for issue 27's three other models (``BENCH_MODEL``):

- ``resnet`` and ``transformer``: as ``session_builders.py`` builds them (shared with
  ``step_ab.py``): a ResNet-50 on 64x64 inputs, batch 8; a two-block transformer, batch 16;
- ``distribute``: a Keras MLP under ``MirroredStrategy`` over 2 logical CPUs, its step
  ``strategy.run`` in a ``tf.function``; ``per_replica_loss`` and the Watch's ten tensors are
  per-replica values, the weights mirrored variables.

Each: synthetic data, Adam, a compiled ``@tf.function`` train step, a breakpoint in the
Python loop after each step (its marker comment). In the stop's frame: ``model``, ``layer`` (a
layer with weights), ``weight`` (one of its variables), ``optimizer``, ``t0``..``t9``. Each
step is timed here (the step's call and reading its loss) and the times are printed as
``STEP_MS [...]`` at the end; ``never_called`` holds a line for a breakpoint never hit."""

import json
import os
import time

import keras
import session_builders  # beside this file: the models step_ab.py times too
import tensorflow as tf

MODEL = os.environ.get("BENCH_MODEL", "resnet")
STEPS = int(os.environ.get("BENCH_STEPS", "7"))
if MODEL == "distribute":
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
keras.utils.set_random_seed(0)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def never_called() -> None:
    return None  # NEVER: a breakpoint that is never hit


if MODEL == "resnet":
    model, x, y = session_builders.build(MODEL)
    layer = model.get_layer("conv2_block1_1_conv")
elif MODEL == "transformer":
    model, x, y = session_builders.build(MODEL)
    layer = next(lay for lay in model.layers if isinstance(lay, keras.layers.MultiHeadAttention))
elif MODEL == "distribute":
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        layers = [keras.layers.Dense(512, activation="relu") for _ in range(6)]
        model = keras.Sequential([keras.Input((256,)), *layers, keras.layers.Dense(10)])
    x = tf.random.stateless_normal([64, 256], seed=[1, 2])
    y = tf.random.stateless_uniform([64], seed=[3, 4], maxval=10, dtype=tf.int32)
    layer = layers[0]
else:
    raise SystemExit(f"BENCH_MODEL={MODEL!r}: resnet, transformer or distribute")
weight = layer.trainable_weights[0]

if MODEL == "distribute":
    with strategy.scope():
        optimizer = keras.optimizers.Adam(1e-3)
        optimizer.build(model.trainable_variables)  # its slots mirrored, before the trace
    batch = next(
        iter(strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensors((x, y))))
    )

    def replica_step(features: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = loss_fn(labels, model(features, training=True)) / strategy.num_replicas_in_sync
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    @tf.function
    def train_step(data: tuple) -> tuple:
        per_replica = strategy.run(replica_step, args=data)
        return per_replica, strategy.reduce("SUM", per_replica, axis=None)

    t0, t1, t2, t3, t4, t5, t6, t7, t8, t9 = (
        strategy.experimental_distribute_values_from_function(
            lambda context, i=i: tf.fill([64], float(i + context.replica_id_in_sync_group))
        )
        for i in range(10)
    )
else:
    optimizer = keras.optimizers.Adam(1e-3)

    @tf.function
    def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    t0, t1, t2, t3, t4, t5, t6, t7, t8, t9 = (tf.fill([64], float(i)) for i in range(10))

step_ms: list[float] = []
for step in range(STEPS):
    start = time.perf_counter()
    if MODEL == "distribute":
        per_replica_loss, loss = train_step(batch)
    else:
        loss = train_step(x, y)
    value = float(loss)
    step_ms.append((time.perf_counter() - start) * 1e3)
    print("step", step, value)  # BREAKPOINT
print("STEP_MS", json.dumps(step_ms))
done = True  # END
