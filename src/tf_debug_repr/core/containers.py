"""The containers whose one-line value lists the TF values they hold (``[float32[4, 8], …]``
instead of each tensor's whole repr, numpy values and all): Python's lists, tuples and
dicts, and the tracking containers TF and Keras keep a module's, a layer's or a model's
sublayers and variables in (``ListWrapper`` of a ``tf.Module``'s list attribute, Keras 3's
``TrackedList``). Stock debugpy shows a tracking list through its ``__repr__``: every
variable's values printed, which in a walk of ``keras_io_walk.py``'s objects was 44% of
pydevd's ``variables`` handler and 18% of its ``evaluate`` handler. A wrapper is known by
its class's module and name, so that this module imports neither TensorFlow nor Keras (the
plugin asks before either is loaded).
"""

from __future__ import annotations

# TF's trackable data structures (TF's own tf.Module, tf_keras and Keras 2 use them)
_TF_STRUCTURES = "tensorflow.python.trackable.data_structures"
_WRAPPERS: dict[tuple[str, str], type] = {
    (_TF_STRUCTURES, "ListWrapper"): list,
    (_TF_STRUCTURES, "_DictWrapper"): dict,
    (_TF_STRUCTURES, "_TupleWrapper"): tuple,
    ("keras.src.utils.tracking", "TrackedList"): list,
    ("keras.src.utils.tracking", "TrackedDict"): dict,
}
_PLAIN = (list, tuple, dict)


def container_kind(type_object: type) -> type | None:
    """``list``, ``tuple`` or ``dict`` for a container whose value line may list TF values
    (that Python type itself, or a tracking container wrapping one); None for any other
    class, a subclass of the program's own included (its ``__repr__`` is its own)."""
    if type_object in _PLAIN:
        return type_object
    key = (getattr(type_object, "__module__", ""), getattr(type_object, "__qualname__", ""))
    return _WRAPPERS.get(key)
