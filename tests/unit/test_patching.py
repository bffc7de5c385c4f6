"""``patch_once``: a class attribute wrapped once, marked, the original kept."""

from __future__ import annotations

import inspect

from tf_debug_repr.core.patching import is_patched, patch_once


def test_wraps_once_marks_and_keeps_the_original():
    class Target:
        def greet(self) -> str:
            return "hello"

    original = Target.greet
    calls = []

    def wrap(inner):
        def greet(self) -> str:
            calls.append(1)
            return inner(self) + "!"

        return greet

    assert patch_once(Target, "greet", wrap)
    assert not patch_once(Target, "greet", wrap)  # the second install finds the mark
    assert Target().greet() == "hello!" and calls == [1]  # wrapped once, not twice
    assert is_patched(Target.greet) and not is_patched(original)
    assert Target.greet.__wrapped__ is original
    assert inspect.unwrap(Target.greet) is original
    # The mark the hand-written wrappers elsewhere (eager_switch, gradient_capture,
    # debugger_client) look for, so either kind of install sees the other.
    assert Target.greet._tf_debug_repr is True
