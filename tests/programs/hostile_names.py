"""Hostile names, keys and strings (issue 16): attribute names set with setattr, a dict key
whose own repr is code, a layer named with quotes, a schedule whose config keys are such
strs. Each, pasted into an expression unchecked, touches the file named by HOSTILE_MARKER."""

import os

import keras
import tensorflow as tf

MARKER = os.environ["HOSTILE_MARKER"]
CODE = f"__import__('pathlib').Path({MARKER!r}).touch()"


class Key(str):
    """A str whose text methods return code."""

    def __repr__(self):
        return f"({CODE}, {str.__str__(self)!r})[1]"

    __str__ = __format__ = lambda self, *a: repr(self)  # noqa: E731

    def isidentifier(self):
        return True


NAMES = [f"x);{CODE}#", f"x\n{CODE}\n", f"x@LINE@{CODE}@LINE@", f"x')[0];{CODE};('"]

module = tf.Module(name="hostile")
for i, name in enumerate(NAMES):
    setattr(module, name, tf.Variable([float(i)]))
vars(module)[Key("sub")] = tf.Variable([9.0])
module.by_key = {Key("k"): tf.Variable([1.0]), "it's": tf.Variable([2.0])}

layer = keras.layers.Dense(2, name="d'q\"x")
layer.build((None, 3))
for name in NAMES:
    object.__setattr__(layer, name, tf.Variable([1.0]))
# a dict attribute the plugin shows: pydevd would write the key's repr into expressions
object.__setattr__(layer, "options", {Key("o"): tf.Variable([3.0]), "plain": 1})


class Schedule(keras.optimizers.schedules.LearningRateSchedule):
    def __call__(self, step):
        return 0.1

    def get_config(self):
        return {Key("rate"): 0.1}


opt = keras.optimizers.Adam(learning_rate=Schedule())
opt.build(layer.trainable_variables)
keyed = {Key("t"): tf.zeros([100])}
big = tf.constant(b"x" * 20_000_000)
print("ready")  # BREAKPOINT
