"""The one module path written into users' expressions, besides the package's public API.

Rows' expressions end up in the Watch pane, in "Copy as Expression" and in restored viewer
panels, so the path they name must never move: they name ``tf_debug_repr._expr``
(``view_model.FACADE``), and each function here hands over to the module doing the work,
imported when called. Internal modules can then move without breaking what users hold.
"""

from __future__ import annotations

from typing import Any


def eagerly(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` outside any graph being built, on the first argument's own device
    (``guards.eagerly``)."""
    from .core import guards

    return guards.eagerly(fn, *args)


def max_difference(value: Any) -> float | None:
    """The largest |replica - first replica| of a distributed value."""
    from .views import distribute as distribute_views

    return distribute_views.max_difference(value)


def param_count(obj: Any) -> int:
    """Parameters of a Keras layer or model, or a ``tf.Module``."""
    from .views import models as model_views

    return model_views.param_count(obj)


def gradient_table(obj: Any) -> Any:
    """Every trainable weight's latest gradient of a layer, model or ``tf.Module``."""
    from .views import models as model_views

    return model_views.gradient_table(obj)


def slots_by_weight(opt: Any) -> Any:
    """A Keras optimizer's slot variables grouped by the weight they were made for."""
    from .views import optimizers as optimizer_views

    return optimizer_views.slots_by_weight(opt)


def watched_tensors(tape: Any) -> list:
    """The plain tensors given to ``tape.watch`` that are still alive."""
    from .views import tapes as tape_views

    return tape_views.watched_tensors(tape)


def last_gradients(tape: Any) -> Any:
    """What the tape's latest ``gradient`` call returned."""
    from .views import tapes as tape_views

    return tape_views.last_gradients(tape)


def private_attributes(obj: Any) -> Any:
    """An object's ``_x`` attributes, as the ``private attributes`` row shows them."""
    from .views import attributes as attribute_views

    return attribute_views.private_attributes(obj)


def host_copy(tensor: Any) -> Any:
    """The ``numpy`` row of a tensor whose values are copied only when expanded."""
    from .views import tensors as tensor_views

    return tensor_views.HostCopy(tensor)


def raised_attributes(obj: Any) -> Any:
    """An object's attributes whose read raises, as the ``raise when read (N)`` row shows them."""
    from .views import attributes as attribute_views

    return attribute_views.raised_attributes(obj)


def vocabulary_head(layer: Any) -> Any:
    """The first entries of a lookup layer's vocabulary, as plain Python values (or a line
    saying why not)."""
    from .views import preprocessing as preprocessing_views

    return preprocessing_views.vocabulary_head(layer)


def module_variables(module: Any, trainable: bool = False) -> list:
    """A ``tf.Module``'s variables and the weights of the Keras layers it holds."""
    from .views import models as model_views

    return model_views.module_variables(module, trainable)


def concrete_functions(function: Any) -> list:
    """The concrete functions a ``tf.function`` traced so far (nothing is traced)."""
    from .views import functions as function_views

    return function_views.concrete_functions(function)


def saved_variables(obj: Any) -> list:
    """Every variable an object ``tf.saved_model.load`` gave reaches."""
    from .views import saved_objects as saved_views

    return saved_views.saved_variables(obj)


def activation(layer: Any, index: int = 0, replica: int | None = None) -> Any:
    """A Keras layer's output in the last step that ran it (compiled or eager); under
    several replicas each replica's, or ``replica``'s."""
    from .views import activations as activation_views

    return activation_views.activation(layer, index, replica)


def last_step(model: Any) -> Any:
    """The batch a Keras model's last compiled train step was given."""
    from .views import activations as activation_views

    return activation_views.last_step(model)


def dataset_preview(dataset: Any) -> Any:
    """A dataset's ``preview`` row as shown: its first elements, read when expanded."""
    from .views import preview as preview_views

    return preview_views.PendingPreview(dataset)


def preview(dataset: Any, count: int = 3, force: bool = False) -> Any:
    """The first ``count`` elements of a ``tf.data.Dataset``, read from a fresh iterator."""
    from .views import preview as preview_views

    return preview_views.preview(dataset, count, force)
