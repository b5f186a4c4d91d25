"""The layers of docs/architecture.md hold: import-linter's contracts (pyproject.toml) and no import cycle.

``lint-imports`` checks the contracts from every import statement (grimp reads those inside
functions and under ``if TYPE_CHECKING:`` too). Two things it does not see are checked here: the
subcommand modules that ``cli/__init__.py`` loads by name (``COMMAND_MODULES``: no ``import``
statement shows them), and a cycle through a package's ``__init__`` (``acyclic_siblings`` compares
a package's children, not the package with its children). A broken tree shows the contracts are
not vacuous.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rankeval_tui.cli import COMMAND_MODULES
from rankeval_tui.core.files.tomllib_compat import tomllib

REPO = Path(__file__).resolve().parent.parent
PACKAGE = "rankeval_tui"


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package found under ``root``, with the repository's contracts."""
    command = shutil.which("lint-imports", path=Path(sys.executable).parent)
    if command is None:
        pytest.skip("import-linter is not installed (it is in the test extras: pip install -e '.[test]')")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [command, "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_import_contracts_are_kept() -> None:
    result = lint_imports(REPO)
    assert result.returncode == 0, (result.stdout + result.stderr)[-6000:]
    assert "0 broken" in result.stdout


# Imports that break the layers, each inside a function (a lazy import is still a dependency).
VIOLATIONS = {
    "core/errors.py": "import textual\nfrom rankeval_tui.core.files import atomic",
    "core/evaluation/protocol.py": "from rankeval_tui.core import session",
    "tui/score/score_screen.py": "from rankeval_tui.tui import app",
    "tui/messages.py": "from rankeval_tui.cli import say",
    "api.py": "from rankeval_tui.tui import safe_text",
}


def test_every_contract_catches_a_lazy_import(tmp_path: Path) -> None:
    """A copy of the package with the imports above breaks every contract (none passes vacuously)."""
    shutil.copytree(REPO / PACKAGE, tmp_path / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
    for module, imports in VIOLATIONS.items():
        with (tmp_path / PACKAGE / module).open("a", encoding="utf-8") as source:
            source.write("\n\ndef broken_layer():\n" + "".join(f"    {line}\n" for line in imports.splitlines()))
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    contracts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    broken = [line.removesuffix("BROKEN").rstrip() for line in result.stdout.splitlines() if line.endswith("BROKEN")]
    assert broken == [contract["name"] for contract in contracts["contracts"]]


def import_graph():  # a grimp.ImportGraph (grimp comes with import-linter)
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (the test extras)")
    graph = grimp.build_graph(PACKAGE, cache_dir=None)
    for name in COMMAND_MODULES:  # loaded by name: an import no statement shows
        graph.add_import(importer=f"{PACKAGE}.cli", imported=f"{PACKAGE}.cli.{name}")
    return graph


def cycles(graph) -> list[str]:
    """Each direct import that a chain of imports leads back from: every module cycle has one."""
    return [
        f"{importer} -> {imported} -> ... -> {importer}"
        for importer in sorted(graph.modules)
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if graph.chain_exists(importer=imported, imported=importer)
    ]


def test_no_import_cycle_among_modules() -> None:
    graph = import_graph()
    assert f"{PACKAGE}.cli.score" in graph.find_modules_directly_imported_by(f"{PACKAGE}.cli")
    assert graph.direct_import_exists(importer=f"{PACKAGE}.core.files", imported=f"{PACKAGE}.core.files.protocol_files")
    assert not cycles(graph)


def test_the_cycle_finder_sees_a_package_face_cycle() -> None:
    """A command module importing the ``cli`` package that loads it by name is a cycle."""
    graph = import_graph()
    graph.add_import(importer=f"{PACKAGE}.cli.score", imported=f"{PACKAGE}.cli")
    assert f"{PACKAGE}.cli -> {PACKAGE}.cli.score -> ... -> {PACKAGE}.cli" in cycles(graph)
