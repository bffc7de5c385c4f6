"""TF's SavedModel guide and checkpoint guide, transcribed with synthetic data: a
`tf.Module` with a `tf.function` with an input signature, saved and loaded back, the
restored function called; a `tf.train.Checkpoint` and a `CheckpointManager` saving twice
into a temporary directory; a dict of dicts of tensors. Stopped at the marked line."""

import os
import tempfile

import tensorflow as tf


class CustomModule(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(1.0, name="v")

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32, name="x")])
    def __call__(self, x):
        return x * self.v

    @tf.function
    def mutate(self, new_v):
        self.v.assign(new_v)


def main():
    workdir = tempfile.mkdtemp(prefix="tfdr_saved_")
    module = CustomModule()
    module.mutate(tf.constant(2.0))
    module_path = os.path.join(workdir, "module_no_signatures")
    tf.saved_model.save(module, module_path, signatures={"serving_default": module.__call__})
    imported = tf.saved_model.load(module_path)
    restored = imported(tf.constant(3.0))
    serving = imported.signatures["serving_default"]

    net = tf.Module(name="net")
    net.kernel = tf.Variable(tf.ones([4, 2]), name="kernel")
    opt_step = tf.Variable(0, name="opt_step")
    ckpt = tf.train.Checkpoint(step=tf.Variable(1), net=net, opt_step=opt_step)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(workdir, "tf_ckpts"), max_to_keep=3)
    for _ in range(2):
        ckpt.step.assign_add(1)
        net.kernel.assign_add(tf.ones([4, 2]))
        manager.save()

    weights = {
        "dense": {"kernel": tf.ones([8, 4]) * 0.5, "bias": tf.zeros([4])},
        "head": {"kernel": tf.ones([4, 1])},
    }
    mutate = module.mutate
    print(restored.numpy(), serving, manager.latest_checkpoint, weights, mutate)  # BREAKPOINT


main()
