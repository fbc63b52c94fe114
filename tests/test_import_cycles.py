"""No module of ``varaq.service`` imports one that imports it back.

A cycle is how the old ``Table`` grew: tables → daily → tables, tables → registry → tables.
Side effects now subscribe to commits instead (:attr:`Tables.commit_listeners`), and this test
keeps it that way.  It reads every import the modules make when they run — at the top or inside
a function — and leaves out only those under ``if TYPE_CHECKING:``, which exist for the type
checker alone and are never executed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import varaq.service

PACKAGE = "varaq.service"
FOLDER = Path(varaq.service.__file__).parent


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_imports(tree: ast.AST, module: str) -> set[str]:
    """The ``varaq.service`` modules ``module`` imports when it runs."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                stack.extend(child.orelse)
                continue
            if isinstance(child, ast.ImportFrom):
                found |= _targets(child, module)
            elif isinstance(child, ast.Import):
                found |= {a.name for a in child.names if a.name.startswith(PACKAGE + ".")}
            stack.append(child)
    return {name for name in found if name != module}


def _targets(node: ast.ImportFrom, module: str) -> set[str]:
    if node.level:
        base = module.split(".")[: -node.level]
        origin = ".".join([*base, node.module] if node.module else base)
    else:
        origin = node.module or ""
    if not origin.startswith(PACKAGE):
        return set()
    out = set()
    for alias in node.names:
        sub = f"{origin}.{alias.name}"
        # ``from . import replica`` names a module; ``from .table import Table`` a name in one.
        out.add(sub if (FOLDER / f"{alias.name}.py").exists() and origin == PACKAGE else origin)
    return out


def graph() -> dict[str, set[str]]:
    modules = {f"{PACKAGE}.{p.stem}": p for p in FOLDER.glob("*.py") if p.stem != "__init__"}
    return {name: _runtime_imports(ast.parse(path.read_text()), name) & set(modules)
            for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle found by a depth-first walk (each reported once, from its first module)."""
    found: list[list[str]] = []
    seen: set[str] = set()

    def walk(node: str, path: list[str]) -> None:
        for nxt in sorted(edges.get(node, ())):
            if nxt in path:
                cycle = [*path[path.index(nxt):], nxt]
                if frozenset(cycle) not in {frozenset(c) for c in found}:
                    found.append(cycle)
            elif nxt not in seen:
                walk(nxt, [*path, nxt])
        seen.add(node)

    for start in sorted(edges):
        if start not in seen:
            walk(start, [start])
    return found


def test_no_module_of_the_service_imports_one_that_imports_it_back() -> None:
    found = cycles(graph())
    assert not found, "import cycles: " + "; ".join(" → ".join(c) for c in found)


def test_the_cycle_finder_finds_a_cycle() -> None:
    # The check itself can fail: two modules that import each other are a cycle.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_a_type_checking_import_is_not_counted_but_a_function_import_is() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .table import Table\n"
        "def f():\n    from .registry import Tables\n"
    )
    imports = _runtime_imports(ast.parse(source), f"{PACKAGE}.online")
    assert imports == {f"{PACKAGE}.registry"}
