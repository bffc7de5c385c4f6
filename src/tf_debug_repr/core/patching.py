"""Wrap a class attribute once: the one way the plugin patches someone else's code.

A wrapper is marked (``_tf_debug_repr``) and keeps the original as ``__wrapped__``: a
second install (the plugin loaded twice, a re-armed hook) finds the mark and leaves the
attribute alone, and tools that unwrap (``inspect.unwrap``) still find the original.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

MARK = "_tf_debug_repr"


def is_patched(function: Any) -> bool:
    """Is this a wrapper installed by ``patch_once``?"""
    return bool(getattr(function, MARK, False))


def patch_once(owner: Any, name: str, wrap: Callable[[Any], Any]) -> bool:
    """Set ``owner.name`` to ``wrap(original)``, marked, unless it is already ours.
    True when it was wrapped now."""
    original = getattr(owner, name)
    if is_patched(original):
        return False
    wrapper = wrap(original)
    functools.update_wrapper(wrapper, original)  # its name and doc, and ``__wrapped__``
    setattr(wrapper, MARK, True)
    setattr(owner, name, wrapper)
    return True
