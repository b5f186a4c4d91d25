"""The layers of docs/architecture.md hold, read from every module's own imports.

Each module of ``rankeval_tui`` is parsed (ast, nothing is imported), and every import counts:
at module level, inside functions (a lazy import is still a dependency, and the usual way to hide
a cycle) and under ``if TYPE_CHECKING:``. Relative imports are resolved; ``from package import
name`` is an import of ``package.name`` when that is a module, else of ``package`` itself. The
subcommand modules that ``cli/__init__.py`` loads by name (``COMMAND_MODULES``) are added as its
imports, since no ``import`` statement shows them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rankeval_tui.cli import COMMAND_MODULES

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "rankeval_tui"
PACKAGE = "rankeval_tui"


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it stands, and whether it runs at import time."""

    importer: str
    target: str
    line: int
    in_function: bool

    def __str__(self) -> str:
        where = "inside a function" if self.in_function else "at module level"
        return f"{self.importer} -> {self.target} (line {self.line}, {where})"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def resolve(importer: str, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    is_package = MODULES[importer].name == "__init__.py"
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


class ImportReader(ast.NodeVisitor):
    """Collects a module's imports, noting those inside a function body."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.depth = 0
        self.found: list[Import] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.found.append(Import(self.module, alias.name, node.lineno, self.depth > 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        source = resolve(self.module, node)
        for alias in node.names:
            submodule = f"{source}.{alias.name}"
            target = submodule if submodule in MODULES else source
            self.found.append(Import(self.module, target, node.lineno, self.depth > 0))


def imports_of(module: str) -> Iterator[Import]:
    """Every import in one module's source."""
    reader = ImportReader(module)
    reader.visit(ast.parse(MODULES[module].read_text(encoding="utf-8")))
    yield from reader.found
    if module == f"{PACKAGE}.cli":
        for name in COMMAND_MODULES:
            yield Import(module, f"{PACKAGE}.cli.{name}", 0, True)


IMPORTS: list[Import] = [imported for module in MODULES for imported in imports_of(module)]


def within(name: str, *prefixes: str) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


# (importers, forbidden targets, why): each rule of docs/architecture.md.
RULES = [
    (
        ("rankeval_tui.core",),
        ("textual", "rich", "rankeval_tui.tui", "rankeval_tui.cli"),
        "core is the pure domain: testable without a terminal, usable without a screen",
    ),
    (
        ("rankeval_tui.core.files",),
        ("rankeval_tui.core.annotation", "rankeval_tui.core.session"),
        "files read and write; they never judge or hold a scoring session",
    ),
    (
        ("rankeval_tui.core.evaluation",),
        ("rankeval_tui.core.files", "rankeval_tui.core.annotation", "rankeval_tui.core.session"),
        "evaluation is pure computation on core objects: it never reads a file",
    ),
    (
        ("rankeval_tui.core.errors",),
        ("rankeval_tui.core.evaluation", "rankeval_tui.core.files", "rankeval_tui.core.annotation"),
        "the one error type stands under everything",
    ),
    (("rankeval_tui.tui",), ("rankeval_tui.cli",), "screens take core objects, never argparse namespaces"),
]


@pytest.mark.parametrize(("importers", "forbidden", "why"), RULES, ids=[rule[0][0] for rule in RULES])
def test_layer_never_imports_what_stands_above_it(importers: tuple[str, ...], forbidden: tuple[str, ...], why: str):
    broken = [str(i) for i in IMPORTS if within(i.importer, *importers) and within(i.target, *forbidden)]
    assert not broken, f"{why}:\n" + "\n".join(broken)


def test_the_import_reader_sees_what_it_must():
    """The graph is read right: known imports of each kind are found (else every rule passes vacuously)."""
    edges = {(i.importer, i.target, i.in_function) for i in IMPORTS}
    assert len(MODULES) > 40
    assert ("rankeval_tui.core.session", "rankeval_tui.core.evaluation.evaluate", False) in edges
    assert ("rankeval_tui.cli.inspect", "rankeval_tui.tui.app", True) in edges  # a function-level import
    assert ("rankeval_tui.core.files", "rankeval_tui.core.files.protocol_files", False) in edges  # a package face
    assert ("rankeval_tui.cli", "rankeval_tui.cli.score", True) in edges  # loaded by name
    assert any(i.importer.startswith("rankeval_tui.tui.") and within(i.target, "textual") for i in IMPORTS)


def import_cycles(imports: list[Import]) -> list[list[str]]:
    """Strongly connected components with more than one module (or a module importing itself)."""
    graph: dict[str, set[str]] = {module: set() for module in MODULES}
    for i in imports:
        if i.target in MODULES:
            graph[i.importer].add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan; the graph is ~60 modules, recursion is fine
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def describe(cycle: list[str]) -> str:
    ties = [str(i) for i in IMPORTS if i.importer in cycle and i.target in cycle]
    return " <-> ".join(cycle) + "\n  " + "\n  ".join(ties)


def test_no_import_cycle_among_modules():
    cycles = import_cycles(IMPORTS)
    assert not cycles, "import cycles (function-level imports included):\n" + "\n".join(map(describe, cycles))


def test_cycle_finder_finds_a_lazy_cycle():
    """A function-level import that closes a loop is a cycle (the finder is not blind to it)."""
    extra = [
        Import("rankeval_tui.core.evaluation.protocol", "rankeval_tui.core.session", 1, True),
    ]
    cycles = import_cycles(IMPORTS + extra)
    assert any({"rankeval_tui.core.evaluation.protocol", "rankeval_tui.core.session"} <= set(c) for c in cycles)


def test_screens_never_import_the_app():
    """Screens get what they need passed in or send Textual messages; only the app knows them all."""
    broken = [
        str(i)
        for i in IMPORTS
        if within(i.importer, "rankeval_tui.tui")
        and i.importer != "rankeval_tui.tui.app"
        and i.target == "rankeval_tui.tui.app"
    ]
    assert not broken, "\n".join(broken)


# Issue 17's sizes: a module a newcomer can read whole, a class with one job ("no module much over
# 400 lines, no class over ~200"). The classes not yet split are listed with their size today: a
# ratchet, so they can only shrink (lower the figure when one does; drop it once under the limit).
MODULE_LINES = 420
CLASS_LINES = 200
NOT_YET_SPLIT: dict[str, int] = {}  # "path:Class": lines; empty since ScoreScreen was split (issue 17)


def sizes() -> tuple[dict[str, int], dict[str, int]]:
    """Lines per module and per class (``path:Class``), read with ast."""
    modules, classes = {}, {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(PACKAGE_DIR.parent).as_posix()
        modules[where] = source.count("\n")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                classes[f"{where}:{node.name}"] = node.end_lineno - node.lineno + 1
    return modules, classes


def test_no_module_or_class_is_too_big_to_read() -> None:
    modules, classes = sizes()
    too_big = [f"{m}: {n} lines (limit {MODULE_LINES})" for m, n in modules.items() if n > MODULE_LINES]
    for name, length in classes.items():
        limit = max(CLASS_LINES, NOT_YET_SPLIT.get(name, 0))
        if length > limit:
            too_big.append(f"{name}: {length} lines (limit {limit})")
    assert not too_big, "\n".join(too_big)


def test_the_not_yet_split_list_is_current() -> None:
    """A listed class that shrank, vanished or got under the limit updates the list, so the ratchet
    never leaves room to grow back."""
    _, classes = sizes()
    stale = {name: (limit, classes.get(name)) for name, limit in NOT_YET_SPLIT.items() if classes.get(name) != limit}
    assert not stale, f"update NOT_YET_SPLIT (listed, now): {stale}"
