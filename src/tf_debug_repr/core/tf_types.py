"""Which TensorFlow (or Keras) value a Python type is, decided without importing TF.

pydevd asks about every type it meets, long before and long after TensorFlow is
imported, and caches our answer per type. Matching fully qualified class names in
the MRO costs nothing, imports nothing, and keeps working when the program never
imports TF at all. Each kind has exactly one view (``views``).
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class Kind(Enum):
    EAGER = "eager tensor"
    SYMBOLIC = "symbolic tensor"
    VARIABLE = "variable"
    KERAS_VARIABLE = "keras variable"
    KERAS_TENSOR = "keras tensor"
    INDEXED_SLICES = "indexed slices"
    SPARSE = "sparse tensor"
    RAGGED = "ragged tensor"
    DATASET = "dataset"
    ITERATOR = "dataset iterator"
    SHAPE = "tensor shape"
    TYPE_SPEC = "type spec"
    TENSOR_ARRAY = "tensor array"
    MIRRORED = "mirrored value"
    SYNC_ON_READ = "sync-on-read variable"
    PER_REPLICA = "per-replica value"
    DISTRIBUTED = "distributed value"
    TAPE = "gradient tape"
    KERAS_LAYER = "keras layer"
    TF_MODULE = "tf.Module"
    OPTIMIZER = "keras optimizer"
    LR_SCHEDULE = "learning rate schedule"
    METRIC = "keras metric"
    LOSS = "keras loss"
    SHOULD_USE = "wrapped result"  # e.g. what an eager TensorArray.write returns
    FUNCTION = "tf.function"  # polymorphic: restored ones from a SavedModel too
    CONCRETE_FUNCTION = "concrete function"
    SAVED_OBJECT = "loaded SavedModel object"
    SIGNATURES = "SavedModel signatures"
    CHECKPOINT = "checkpoint"
    CHECKPOINT_MANAGER = "checkpoint manager"
    LOOKUP_TABLE = "lookup table"


_DISTRIBUTE = "tensorflow.python.distribute.values"
_LOAD = "tensorflow.python.saved_model.load"  # a class made inside the loader
_CHECKPOINTS = "tensorflow.python.checkpoint"


def _keras2_kinds() -> tuple[tuple[str, Kind], ...]:
    """Keras 2's classes: TF 2.13-2.15's built-in Keras (``keras.src``), ``tf_keras`` (what
    ``TF_USE_LEGACY_KERAS=1`` gives on TF 2.16+) and Keras <= 2.12 (no ``src``). Its
    metrics are layers and its layers ``tf.Module``s: they come after the Keras 3 rows
    and before ``tf.Module``, metrics before layers."""
    rows: list[tuple[str, Kind]] = []
    for root in ("keras.src", "tf_keras.src", "keras"):
        rows += [
            # both optimizer families: the new one (2.11+) and keras.optimizers.legacy
            (f"{root}.optimizers.optimizer._BaseOptimizer", Kind.OPTIMIZER),
            (f"{root}.optimizers.legacy.optimizer_v2.OptimizerV2", Kind.OPTIMIZER),
            (
                f"{root}.optimizers.schedules.learning_rate_schedule.LearningRateSchedule",
                Kind.LR_SCHEDULE,
            ),
            (f"{root}.metrics.base_metric.Metric", Kind.METRIC),
            (f"{root}.losses.Loss", Kind.LOSS),
            (f"{root}.engine.base_layer.Layer", Kind.KERAS_LAYER),
        ]
    # Keras <= 2.12 kept the legacy family in optimizer_v2/.
    rows.append(("keras.optimizers.optimizer_v2.optimizer_v2.OptimizerV2", Kind.OPTIMIZER))
    return tuple(rows)


# Checked in order: the first entry whose class is in the MRO decides, so more specific
# kinds come first (a MirroredVariable is also a tf.Variable, an EagerTensor also a
# tensor.Tensor, a Keras layer may also be a tf.Module).
_CLASS_KINDS: tuple[tuple[str, Kind], ...] = (
    ("tensorflow.python.framework.ops._EagerTensorBase", Kind.EAGER),
    (f"{_DISTRIBUTE}.SyncOnReadVariable", Kind.SYNC_ON_READ),
    (f"{_DISTRIBUTE}.Mirrored", Kind.MIRRORED),
    (f"{_DISTRIBUTE}.PerReplica", Kind.PER_REPLICA),
    (f"{_DISTRIBUTE}.DistributedValues", Kind.DISTRIBUTED),
    ("tensorflow.python.ops.variables.Variable", Kind.VARIABLE),
    ("keras.src.backend.common.variables.Variable", Kind.KERAS_VARIABLE),
    # Keras 3.0-3.6 named the same class KerasVariable.
    ("keras.src.backend.common.variables.KerasVariable", Kind.KERAS_VARIABLE),
    ("keras.src.backend.common.keras_tensor.KerasTensor", Kind.KERAS_TENSOR),
    ("tensorflow.python.framework.ops.SymbolicTensor", Kind.SYMBOLIC),
    # TF < 2.14 graph tensors were plain ops.Tensor / tensor.Tensor.
    ("tensorflow.python.framework.ops.Tensor", Kind.SYMBOLIC),
    ("tensorflow.python.framework.tensor.Tensor", Kind.SYMBOLIC),
    ("tensorflow.python.framework.indexed_slices.IndexedSlices", Kind.INDEXED_SLICES),
    ("tensorflow.python.framework.sparse_tensor.SparseTensor", Kind.SPARSE),
    ("tensorflow.python.ops.ragged.ragged_tensor.RaggedTensor", Kind.RAGGED),
    ("tensorflow.python.data.ops.dataset_ops.DatasetV2", Kind.DATASET),
    ("tensorflow.python.data.ops.iterator_ops.OwnedIterator", Kind.ITERATOR),
    ("tensorflow.python.framework.tensor_shape.TensorShape", Kind.SHAPE),
    ("tensorflow.python.framework.type_spec.TypeSpec", Kind.TYPE_SPEC),
    ("tensorflow.python.ops.tensor_array_ops.TensorArray", Kind.TENSOR_ARRAY),
    ("tensorflow.python.eager.backprop.GradientTape", Kind.TAPE),
    ("tensorflow.python.util.tf_should_use.ShouldUseWrapper", Kind.SHOULD_USE),
    ("keras.src.optimizers.base_optimizer.BaseOptimizer", Kind.OPTIMIZER),
    (
        "keras.src.optimizers.schedules.learning_rate_schedule.LearningRateSchedule",
        Kind.LR_SCHEDULE,
    ),
    ("keras.src.metrics.metric.Metric", Kind.METRIC),
    ("keras.src.losses.loss.Loss", Kind.LOSS),
    ("keras.src.layers.layer.Layer", Kind.KERAS_LAYER),
    *_keras2_kinds(),
    ("tensorflow.python.module.module.Module", Kind.TF_MODULE),
    ("tensorflow.python.types.core.PolymorphicFunction", Kind.FUNCTION),
    ("tensorflow.python.types.core.GenericFunction", Kind.FUNCTION),  # TF < 2.14
    ("tensorflow.python.types.core.ConcreteFunction", Kind.CONCRETE_FUNCTION),
    (f"{_LOAD}.Loader._recreate_base_user_object.<locals>._UserObject", Kind.SAVED_OBJECT),
    ("tensorflow.python.saved_model.signature_serialization._SignatureMap", Kind.SIGNATURES),
    ("tensorflow.python.checkpoint.checkpoint.Checkpoint", Kind.CHECKPOINT),
    ("tensorflow.python.training.tracking.util.Checkpoint", Kind.CHECKPOINT),  # TF < 2.10
    (f"{_CHECKPOINTS}.checkpoint_management.CheckpointManager", Kind.CHECKPOINT_MANAGER),
    (
        "tensorflow.python.training.checkpoint_management.CheckpointManager",
        Kind.CHECKPOINT_MANAGER,
    ),
    ("tensorflow.python.ops.lookup_ops.LookupInterface", Kind.LOOKUP_TABLE),
)
_NAMES = dict(_CLASS_KINDS)


def class_kinds() -> tuple[tuple[str, Kind], ...]:
    """(qualified class name, kind), in the order that decides: the notebook registers
    its printers by these names."""
    return _CLASS_KINDS


def add_class(qualified: str, kind: Any) -> None:
    """Values of class ``qualified`` (and its subclasses) are of ``kind``, checked before
    the built-in classes: for a kind added beside the catalog's (its row goes to
    ``dispatch.add_row``)."""
    global _CLASS_KINDS
    _CLASS_KINDS = ((qualified, kind), *_CLASS_KINDS)
    _NAMES[qualified] = kind
    _cache.clear()


def remove_class(qualified: str) -> None:
    global _CLASS_KINDS
    _CLASS_KINDS = tuple((name, kind) for name, kind in _CLASS_KINDS if name != qualified)
    _NAMES.pop(qualified, None)
    _cache.clear()


_cache: dict[type, Kind | None] = {}


def kind_of_type(type_object: type) -> Kind | None:
    """The kind of a TF value type, or None for everything else. Never raises."""
    try:
        return _cache[type_object]
    except (KeyError, TypeError):
        pass
    kind = _kind_of_type(type_object)
    try:
        if len(_cache) < 4096:  # types are few; bounded all the same
            _cache[type_object] = kind
    except TypeError:
        pass
    return kind


def _kind_of_type(type_object: type) -> Kind | None:
    try:
        mro = type_object.__mro__
    except Exception:
        return None
    found: set[Kind] = set()
    for cls in mro:
        try:
            qualified = f"{cls.__module__}.{cls.__qualname__}"
        except Exception:
            continue
        kind = _NAMES.get(qualified)
        if kind is not None:
            found.add(kind)
    if not found:
        return None
    # The table's order breaks ties: an EagerTensor is also a tensor.Tensor.
    for _, kind in _CLASS_KINDS:
        if kind in found:
            return kind
    return None


def kind_of(obj: object) -> Kind | None:
    try:
        return kind_of_type(type(obj))
    except Exception:
        return None


# The libraries whose classes' code the views may run in place: TensorFlow's and Keras's.
_LIBRARIES = ("tensorflow.", "keras.", "tf_keras.")
_library: dict[type, bool] = {}


def library_class(type_object: type) -> bool:
    """Is every class of ``type_object``'s MRO (but ``object``) TensorFlow's or Keras's own?
    Then its methods and properties are the library's code, not the program's (a subclass
    of the program's, however thin, is not: it may override anything). Answered once per
    class, from the classes' module names; never raises."""
    try:
        return _library[type_object]
    except (KeyError, TypeError):
        pass
    try:
        found = all(
            cls is object or str(vars(cls).get("__module__", "")).startswith(_LIBRARIES)
            for cls in type_object.__mro__
        )
    except Exception:
        return False
    try:
        if len(_library) < 4096:
            _library[type_object] = found
    except TypeError:
        pass
    return found
