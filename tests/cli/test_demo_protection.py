"""The bundled demo is never modified (issue 12 item 9, issue 15's evidence).

With a plain install, ``j`` in the default app used to judge the demo inside site-packages: one
label and ``q`` rewrote its qrels.toml and every later ``score`` reported another protocol hash.
These tests pin that every writer refuses, with the command that makes a copy, and that the
installed demo's files are byte-identical afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.demo import BUNDLED_DEMO, copy_demo, is_inside_demo
from rankeval_tui.tui.app import RankevalApp
from tests.cli.helpers import REPO, assert_one_line_error, run_cli

SEED_HASH = "9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb"


def demo_files() -> dict[str, bytes]:
    """Every file of the installed demo, by relative path (new files would show up as new keys)."""
    return {str(p.relative_to(BUNDLED_DEMO)): p.read_bytes() for p in sorted(BUNDLED_DEMO.rglob("*")) if p.is_file()}


@pytest.fixture()
def untouched_demo():
    """Fails the test if the demo's files differ afterwards in any byte, or a file was added."""
    before = demo_files()
    yield
    assert demo_files() == before


def test_the_repo_link_points_into_the_installed_demo() -> None:
    assert is_inside_demo(REPO / "protocols" / "help-docs-zh" / "qrels.toml")
    assert not is_inside_demo(REPO / "protocols")


def test_judge_on_the_demo_refuses_with_the_copy_command(untouched_demo) -> None:
    for target in (REPO / "protocols" / "help-docs-zh", BUNDLED_DEMO):
        assert_one_line_error(run_cli("judge", target), "qrels.toml", "bundled demo", "rankeval-tui demo DIR")


def test_adjudicate_into_the_demo_refuses(untouched_demo, tmp_path: Path) -> None:
    qrels = BUNDLED_DEMO / "qrels.toml"
    assert_one_line_error(
        run_cli("adjudicate", BUNDLED_DEMO, qrels, qrels, "-o", BUNDLED_DEMO / "adjudicated.toml"),
        "adjudicated.toml",
        "bundled demo",
        "rankeval-tui demo DIR",
    )


def test_the_session_itself_refuses_so_every_caller_is_covered(untouched_demo) -> None:
    with pytest.raises(ContractError, match="rankeval-tui demo DIR"):
        JudgingSession.open(load_definition(BUNDLED_DEMO), BUNDLED_DEMO / "qrels.toml")


async def test_j_in_the_default_app_refuses_and_leaves_the_demo_byte_identical(untouched_demo) -> None:
    app = RankevalApp(BUNDLED_DEMO)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("j")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "ScoreScreen"  # no judging screen opened
        messages = [n.message for n in app._notifications]
        assert any("rankeval-tui demo DIR" in m for m in messages), messages
        await pilot.press("1", "q")
    assert not list(BUNDLED_DEMO.glob("*.journal")) and not list(BUNDLED_DEMO.glob("*.lock"))


def test_after_the_attempts_score_still_reports_the_seed_hash(untouched_demo) -> None:
    run_cli("judge", BUNDLED_DEMO)
    result = run_cli("score", "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["protocol"]["protocol_sha256"] == SEED_HASH
    assert {run["protocol_sha256"] for run in report["runs"].values()} == {SEED_HASH}


def test_demo_command_makes_a_judgeable_copy(untouched_demo, tmp_path: Path) -> None:
    target = tmp_path / "my-demo"
    result = run_cli("demo", target)
    assert result.returncode == 0, result.stderr
    assert f"rankeval-tui judge {target}" in result.stdout
    copied = {str(p.relative_to(target)): p.read_bytes() for p in sorted(target.rglob("*")) if p.is_file()}
    assert copied == demo_files()
    JudgingSession.open(load_definition(target), target / "qrels.toml", annotator="alice").close()


def test_demo_command_refuses_an_existing_directory_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "taken").mkdir()
    assert_one_line_error(run_cli("demo", tmp_path / "taken"), "taken", "already exists")
    assert list((tmp_path / "taken").iterdir()) == []
    with pytest.raises(ContractError, match="parent directory does not exist"):
        copy_demo(tmp_path / "missing" / "demo")
    assert not (tmp_path / "missing").exists()
