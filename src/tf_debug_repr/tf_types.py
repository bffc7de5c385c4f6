"""Which TensorFlow (or Keras) value a Python type is, decided without importing TF.

pydevd asks about every type it meets, long before and long after TensorFlow is
imported, and caches our answer per type. Matching fully qualified class names in
the MRO costs nothing, imports nothing, and keeps working when the program never
imports TF at all.
"""

from __future__ import annotations

from enum import Enum


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


# Checked in order: the first class name found in the MRO decides.
_CLASS_KINDS: tuple[tuple[str, Kind], ...] = (
    ("tensorflow.python.framework.ops._EagerTensorBase", Kind.EAGER),
    ("tensorflow.python.ops.variables.Variable", Kind.VARIABLE),
    ("keras.src.backend.common.variables.Variable", Kind.KERAS_VARIABLE),
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
)
_NAMES = dict(_CLASS_KINDS)


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
    found: dict[Kind, int] = {}
    for position, cls in enumerate(mro):
        try:
            qualified = f"{cls.__module__}.{cls.__qualname__}"
        except Exception:
            continue
        kind = _NAMES.get(qualified)
        if kind is not None and kind not in found:
            found[kind] = position
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
