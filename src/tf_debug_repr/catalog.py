"""The catalog: one row per kind of value, everything the plugin asks about that kind.

The only module that imports every view module, and so a room above the views (and the
viewer, whose payload sources it names): only the package's top level imports it, and
``views.build_table`` and the dispatch reach it through ``core.wiring``. Adding a kind is its view module and a
row here. ``install`` puts the rows into ``dispatch`` once, with the one addition every
view has from the start (replica agreement on Keras variables); the gradient and
forensics additions are registered by their own features (``activation``).
"""

from __future__ import annotations

from typing import Any

from .core import additions
from .core.additions import Slot
from .core.guards import building_graph
from .core.tf_types import Kind
from .core.view_model import Child
from .viewer import payload as viewer_payload
from .views import checkpoints as checkpoint_views
from .views import composite as composite_views
from .views import dispatch
from .views import distribute as distribute_views
from .views import functions as function_views
from .views import lookup_tables as table_views
from .views import metrics as metric_views
from .views import models as model_views
from .views import optimizers as optimizer_views
from .views import saved_objects as saved_views
from .views import shapes as shape_views
from .views import symbolic as symbolic_views
from .views import tapes as tape_views
from .views import tensor_arrays as tensor_array_views
from .views import tensors as tensor_views
from .views import variables as variable_views
from .views.dispatch import Changes, Memory, Row


def _unwrapped(obj: Any) -> Any:
    """The value inside TF's "should use" wrapper (what ``TensorArray.write`` returns),
    read without marking it used: the program's own "never used" warning still fires."""
    return object.__getattribute__(obj, "_tf_should_use_wrapped_value")


def _eager_summary(tensor: Any) -> str:
    return dispatch.marked(tensor_views.summary(tensor), tensor, Kind.EAGER)


def _eager_children(tensor: Any) -> list[Child]:
    rows = dispatch.added_children(tensor, Kind.EAGER) + tensor_views.tensor_children(tensor)
    if building_graph():
        # A real tensor seen while a graph is built (an eager input of a Keras layer in its
        # build pass, a tensor a tf.function captures): its children's expressions must run
        # outside that graph, or they would add ops to it and give symbolic tensors.
        rows = [variable_views.outside_graph(row) for row in rows]
    return rows


def _variable_row(kind: Kind) -> Row:
    """tf.Variable and Keras variables: one view, told which family it shows."""
    return Row(
        lambda v: variable_views.variable_summary(v, kind, dispatch.marks(v, kind)),
        lambda v: dispatch.added_children(v, kind) + variable_views.variable_children(v, kind),
        values=variable_views.read_value,
        brief=variable_views.brief,
        source=viewer_payload.variable_source,
        notebook=True,
        memory=Memory.TENSOR,
        changes=Changes.VARIABLE,
    )


def _distributed_row(summary: Any, children: Any, values: Any = None) -> Row:
    return Row(
        summary,
        children,
        values=values,
        source=viewer_payload.distributed_source,
        notebook=True,
        memory=Memory.REPLICAS,
    )


def rows() -> dict[Kind, Row]:
    """The row of every kind."""
    return {
        Kind.EAGER: Row(
            _eager_summary,
            _eager_children,
            values=lambda tensor: tensor,
            console_values=tensor_views.console_values,
            clipboard_values=tensor_views.clipboard_values,
            brief=tensor_views.eager_brief,
            source=viewer_payload.tensor_source,
            notebook=True,
            memory=Memory.TENSOR,
            changes=Changes.WATCHED,
        ),
        Kind.VARIABLE: _variable_row(Kind.VARIABLE),
        Kind.KERAS_VARIABLE: _variable_row(Kind.KERAS_VARIABLE),
        Kind.SYMBOLIC: Row(
            symbolic_views.symbolic_summary,
            symbolic_views.symbolic_children,
            brief=symbolic_views.brief,
            no_values=lambda t: str(symbolic_views.hint_for(t)),
        ),
        Kind.KERAS_TENSOR: Row(
            symbolic_views.keras_tensor_summary,
            symbolic_views.keras_tensor_children,
            brief=symbolic_views.keras_tensor_brief,
            no_values=lambda t: str(symbolic_views.KERAS_HINT),
        ),
        Kind.SPARSE: Row(
            composite_views.sparse_summary,
            composite_views.sparse_children,
            brief=tensor_views.brief,
            source=viewer_payload.sparse_source,
            notebook=True,
        ),
        Kind.RAGGED: Row(
            composite_views.ragged_summary,
            composite_views.ragged_children,
            brief=tensor_views.brief,
            source=viewer_payload.ragged_source,
            notebook=True,
        ),
        Kind.INDEXED_SLICES: Row(
            composite_views.indexed_slices_summary,
            composite_views.indexed_slices_children,
            brief=tensor_views.brief,
            source=viewer_payload.indexed_slices_source,
            notebook=True,
        ),
        Kind.DATASET: Row(composite_views.dataset_summary, composite_views.dataset_children),
        Kind.ITERATOR: Row(composite_views.iterator_summary, composite_views.iterator_children),
        Kind.SHAPE: Row(shape_views.shape_summary, shape_views.shape_children),
        Kind.TYPE_SPEC: Row(shape_views.spec_summary, shape_views.spec_children),
        Kind.TENSOR_ARRAY: Row(
            tensor_array_views.tensor_array_summary,
            tensor_array_views.tensor_array_children,
            source=viewer_payload.tensor_array_source,
            notebook=True,
        ),
        Kind.MIRRORED: _distributed_row(
            distribute_views.mirrored_summary,
            distribute_views.mirrored_children,
            distribute_views.read_values,
        ),
        Kind.SYNC_ON_READ: _distributed_row(
            distribute_views.sync_on_read_summary,
            distribute_views.sync_on_read_children,
            distribute_views.read_values,
        ),
        Kind.PER_REPLICA: _distributed_row(
            distribute_views.per_replica_summary, distribute_views.per_replica_children
        ),
        Kind.DISTRIBUTED: _distributed_row(
            distribute_views.per_replica_summary, distribute_views.per_replica_children
        ),
        # Attributes pass through the wrapper, so the inner value's expressions still hold.
        Kind.SHOULD_USE: Row(
            lambda w: dispatch.summary(_unwrapped(w)),
            lambda w: dispatch.children(_unwrapped(w)),
            values=lambda w: dispatch.values_of(_unwrapped(w)),
            source=lambda w: viewer_payload.source_of(_unwrapped(w)),
        ),
        Kind.TAPE: Row(tape_views.tape_summary, tape_views.tape_children),
        Kind.KERAS_LAYER: Row(
            model_views.layer_summary,
            lambda m: model_views.layer_children(m, dispatch.added_children(m, Kind.KERAS_LAYER)),
            memory=Memory.MODEL,
            changes=Changes.MODEL,
        ),
        Kind.TF_MODULE: Row(
            model_views.module_summary, model_views.module_children, memory=Memory.OWNER
        ),
        Kind.OPTIMIZER: Row(
            optimizer_views.optimizer_summary,
            optimizer_views.optimizer_children,
            memory=Memory.OWNER,
        ),
        Kind.LR_SCHEDULE: Row(optimizer_views.schedule_summary, optimizer_views.schedule_children),
        Kind.METRIC: Row(metric_views.metric_summary, metric_views.metric_children),
        Kind.LOSS: Row(metric_views.loss_summary, metric_views.loss_children),
        Kind.FUNCTION: Row(function_views.function_summary, function_views.function_children),
        Kind.CONCRETE_FUNCTION: Row(
            function_views.concrete_summary,
            function_views.concrete_children,
            brief=function_views.concrete_brief,
        ),
        Kind.SAVED_OBJECT: Row(saved_views.saved_summary, saved_views.saved_children),
        Kind.SIGNATURES: Row(saved_views.signatures_summary, saved_views.signatures_children),
        Kind.CHECKPOINT: Row(
            checkpoint_views.checkpoint_summary, checkpoint_views.checkpoint_children
        ),
        Kind.CHECKPOINT_MANAGER: Row(
            checkpoint_views.manager_summary, checkpoint_views.manager_children
        ),
        Kind.LOOKUP_TABLE: Row(table_views.table_summary, table_views.table_children),
    }


def install() -> dict[Any, Row]:
    """Put every row into ``dispatch`` (once) and return its table."""
    if not dispatch.catalog_installed():
        additions.add(Slot.MARK, "replica", additions.MARK_REPLICA, distribute_views.replica_mark)
        dispatch.install_catalog_rows(rows())
    return dispatch.table()
