"""How a sample steps through a tensor's elements: a stride prime to the last dimension.

A sample that takes every ``stride``-th element of a flattened ``[..., last]`` tensor
(or starts a block there) reads only the columns ``k * stride % last``: when the two share
a factor, only ``last / gcd`` of the columns. A stride of 16 over a ``[32, 500, 16]`` layer
output read one unit (a mean of 0.020 where the whole one is -0.003). Both samplers, the
summaries' figures (``core.stats``) and a compiled step's gradient norms
(``gradients.compiled``), move their stride to one prime to ``last`` with ``prime_stride``.
Standard library only: the capture imports it when TensorFlow is imported.
"""

from __future__ import annotations

import math


def prime_stride(stride: int, last: int, floor: int | None = None) -> int:
    """The stride nearest ``stride`` prime to ``last`` (the length of the last dimension),
    so that the sample visits every column in turn. Searched upward; downward when
    ``floor`` is given (a stride that must not grow: its sample would run past the
    tensor's end), never below ``floor``, which is returned when no stride between
    ``floor`` and ``stride`` is prime to ``last``. ``last`` of 0 or 1 changes nothing."""
    if last <= 1:
        return stride
    if floor is None:
        stride = max(stride, 1)
        # Ends by ``stride + last - 1`` at most: among ``last`` consecutive numbers one is
        # 1 modulo ``last``, and prime to it.
        while math.gcd(stride, last) != 1:
            stride += 1
        return stride
    while stride > floor and math.gcd(stride, last) != 1:
        stride -= 1
    return stride
