"""tf-debug-repr: TensorFlow values presented properly in VS Code's Python debugger.

Installing the package is all it takes: debugpy loads the plugin by itself. This
module stays import-light (no TensorFlow, no pydevd) so importing it costs nothing;
the functions below import what they need when called.
"""

from typing import Any

from .core import wiring as _wiring  # imports nothing

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "change_since_last_stop",
    "gradient_info",
    "gradient_of",
    "history",
    "inline_values",
    "last_step",
    "layer_output",
    "memory",
    "numerics_stop",
    "preview",
    "report",
    "save_npy",
    "view_history_compare",
    "set_gradient_capture",
    "view_payload",
]


def _install_catalog() -> dict[Any, Any]:
    """The table of kinds, filled at the first question asked of the views."""
    from . import catalog

    return catalog.install()


_wiring.set_catalog_installer(_install_catalog)


def set_gradient_capture(on: bool) -> None:
    """Turn gradient capture on or off at run time (``TF_DEBUG_REPR_GRADIENTS=0`` starts
    with it off). Turning it off keeps what was recorded; nothing new is recorded."""
    from .gradients import capture as gradient_capture

    gradient_capture.set_enabled(on)


def gradient_of(source):
    """The latest gradient recorded for a variable or watched tensor, or None."""
    from .views import gradients as gradient_views

    return gradient_views.gradient_of(source)


def gradient_info(source):
    """The latest gradient of ``source`` with its step, norm, history (or why it is None)."""
    from .views import gradients as gradient_views

    return gradient_views.gradient_info(source)


def layer_output(layer, index=0):
    """(Not ``activation``: that name is the plugin's start-up package.) A Keras layer's output in the last step that ran it: kept by compiled steps (and
    eager calls) while a debugger client is attached, within ``TF_DEBUG_REPR_ACTIVATIONS_MB``."""
    from .views import activations as activation_views

    return activation_views.activation(layer, index)


def last_step(model):
    """The batch (inputs, targets, sample weights) a Keras model's last compiled train
    step was given, after Keras's data adapter."""
    from .views import activations as activation_views

    return activation_views.last_step(model)


def preview(dataset, count=3, force=False):
    """The first ``count`` elements of a ``tf.data.Dataset``, read from a fresh iterator of
    it (never the program's own), bounded in time and memory. A pipeline whose fresh
    iterator would change the program's state (a reshuffling shuffle advances its seed,
    ``from_generator`` and ``py_function`` run the program's Python) is not read unless
    ``force=True``."""
    from .views import preview as preview_views

    return preview_views.preview(dataset, count, force)


def memory(model=None):
    """Where memory went, for the frame this is evaluated in (Watch pane, Debug Console,
    or the program itself): device memory in use and peak, the largest tensors and
    variables reachable from the frame with their bytes and share, and each Keras
    model's parameter and optimizer bytes. ``memory(model)``: that model's bytes only.
    Reads sizes from shapes: runs no TF op, copies nothing."""
    from .forensics import memory as memory_report

    if model is not None:
        return memory_report.model_bytes(model)
    frame = memory_report.caller_frame()
    try:
        return memory_report.report(frame)
    finally:
        del frame


def report(source=None, format: str = "markdown", limit: int = 60_000) -> str:  # noqa: A002
    """The TF values of the frame this is evaluated in (Debug Console, Watch, a notebook
    cell, the program itself) as a Markdown report to paste: each value's summary, shape,
    dtype, device, NaN/Inf and the first bad index, gradients and their norms, what changed
    since the last stop, each Keras model's layers with parameter counts. ``source``: a
    frame, a dict of names (``locals()``) or one value instead. ``format="json"`` for
    tools. At most ``limit`` characters; what was left out is said. Debuggee text is
    escaped, never markup. Changes nothing in the program."""
    from .hosts import report as state_report

    if source is not None:
        return state_report.report(source, format=format, limit=limit)
    frame = state_report.caller_frame()
    try:
        return state_report.report(frame, format=format, limit=limit)
    finally:
        del frame


def inline_values(names: str) -> str:
    """The editor's inline values: ``names`` a JSON list of plain names; returns JSON of the
    short form (the summary line's first 80 characters) of each TF value among them in the
    frame this is evaluated in (Call Stack selection, else the caller). Names are looked up,
    never evaluated."""
    from .hosts import inline
    from .hosts import report as state_report

    frame = state_report.caller_frame()
    try:
        return inline.inline_values(frame, names)
    finally:
        del frame


def numerics_stop():
    """The ``NumericsError`` of the latest ``TF_DEBUG_REPR_CHECK_NUMERICS`` stop while it
    lives (None before one): ``.inputs`` and ``.output`` are the op's tensors, ``.op_type``,
    ``.device``, ``.nan``, ``.pos_inf``, ``.neg_inf`` and ``.first_bad`` its facts."""
    import sys

    numerics = sys.modules.get(f"{__name__}.forensics.numerics")
    return None if numerics is None else numerics.last_error()


def change_since_last_stop(value=None, watch=None):
    """How a variable you looked at at an earlier stop changed since then (norm of the
    difference, share of elements changed, the largest change and where, steps between
    the stops if known); for a Keras model, each of its weights. None if not tracked.
    ``watch=(file, function, expression)``: a Watch expression's tensors' change at this
    stop, as a watched tensor's ``Δ since last stop`` row names it."""
    from .forensics import change_views

    return change_views.change_since_last_stop(value, watch)


def history(value=None, watch=None):
    """A variable's history across the stops since a client first showed it: one entry
    per stop (min, max, mean, std, norm, NaN/Inf counts, a downsampled copy within
    ``TF_DEBUG_REPR_HISTORY_MB``), labelled by the optimizer's ``iterations``, the epoch
    and batch inside Keras's ``fit``, and the stop. ``.to_csv(path)``, ``.to_npz(path)``,
    ``.series("norm")``, ``.entries``. Tracks the value from now on (docs/history.md).
    ``watch=(file, function, expression)``: the history of a Watch expression's tensors,
    as a watched tensor's ``history`` row names it."""
    from .forensics import history_views

    return history_views.history_of(value, watch)


def view_payload(
    value,
    axes=None,
    index=None,
    region=None,
    part=None,
    budget: int = 1_000_000,
    bins: int = 64,
) -> str:
    """What the tensor viewer draws of ``value`` (docs/tensor-viewer.md): figures, a
    histogram, a 2-D slice (``axes``, ``index``, ``region``) downsampled to ``budget``
    bytes, an image grid for image-shaped values; base64 of its JSON. Runs on the value's
    device, changes nothing in the program, never raises (a failure is the ``error``)."""
    from .viewer import payload as viewer_payload

    return viewer_payload.view_payload(
        value, axes=axes, index=index, region=region, part=part, budget=budget, bins=bins
    )


def view_history_compare(value, a, b) -> str:
    """What the tensor viewer's History tab draws to compare stops ``a`` and ``b`` of a
    variable's history (the difference b − a as a grid, its norm, largest change and each
    figure's change; docs/history.md); base64 of its JSON. Never raises."""
    from .viewer import payload as viewer_payload

    return viewer_payload.view_history_compare(value, a, b)


def save_npy(value, path: str) -> str:
    """Write the whole value to ``path`` with ``numpy.save`` (copies it to the host: you
    asked for it); returns ``"saved float32[64, 10] (2.5 KiB) to /path"`` or why not."""
    from .viewer import npy as npy_export

    return npy_export.save_npy(value, path)


def load_ipython_extension(ipython) -> None:
    """``%load_ext tf_debug_repr``: rich display of TF values in the notebook (summary,
    NaN/Inf warning, a heatmap, histogram or image), TF rows in the JupyterLab Variable
    Inspector, ``%tf_table`` (every TF value in the namespace, live with ``live``), ``%tf_history
    value`` (a variable's history as a table and line plots), ``%tf_activations model``
    (each layer's output in the last step that ran it), and
    gradient capture from now on (loading the extension is consent, as a debugger client
    is; ``TF_DEBUG_REPR_GRADIENTS=0`` still says no). Imports nothing heavy until a TF
    value is displayed."""
    from .activation import startup
    from .hosts.notebook import activations_view, history_view, inspector, table_view
    from .hosts.notebook import display as ipython_display

    ipython_display.register(ipython)
    if getattr(ipython, "events", None) is not None:  # a full shell (not a bare formatter)
        inspector.install(ipython)
        table_view.install(ipython)
        history_view.install(ipython)
        activations_view.install(ipython)
        startup.notebook_consent(True)


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext tf_debug_repr``: the notebook's previous display of TF values, and no
    more gradient capture (unless a debugger client is looking)."""
    from .activation import startup
    from .hosts.notebook import activations_view, history_view, inspector, table_view
    from .hosts.notebook import display as ipython_display

    startup.notebook_consent(False)
    ipython_display.unregister(ipython)
    inspector.uninstall(ipython)
    table_view.uninstall(ipython)
    history_view.uninstall(ipython)
    activations_view.uninstall(ipython)


# A tf.function's AutoGraph converts every function its Python calls, recursively, unless the
# function is marked as AutoGraph's own artifact (this attribute; TF 2.9-2.21 read it by name,
# so no TensorFlow import). Converted, the plugin's code would be rewritten into graph control
# flow (its ``if``s on tensors becoming ops of the user's graph) and the conversion of the
# hundreds of functions behind one call takes seconds to minutes; called as written, a call
# from a function being traced answers as it does in the Debug Console.
for _name in __all__:
    _public = globals()[_name]
    if callable(_public):
        _public.autograph_info__ = frozenset()
del _name, _public
