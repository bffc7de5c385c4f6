"""Why did the tape return ``None`` for a source? Worked out from the tape's state only.

Called at capture time, right after ``tape.gradient`` returned, and only for the sources
that got ``None``. It reads what the tape already knows (``watched_variables()``, its
``watch_accessed_variables`` flag, the tensors it was told to watch) and the source's
own dtype and ``trainable`` flag. It never calls ``gradient`` again.
"""

from __future__ import annotations

from typing import Any

NOT_DIFFERENTIABLE = (
    "{dtype} is not differentiable: gradients flow only through floating-point (and complex) values"
)
NOT_TRAINABLE = (
    "not watched: the variable is not trainable (trainable=False), and a tape watches only "
    "trainable variables by itself. Call tape.watch(v) inside the tape, or make it trainable"
)
NOT_AUTO_WATCHED = (
    "not watched: the tape has watch_accessed_variables=False and tape.watch(v) was not called "
    "for this variable"
)
NOT_READ = (
    "not watched: the variable was not read while the tape was recording (the computation "
    "using it ran before or outside the `with tape:` block, under tape.stop_recording(), or "
    "it was only passed straight to tf.stop_gradient(v)). "
    "Compute the loss from it inside the block"
)
TENSOR_NOT_WATCHED = (
    "not watched: a plain tensor is watched only after tape.watch(x) inside the tape "
    "(variables are watched automatically)"
)
DISCONNECTED = (
    "watched, but the target does not depend on it through differentiable ops: its path "
    "to the target is cut by tf.stop_gradient, by a non-differentiable op (argmax, round, "
    "a cast to an integer, comparisons), or goes through .numpy()/numpy, or it is not used"
)
ALL_NONE = (
    ". No source got a gradient: the target itself is probably disconnected from the tape "
    "(computed outside the `with tape:` block, or through .numpy()/numpy, which leaves TensorFlow)"
)
TARGET_NOT_DIFFERENTIABLE = ". The target is {dtype}: an integer result carries no gradient"


def _dtype(obj: Any) -> Any:
    import tensorflow as tf

    dtype = getattr(obj, "dtype", None)
    try:
        return tf.as_dtype(dtype)  # Keras variables give their dtype as a string
    except Exception:
        return None


def differentiable(dtype: Any) -> bool:
    return dtype is None or dtype.is_floating or dtype.is_complex


def _is_variable(obj: Any) -> bool:
    return hasattr(obj, "assign") and hasattr(obj, "trainable")


def _watched_variable(tape: Any, source: Any) -> bool:
    inner = getattr(source, "_value", None)
    try:
        watched = tape.watched_variables()
    except Exception:
        return True  # unknown: do not claim it was not watched
    return any(w is source or (inner is not None and w is inner) for w in watched)


def _target_note(target: Any) -> str:
    from tensorflow.python.util import nest

    try:
        for t in nest.flatten(target):
            dtype = _dtype(t)
            if dtype is not None and not differentiable(dtype):
                return TARGET_NOT_DIFFERENTIABLE.format(dtype=dtype.name)
    except Exception:
        pass
    return ""


def explain(tape: Any, source: Any, target: Any, all_none: bool, watched_tensors: list) -> str:
    """One sentence (two at most) on why ``source`` got ``None`` from ``tape``."""
    dtype = _dtype(source)
    if dtype is not None and not differentiable(dtype):
        return NOT_DIFFERENTIABLE.format(dtype=dtype.name)
    if _is_variable(source):
        if not _watched_variable(tape, source):
            if not getattr(source, "trainable", True):
                return NOT_TRAINABLE
            if not getattr(tape, "_watch_accessed_variables", True):
                return NOT_AUTO_WATCHED
            return NOT_READ
    elif not any(ref() is source for ref in watched_tensors):
        return TENSOR_NOT_WATCHED + (ALL_NONE if all_none else "")
    return DISCONNECTED + (_target_note(target) or (ALL_NONE if all_none else ""))
