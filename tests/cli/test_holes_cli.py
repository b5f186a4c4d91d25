"""The CLI on a protocol with imported partial labels: score refuses, validate reports, judge
refuses bad hole orders before writing, grow adds documents and queries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomli_w

from tests.cli.helpers import assert_one_line_error, run_cli
from tests.partial_protocol import write_partial_protocol


@pytest.fixture()
def partial(tmp_path: Path) -> Path:
    return write_partial_protocol(tmp_path / "help-docs")


def files_of(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_score_refuses_holes_with_the_count_and_the_command(partial: Path) -> None:
    assert_one_line_error(
        run_cli("score", partial),
        "qrels.toml",
        "5 of 9 pairs are unjudged",
        "never read as 0",
        f"rankeval-tui judge {partial}",
        "'q:1001'",
        "'msmarco_v2.1_doc_00_12345'",
    )


def test_validate_reports_holes_per_query_and_the_next_command(partial: Path) -> None:
    result = run_cli("validate", partial)
    assert result.returncode == 2, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "ok: protocol help-docs: 3 documents, 3 queries"
    assert lines[1].startswith("ok: run bm25 (")
    assert lines[2:] == [
        "holes: 5 of 9 pairs unjudged in 3 of 3 queries (never read as 0):",
        "  'q:1001': 1 of 3 unjudged",
        "  'q:1002': 2 of 3 unjudged",
        "  'q:1003': 2 of 3 unjudged",
        f"next: rankeval-tui judge {partial}",
    ]


def test_validate_lists_several_problems_then_a_count(partial: Path) -> None:
    runs = partial / "runs"
    for name in ("a", "b", "c"):
        (runs / f"{name}.json").write_text(json.dumps({"q:1001": ["docs/export.md", "docs/export.md"]}))
    (runs / "d.json").write_text(json.dumps({"q:9999": []}))
    result = run_cli("validate", partial)
    errors = [line for line in result.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 4 and all("duplicate document ID" in e for e in errors[:3]) and "q:9999" in errors[3]
    limited = run_cli("validate", partial, "--max-problems", "2").stdout.splitlines()
    errors = [line for line in limited if line.startswith("error: ")]
    assert len(errors) == 3 and errors[-1] == "error: ... and 2 more problems (4 in all)"
    assert "next: rankeval-tui judge" in limited[-1]  # the holes are still reported


def test_judge_refusals_write_nothing(partial: Path) -> None:
    before = files_of(partial)
    assert_one_line_error(run_cli("judge", partial, "--run", partial / "runs" / "bm25.json"), "--holes-first only")
    (partial / "runs" / "bad.json").write_text(json.dumps({"q:1001": ["docs/nowhere.md"]}))
    assert_one_line_error(
        run_cli("judge", partial, "--holes-first", "top-k"), "bad.json", "'docs/nowhere.md'", "rankeval-tui grow"
    )
    (partial / "runs" / "bad.json").unlink()
    assert files_of(partial) == before  # no journal, no lock


def write_additions(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "new-docs.toml"
    corpus.write_text(
        tomli_w.dumps({"documents": {"docs/sso-setup.md": {"text": "Set up SSO under Settings > Security."}}})
    )
    queries = tmp_path / "new-queries.toml"
    queries.write_text(tomli_w.dumps({"queries": {"q:1004": {"text": "configure sso", "split": "test"}}}))
    return corpus, queries


def test_grow_adds_documents_and_queries_and_validate_shows_the_new_holes(partial: Path, tmp_path: Path) -> None:
    corpus, queries = write_additions(tmp_path)
    result = run_cli("grow", partial, "--corpus", corpus, "--queries", queries)
    assert result.returncode == 0, result.stderr
    assert "+1 documents, +1 queries" in result.stdout and "7 new pairs are holes" in result.stdout
    assert result.stdout.splitlines()[-1] == f"next: rankeval-tui judge {partial}"
    report = run_cli("validate", partial).stdout
    assert "holes: 12 of 16 pairs unjudged in 4 of 4 queries" in report and "'q:1004': 4 of 4 unjudged" in report
    again = run_cli("grow", partial, "--corpus", corpus, "--queries", queries)  # nothing new the second time
    assert again.returncode == 0 and "nothing new" in again.stdout


def test_grow_with_a_run_adds_its_unknown_documents(partial: Path, tmp_path: Path) -> None:
    corpus, _ = write_additions(tmp_path)
    run = tmp_path / "dense.json"
    run.write_text(json.dumps({"q:1002": ["docs/sso-setup.md", "docs/login.md"]}))
    refused = run_cli("validate", partial, "--run", run)
    assert f"rankeval-tui grow {partial} --run {run} --corpus CORPUS" in refused.stdout
    result = run_cli("grow", partial, "--run", run, "--corpus", corpus)
    assert result.returncode == 0, result.stderr
    assert "+1 documents, +0 queries" in result.stdout
    assert "error" not in run_cli("validate", partial, "--run", run).stdout


@pytest.mark.parametrize(
    "args, fragments",
    [
        ((), ["nothing to add"]),
        (("--run", "runs/bm25.json"), ["--run needs --corpus"]),
        (("--corpus", "BAD"), ["bad-docs.toml", "'docs/a b.md'", "whitespace"]),
        (("--corpus", "CHANGED"), ["changed.toml", "'docs/export.md'", "another text"]),
    ],
)
def test_grow_failures_are_one_line_and_write_nothing(partial: Path, tmp_path: Path, args, fragments) -> None:
    bad = tmp_path / "bad-docs.toml"
    bad.write_text(tomli_w.dumps({"documents": {"docs/a b.md": {"text": "spaces in an ID"}}}))
    changed = tmp_path / "changed.toml"
    changed.write_text(tomli_w.dumps({"documents": {"docs/export.md": {"text": "rewritten"}}}))
    args = tuple(str(bad) if a == "BAD" else str(changed) if a == "CHANGED" else a for a in args)
    before = files_of(partial)
    assert_one_line_error(run_cli("grow", partial, *args), *fragments)
    assert files_of(partial) == before
