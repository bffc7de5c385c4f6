"""Hostile names, keys and strings, and a walk that evaluates every row's expression as
pydevd does (Add to Watch, Copy as Expression): shared by the unit and e2e hostile tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def touch_code(marker: Path) -> str:
    return f"__import__('pathlib').Path({str(marker)!r}).touch()"


def hostile_names(marker: Path) -> list[str]:
    """Attribute names and keys that run the marker when pasted into an expression."""
    code = touch_code(marker)
    return [
        f"x);{code}#",
        f"x\n{code}\n",
        f"x@LINE@{code}@LINE@",  # pydevd turns @LINE@ into a line break
        f"x')[0];{code};('",
        f"x'] + [{code}] + ['",
    ]


class HostileStr(str):
    """A str subclass whose own text methods return code: a key or name no repr may trust."""

    code = "0"

    def __repr__(self) -> str:
        return self.code

    def __str__(self) -> str:
        return self.code

    def __format__(self, spec: str) -> str:
        return self.code

    def isidentifier(self) -> bool:
        return True


def hostile_str(text: str, marker: Path) -> HostileStr:
    value = HostileStr(text)
    value.code = f"({touch_code(marker)}, {text!r})[1]"
    return value


def evaluate_like_pydevd(text: str, namespace: dict) -> None:
    """pydevd's evaluate: ``@LINE@`` becomes a line break; what is no expression is exec'd."""
    text = text.replace("@LINE@", "\n")
    try:
        code = compile(text, "<string>", "eval")
    except SyntaxError:
        try:
            code = compile(text, "<string>", "exec")
        except SyntaxError:
            return
    try:
        eval(code, namespace)  # noqa: S307 - the point of the test
    except Exception:
        pass


Contents = Callable[[Any], list[tuple[str, Any, Any]]]


def walk_expressions(
    contents: Contents, root: Any, root_expression: str, limit: int = 400
) -> list[tuple[str, str]]:
    """(row path, full expression) of every row reachable from ``root`` (breadth first)."""
    found: list[tuple[str, str]] = []
    queue = [(root, root_expression, root_expression)]
    seen: set[int] = set()
    while queue and len(found) < limit:
        value, expression, path = queue.pop(0)
        if id(value) in seen:
            continue
        seen.add(id(value))
        try:
            rows = contents(value)
        except Exception:
            continue
        for name, child, suffix in rows:
            if suffix is None:
                continue
            full = suffix(expression) if callable(suffix) else expression + suffix
            found.append((f"{path} / {name}", full))
            queue.append((child, full, f"{path} / {name}"))
    return found
