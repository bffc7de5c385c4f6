"""What the plugin reads of a tensor, as types: TensorFlow ships no type information, so
without these every tensor is ``Any`` and a misspelt attribute (``tensor.dtpye``) or a
wrong call (``shape.num_elements`` without its parentheses) passes the type checker.

Structural (``Protocol``): TF's eager tensors and ``tf.Variable``s satisfy them by their
attributes (a Keras 3 variable does not: its dtype is a ``str``); nothing is registered and
nothing here imports TF. Only what the core reads is declared.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class DTypeLike(Protocol):
    """A ``tf.DType``: its name (``"float32"``), its element size in bytes, its numpy
    type where one exists."""

    @property
    def name(self) -> str: ...

    @property
    def size(self) -> int: ...

    @property
    def is_numpy_compatible(self) -> bool: ...

    @property
    def as_numpy_dtype(self) -> Any: ...


@runtime_checkable
class ShapeLike(Protocol):
    """A ``tf.TensorShape``: dims may be unknown (``None``)."""

    @property
    def rank(self) -> int | None: ...

    def num_elements(self) -> int | None: ...

    def as_list(self) -> list[int | None]: ...


@runtime_checkable
class TensorLike(Protocol):
    """An eager tensor or a variable as the core reads it: dtype, shape, device, values."""

    @property
    def dtype(self) -> DTypeLike: ...

    @property
    def shape(self) -> ShapeLike: ...

    @property
    def device(self) -> str: ...

    def numpy(self) -> Any: ...


@runtime_checkable
class EagerTensorLike(TensorLike, Protocol):
    """An eager tensor, whose ``_numpy()`` shares a CPU tensor's buffer (no copy)."""

    def _numpy(self) -> Any: ...
