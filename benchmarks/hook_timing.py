"""Time spent inside gradient capture's hooks, shared by the capture benchmarks."""

from __future__ import annotations

import time
from types import ModuleType


def timed_hooks(capture: ModuleType) -> list[float]:
    """Seconds spent inside the capture functions, per call. The hooks look them up by
    name, so wrapping them here measures exactly the work capture adds."""
    spent: list[float] = []
    for name in ("on_tape_gradient", "iteration_before", "on_optimizer_apply"):
        inner = getattr(capture, name)

        def timed(*args, inner=inner):
            start = time.perf_counter()
            try:
                return inner(*args)
            finally:
                spent.append(time.perf_counter() - start)

        setattr(capture, name, timed)
    return spent
