"""core/ is pure domain: importing it (and the headless CLI paths) must not import textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def core_modules_on_disk() -> set[str]:
    root = Path(__file__).resolve().parent.parent
    paths = (root / "rankeval_tui" / "core").rglob("*.py")
    return {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__") for p in paths}


def test_core_does_not_import_textual():
    """Every module of core/ and its subpackages, found by walking them (a new module is covered
    without edits): importing all of them loads no textual (nor rich, which textual brings)."""
    loaded = modules_after(
        "import importlib, pkgutil, rankeval_tui.core as core; "
        "[importlib.import_module(m.name) for m in pkgutil.walk_packages(core.__path__, 'rankeval_tui.core.')]"
    )
    assert core_modules_on_disk() <= loaded
    assert {"rankeval_tui.core.annotation.lock", "rankeval_tui.core.files.atomic"} <= loaded
    assert not any(name.split(".")[0] in ("textual", "rich") for name in loaded)


def test_headless_score_does_not_import_textual():
    loaded = modules_after("from rankeval_tui.cli import build_parser; build_parser()")
    assert "rankeval_tui.cli.score" in loaded
    assert not any(name.split(".")[0] in ("textual", "rich") for name in loaded)


# What a plain `score` (a CI step) must not load: the app, numpy (statistics only), the judging and
# adjudication machinery with its lock (socket, tempfile), the other commands, writers (tomli-w,
# shutil, the project's TOML writer, the -o rule), tomllib (the fast TOML path reads the project's
# files alone), typing (annotations only: ~3 ms a start-up) and shlex (error hints). Issue 32 item 2.
NOT_ON_THE_SCORE_PATH = (
    "textual",
    "rich",
    "numpy",
    "socket",
    "tempfile",
    "shutil",
    "difflib",
    "tomli_w",
    "tomllib",
    "typing",
    "shlex",
    "statistics",
    "random",
    "threading",
    "rankeval_tui.core.files.toml_writer",
    "rankeval_tui.core.files.outputs",
    "rankeval_tui.core.annotation.pace",
    "rankeval_tui.core.annotation.judging",
    "rankeval_tui.core.annotation.adjudication",
    "rankeval_tui.core.annotation.lock",
    "rankeval_tui.core.annotation.journal",
    "rankeval_tui.core.evaluation.stats",
    "rankeval_tui.core.evaluation.paired_tests",
    "rankeval_tui.cli.judge",
    "rankeval_tui.cli.inspect",
    "rankeval_tui.cli.init",
    "rankeval_tui.tui",
)

RUN_AND_LIST_MODULES = """
import contextlib, io, sys
from rankeval_tui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
if code:
    sys.exit(code)
from rankeval_tui.core.files import runs, tomlio
compiled = [
    name
    for module in (runs, tomlio)
    for name, value in vars(module).items()
    if getattr(value, "cache_info", None) and value.cache_info().currsize
]
print("\\n".join([*sys.modules, *("compiled:" + name for name in compiled)]))
"""


def after_score(*args: str, command: str = "score") -> set[str]:
    """The modules loaded (and the on-first-use patterns compiled) by one ``score`` run on the demo."""
    demo = Path(__file__).resolve().parent.parent / "protocols" / "help-docs-zh"
    argv = [sys.executable, "-c", RUN_AND_LIST_MODULES, command, str(demo), *args]
    return set(subprocess.run(argv, capture_output=True, text=True, check=True).stdout.split())


def loaded_of(loaded: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(module for module in loaded if any(module == n or module.startswith(n + ".") for n in names))


@pytest.mark.parametrize("args", [(), ("--format", "json"), ("--format", "markdown", "--fractions")])
def test_a_plain_score_imports_only_what_it_uses(args: tuple[str, ...]) -> None:
    loaded = after_score(*args)
    assert "rankeval_tui.cli.score" in loaded and "rankeval_tui.core.evaluation.render" in loaded
    assert loaded_of(loaded, NOT_ON_THE_SCORE_PATH) == []
    # patterns only some files need (dotted keys, escapes, inline arrays, multi-line strings, an
    # adapter's sidecar) or only an error needs: the demo's score compiles none (core.files.lazy_pattern)
    assert sorted(name for name in loaded if name.startswith("compiled:")) == []


def test_comparisons_and_charts_import_their_modules_when_they_are_drawn() -> None:
    """The demo's three runs are compared (compare) and its table draws the deltas (histogram); its
    JSON has no chart, and one run has nothing to compare: neither loads what it does not draw."""
    compare, histogram = "rankeval_tui.core.evaluation.compare", "rankeval_tui.core.evaluation.histogram"
    assert {compare, histogram} <= after_score()
    json_only = after_score("--format", "json")
    assert compare in json_only and histogram not in json_only
    one_run = after_score("--run", "runs/fixture_A.json")
    assert "rankeval_tui.core.evaluation.render" in one_run
    assert loaded_of(one_run, (compare, histogram)) == []


def test_statistics_import_their_modules_when_asked_for() -> None:
    """The other side of the test above: asking for statistics loads them (it would pass vacuously
    if the listing were broken)."""
    loaded = after_score("--baseline", "fixture_A")
    assert "rankeval_tui.core.evaluation.stats" in loaded
    assert loaded_of(loaded, ("textual", "socket", "rankeval_tui.core.annotation.judging")) == []


def test_validate_without_a_journal_does_not_load_judging() -> None:
    """``validate`` (the other CI step) replays an open judging journal, so it needs the journal and
    judging modules only when there is one, and the pace (statistics, random) only when a journal
    or the qrels records one; the demo has neither. Nor does it render a report."""
    loaded = after_score(command="validate")
    assert "rankeval_tui.cli.validate" in loaded
    assert loaded_of(loaded, (*NOT_ON_THE_SCORE_PATH, "rankeval_tui.core.evaluation.render")) == []


def test_the_scoring_screen_opens_without_the_judging_modules():
    """Issue 33 item 4: the app imported the judging and adjudication screens (and their widgets)
    with itself, ~0.15 s before the scoring screen could start; they load where they open."""
    loaded = modules_after("import rankeval_tui.tui.app, rankeval_tui.tui.score.score_screen")
    assert "rankeval_tui.tui.score.score_screen" in loaded
    screens = sorted(
        name
        for name in loaded
        if name.startswith("rankeval_tui.tui.") and ("judge" in name or "adjudicat" in name or "overview" in name)
    )
    assert not screens, screens
