"""TensorFlow's "Advanced automatic differentiation" guide (tensorflow/docs,
site/en/guide/advanced_autodiff.ipynb), transcribed: ``tape.stop_recording()``, ``tape.reset()``,
``tf.stop_gradient``, the ``@tf.custom_gradient`` ``clip_gradients`` example and its
SavedModel round trip (``experimental_custom_gradients=True``), two tapes at once, nested tapes
(the second derivative of ``x**3``, input gradient regularization), ``tape.jacobian`` with a
scalar source and a tensor source (a Dense layer's kernel), the Hessian example with its
Newton step, ``tape.jacobian`` against ``tape.batch_jacobian``, and the BatchNormalization
example where ``batch_jacobian``'s result means nothing.

Replaced: the SavedModel's ``'saved_model'`` folder by one under ``tempfile.mkdtemp()``; the
cells that only show a value (``y.shape``, ``j.shape``, ``[var.shape for var in dg1_mag]``) by
``print`` of it; every plot (``plt.plot``, ``imshow_zero_center``, ``plot_as_patches``) by
printing the numbers it would draw, or their sums (``digest``: sum and sum of magnitudes) where
they are many. Compiled here (the guide runs it eagerly): the first "Batch Jacobian" cell and
the ``batch_jacobian`` call after it, as one ``@tf.function`` (``batch_jacobians``) returning
``y``, ``j`` and ``jb``; added in it one ``tape.jacobian(..., experimental_use_pfor=False)``
(the guide has no such call) compared with the ``pfor`` one. Not in the guide, so not here:
``tf.autodiff.ForwardAccumulator``. Every line of the guide's code runs as written on TF 2.21
with Keras 3 (indented by 4, not 2). Random draws seeded once
(``tf.keras.utils.set_random_seed``); none is made inside the compiled function. Stopped inside
``clip_gradients``' ``backward`` (called by the first ``t.gradient``), right after the inner
gradient of the second-derivative example, right after the scalar-source ``tape.jacobian``,
inside the compiled ``batch_jacobians`` after its jacobians, and at the program's end."""

import os
import tempfile

import numpy as np
import tensorflow as tf
from probe import module_probe, probe  # noqa: F401  (the user's objects the suite counts)

tf.keras.utils.set_random_seed(0)  # Python, numpy, TF and Keras 3 (its initializers)


def digest(name, t):
    """In place of a plot: the sum of the values and of their magnitudes."""
    a = np.asarray(t, dtype=np.float64)
    print(f"{name}: shape {a.shape} sum {a.sum():.6f} abs {np.abs(a).sum():.6f}")


# ## Controlling gradient recording
# ### Stop recording
x = tf.Variable(2.0)
y = tf.Variable(3.0)

with tf.GradientTape() as t:
    x_sq = x * x
    with t.stop_recording():
        y_sq = y * y
    z = x_sq + y_sq

grad = t.gradient(z, {"x": x, "y": y})

print("dz/dx:", grad["x"])  # 2*x => 4
print("dz/dy:", grad["y"])

# ### Reset/start recording from scratch
x = tf.Variable(2.0)
y = tf.Variable(3.0)
reset = True

with tf.GradientTape() as t:
    y_sq = y * y
    if reset:
        # Throw out all the tape recorded so far.
        t.reset()
    z = x * x + y_sq

grad = t.gradient(z, {"x": x, "y": y})

print("dz/dx:", grad["x"])  # 2*x => 4
print("dz/dy:", grad["y"])

# ## Stop gradient flow with precision
x = tf.Variable(2.0)
y = tf.Variable(3.0)

with tf.GradientTape() as t:
    y_sq = y**2
    z = x**2 + tf.stop_gradient(y_sq)

grad = t.gradient(z, {"x": x, "y": y})

print("dz/dx:", grad["x"])  # 2*x => 4
print("dz/dy:", grad["y"])


# ## Custom gradients
# Establish an identity operation, but clip during the gradient pass.
@tf.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)  # CUSTOM_BREAKPOINT

    return y, backward


v = tf.Variable(2.0)
with tf.GradientTape() as t:
    output = clip_gradients(v * v)
print(t.gradient(output, v))  # calls "backward", which clips 4 to 2


# ### Custom gradients in SavedModel
class MyModule(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, x):
        return clip_gradients(x)


model = MyModule()

saved_model = os.path.join(tempfile.mkdtemp(), "saved_model")
tf.saved_model.save(
    model, saved_model, options=tf.saved_model.SaveOptions(experimental_custom_gradients=True)
)

# The loaded gradients will be the same as the above example.
v = tf.Variable(2.0)
loaded = tf.saved_model.load(saved_model)
with tf.GradientTape() as t:
    output = loaded.call_custom_grad(v * v)
print(t.gradient(output, v))

# ## Multiple tapes
x0 = tf.constant(0.0)
x1 = tf.constant(0.0)

with tf.GradientTape() as tape0, tf.GradientTape() as tape1:
    tape0.watch(x0)
    tape1.watch(x1)

    y0 = tf.math.sin(x0)
    y1 = tf.nn.sigmoid(x1)

    y = y0 + y1

    ys = tf.reduce_sum(y)

print(tape0.gradient(ys, x0).numpy())  # cos(x) => 1.0
print(tape1.gradient(ys, x1).numpy())  # sigmoid(x1)*(1-sigmoid(x1)) => 0.25

# ### Higher-order gradients
x = tf.Variable(1.0)  # Create a Tensorflow variable initialized to 1.0

with tf.GradientTape() as t2:
    with tf.GradientTape() as t1:
        y = x * x * x

    # Compute the gradient inside the outer `t2` context manager
    # which means the gradient computation is differentiable as well.
    dy_dx = t1.gradient(y, x)
    print("dy_dx inside t2:", dy_dx.numpy())  # NESTED_BREAKPOINT
d2y_dx2 = t2.gradient(dy_dx, x)

print("dy_dx:", dy_dx.numpy())  # 3 * x**2 => 3.0
print("d2y_dx2:", d2y_dx2.numpy())  # 6 * x => 6.0

# #### Example: Input gradient regularization
x = tf.random.normal([7, 5])

layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)

with tf.GradientTape() as t2:
    # The inner tape only takes the gradient with respect to the input,
    # not the variables.
    with tf.GradientTape(watch_accessed_variables=False) as t1:
        t1.watch(x)
        y = layer(x)
        out = tf.reduce_sum(layer(x) ** 2)
    # 1. Calculate the input gradient.
    g1 = t1.gradient(out, x)
    # 2. Calculate the magnitude of the input gradient.
    g1_mag = tf.norm(g1)

# 3. Calculate the gradient of the magnitude with respect to the model.
dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)

print([var.shape for var in dg1_mag])
print("g1_mag:", g1_mag.numpy())
for var in dg1_mag:
    print(var.numpy())

# ## Jacobians
# ### Scalar source
x = tf.linspace(-10.0, 10.0, 200 + 1)
delta = tf.Variable(0.0)

with tf.GradientTape() as tape:
    y = tf.nn.sigmoid(x + delta)

dy_dx = tape.jacobian(y, delta)
print(y.shape)  # JACOBIAN_BREAKPOINT
print(dy_dx.shape)
print(dy_dx.numpy())  # in place of the plot of y and dy/dx
digest("y", y)

# ### Tensor source
x = tf.random.normal([7, 5])
layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)

with tf.GradientTape(persistent=True) as tape:
    y = layer(x)

print(y.shape)
print(layer.kernel.shape)

j = tape.jacobian(y, layer.kernel)
print(j.shape)
digest("j", j)

g = tape.gradient(y, layer.kernel)
print("g.shape:", g.shape)
print(g.numpy())

j_sum = tf.reduce_sum(j, axis=[0, 1])
delta = tf.reduce_max(abs(g - j_sum)).numpy()
assert delta < 1e-3
print("delta:", delta)

# #### Example: Hessian
x = tf.random.normal([7, 5])
layer1 = tf.keras.layers.Dense(8, activation=tf.nn.relu)
layer2 = tf.keras.layers.Dense(6, activation=tf.nn.relu)

with tf.GradientTape() as t2:
    with tf.GradientTape() as t1:
        x = layer1(x)
        x = layer2(x)
        loss = tf.reduce_mean(x**2)

    g = t1.gradient(loss, layer1.kernel)

h = t2.jacobian(g, layer1.kernel)

print(f"layer.kernel.shape: {layer1.kernel.shape}")
print(f"h.shape: {h.shape}")
digest("g", g)
digest("h", h)

n_params = tf.reduce_prod(layer1.kernel.shape)

g_vec = tf.reshape(g, [n_params, 1])
h_mat = tf.reshape(h, [n_params, n_params])

# The Hessian matrix should be symmetric (in place of imshow_zero_center(h_mat)):
print("h_mat asymmetry:", tf.reduce_max(abs(h_mat - tf.transpose(h_mat))).numpy())

eps = 1e-3
eye_eps = tf.eye(h_mat.shape[0]) * eps

# X(k+1) = X(k) - (∇²f(X(k)))^-1 @ ∇f(X(k))
# h_mat = ∇²f(X(k))
# g_vec = ∇f(X(k))
update = tf.linalg.solve(h_mat + eye_eps, g_vec)

# Reshape the update and apply it to the variable.
_ = layer1.kernel.assign_sub(tf.reshape(update, layer1.kernel.shape))
digest("update", update)
digest("layer1.kernel", layer1.kernel)

# ### Batch Jacobian
x = tf.random.normal([7, 5])

layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)


@tf.function
def batch_jacobians(x):
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = layer2(y)

    j = tape.jacobian(y, x)
    j_loop = tape.jacobian(y, x, experimental_use_pfor=False)
    jb = tape.batch_jacobian(y, x)
    pfor_vs_loop = tf.reduce_max(abs(j - j_loop))  # COMPILED_BREAKPOINT
    return y, j, jb, pfor_vs_loop


y, j, jb, pfor_vs_loop = batch_jacobians(x)
print(y.shape)
print(j.shape)
print("pfor against the loop:", pfor_vs_loop.numpy())
# in place of imshow_zero_center(j[:, 0, :, 0]) and plot_as_patches(j):
print(j[:, 0, :, 0].numpy())
digest("j", j)

j_sum = tf.reduce_sum(j, axis=2)
print(j_sum.shape)
j_select = tf.einsum("bxby->bxy", j)
print(j_select.shape)

print(jb.shape)
digest("jb", jb)

error = tf.reduce_max(abs(jb - j_sum))
assert error < 1e-3
print(error.numpy())

x = tf.random.normal([7, 5])

layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
bn = tf.keras.layers.BatchNormalization()
layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)

with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
    tape.watch(x)
    y = layer1(x)
    y = bn(y, training=True)
    y = layer2(y)

j = tape.jacobian(y, x)
print(f"j.shape: {j.shape}")
digest("j", j)  # in place of plot_as_patches(j): these slices are not diagonal

jb = tape.batch_jacobian(y, x)
print(f"jb.shape: {jb.shape}")
digest("jb", jb)
print("done")  # END_BREAKPOINT
