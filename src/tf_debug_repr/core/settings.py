"""Settings read from the environment: memory budgets in MiB, and on/off switches."""

from __future__ import annotations

import os
from collections.abc import Callable


def env_bytes(name: str, default_mb: float, invalid: Callable[[str], object] | None = None) -> int:
    """The budget ``$name`` gives in MiB, as bytes (never below 0); unset or blank: the
    default; not a number: the default, and ``invalid(text)`` told so where given."""
    text = os.environ.get(name, "").strip()
    try:
        mib = float(text) if text else default_mb
    except ValueError:
        if invalid is not None:
            invalid(text)
        mib = default_mb
    return max(0, int(mib * (1 << 20)))


_OFF = ("0", "false", "no", "off")


def switch_on(name: str, default: bool) -> bool:
    """``$name`` as a switch: unset or blank gives ``default``; ``0``, ``false``, ``no`` or
    ``off`` (any case) is off; any other value is on."""
    text = os.environ.get(name, "").strip().lower()
    return default if not text else text not in _OFF
