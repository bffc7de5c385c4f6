"""The package runs on Python 3.9 (TF's 2.9.0-jupyter image): ``X | None`` of types is 3.10+
syntax at run time. Annotations are strings there (``from __future__ import annotations``),
but a type alias or an ``isinstance`` check is evaluated: on 3.9 it raises at import, and the
module's views are gone (a runtime alias of this shape dropped every gradient row of the
Python 3.9 run). mypy checks as 3.10 and ruff only rewrites; this reads the code as 3.9 would."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "tf_debug_repr"
TYPES = {"int", "str", "float", "bool", "bytes", "list", "dict", "tuple", "set", "type", "Any"}


def _is_type(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and node.value is None:
        return True
    if isinstance(node, ast.Name) and node.id in TYPES:
        return True
    if isinstance(node, ast.Subscript):
        return _is_type(node.value)
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr) and _is_union(node)


def _is_union(node: ast.BinOp) -> bool:
    return _is_type(node.left) or _is_type(node.right)


def _annotations(tree: ast.AST) -> set[int]:
    """ids of the nodes inside annotations (strings at run time: never evaluated)."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        roots: list[ast.AST | None] = []
        if isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            roots.append(node.returns)
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None:
                    roots.append(arg.annotation)
        for root in roots:
            if root is not None:
                inside.update(id(n) for n in ast.walk(root))
    return inside


def test_no_union_of_types_is_evaluated_at_run_time():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        skip = _annotations(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.BitOr)
                and id(node) not in skip
                and _is_union(node)
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "unions of types evaluated at run time (3.10+ only):\n" + "\n".join(found)
