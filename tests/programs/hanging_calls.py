"""Values whose showing calls code that never returns (issue 16 items 8 and 11): a variable
on a remote worker that has died, a metric whose result() hangs, a schedule whose __call__
hangs, a model whose overridden ``layers`` property hangs, a list holding an object whose
__repr__ hangs. The hanging code holds a breakpoint of its own (its line is marked): the
debugger's reads must never stop there."""

import os
import socket
import subprocess
import sys
import threading
import time

import keras
import tensorflow as tf

NEVER = threading.Event()


def hang():
    NEVER.wait(600)  # HANG_BREAKPOINT
    return 0.0


class SlowMean(keras.metrics.Mean):
    def result(self):
        hang()
        return super().result()


class SlowSchedule(keras.optimizers.schedules.LearningRateSchedule):
    def __call__(self, step):
        return hang()

    def get_config(self):
        return {}


class SlowModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(2)

    @property
    def layers(self):
        hang()
        return [self.dense]

    def call(self, x):
        return self.dense(x)


class Loud:
    def __repr__(self):
        return str(hang())


def dead_remote_variable():
    """A variable created on a worker of a cluster, the worker then killed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    address = f"127.0.0.1:{port}"
    server = (
        "import tensorflow as tf; tf.distribute.Server(tf.train.ClusterSpec("
        f"{{'worker': [{address!r}]}}), job_name='worker', task_index=0).join()"
    )
    worker = subprocess.Popen([sys.executable, "-c", server], env={**os.environ})
    deadline = time.monotonic() + 60
    while True:  # until the server listens
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    tf.config.experimental_connect_to_cluster(tf.train.ClusterSpec({"worker": [address]}))
    with tf.device("/job:worker/replica:0/task:0/device:CPU:0"):
        variable = tf.Variable([1.0, 2.0, 3.0], name="remote")
    variable.numpy()  # it was there
    worker.kill()
    worker.wait()
    return variable


metric = SlowMean(name="slow")
metric.update_state(2.0)
optimizer = keras.optimizers.SGD(learning_rate=SlowSchedule())
model = SlowModel()
model(tf.zeros([1, 3]))
mixed = [tf.zeros([2]), Loud()]
remote = dead_remote_variable()
print("ready")  # READY_BREAKPOINT
print("went on")  # END_BREAKPOINT
