"""Objects users hold whose parts sit in attributes: a subclassed model with sublayers under
names of the program's own (not the layers' names), a Keras layer holding layers in a list and
a dict, a functional model (its layers in Keras's list only), a ``tf.Module`` with submodules
as attributes, in a list and in a dict, a layer whose weight an attribute holds under another
name, a traced and a restored function and their concrete functions, a loaded SavedModel
object, a checkpoint and its manager. Stopped at the end, where all of them are locals, and
where some are reached through others first (``wrapper.body`` is ``functional``)."""

import os
import tempfile

import keras
import tensorflow as tf

tf.keras.utils.set_random_seed(0)


class Block(keras.layers.Layer):
    """Sublayers in a list and a dict, and one under a name unlike its layer's."""

    def __init__(self):
        super().__init__()
        self.stack = [keras.layers.Dense(4), keras.layers.Dense(4)]
        self.heads = {"left": keras.layers.Dense(2), "right": keras.layers.Dense(2)}
        self.norm_layer = keras.layers.LayerNormalization()

    def call(self, x):
        for layer in self.stack:
            x = layer(x)
        x = self.norm_layer(x)
        return self.heads["left"](x) + self.heads["right"](x)


class Scaled(keras.layers.Layer):
    """A weight held by an attribute named otherwise than the weight."""

    def build(self, input_shape):
        self.gain_vector = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="g")

    def call(self, x):
        return x * self.gain_vector


inputs = keras.Input((3,))
functional = keras.Model(inputs, keras.layers.Dense(2, name="out")(keras.layers.Dense(4)(inputs)))


class Wrapper(keras.Model):
    """A subclassed model: a functional model, a block and a head under its own names."""

    def __init__(self):
        super().__init__()
        self.body = functional
        self.block = Block()
        self.final_layer = keras.layers.Dense(1)
        self.scale = Scaled()

    def call(self, x):
        return self.final_layer(self.scale(self.block(self.body(x))))


wrapper = Wrapper()
print(wrapper(tf.ones((2, 3))).shape)


class Tower(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(tf.ones((3, 2)), name="w")

    def __call__(self, x):
        return x @ self.w


class Net(tf.Module):
    """Submodules as an attribute, in a list and in a dict; variables in a list."""

    def __init__(self):
        super().__init__()
        self.first = Tower()
        self.towers = [Tower(), Tower()]
        self.by_name = {"a": Tower()}
        self.bias = tf.Variable(0.5, name="bias")
        # variables in a list attribute: TF's ListWrapper, shown as a list of variables
        self.scales = [
            tf.Variable(tf.fill([2, 2], 0.5), name="s0"),
            tf.Variable(tf.ones(3), name="s1"),
            tf.Variable(2.0, name="s2"),
        ]

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def __call__(self, x):
        return self.first(x) + self.towers[0](x) + self.bias

    @tf.function
    def plain(self, x):
        return x + self.bias


net = Net()
print(net(tf.ones((1, 3))).numpy().tolist())
print(net.plain(tf.ones(2)).numpy().tolist())
traced = net.__call__.get_concrete_function()
folder = os.path.join(tempfile.mkdtemp(), "net")
tf.saved_model.save(net, folder)
loaded = tf.saved_model.load(folder)
signature = loaded.signatures["serving_default"]
checkpoint = tf.train.Checkpoint(net=net, model=wrapper)
manager = tf.train.CheckpointManager(checkpoint, tempfile.mkdtemp(), max_to_keep=2)
manager.save()
print("done")  # BREAKPOINT
