"""A team on one protocol through the real CLI: ``assign``, ``status``, then ``merge`` and
``agree`` on the annotators' labels files (judged here through the same
session ``judge --annotator`` opens; the screen's part is tests/tui/test_judge_team.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankeval_tui.core.annotation.assignment import AnnotatorSession, labels_path, read_assignment
from rankeval_tui.core.files import load_definition, read_qrels_file
from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.cli.helpers import assert_one_line_error, run_cli
from tests.seed_labels import SEED_QRELS

TEAM = ("assign", "--annotators", "alice,bob,carol", "--overlap", "0.3", "--seed", "7")


def assign(protocol: Path, *extra: str):
    return run_cli(TEAM[0], protocol, *TEAM[1:], *extra)


def judge_as(protocol: Path, name: str, count: int | None = None, flip: tuple[str, str] | None = None) -> None:
    """``name`` judges ``count`` of their pairs (all by default) with the seed's labels, ``flip``
    given the other label, and ends the session as ``judge`` does when the screen closes."""
    definition = load_definition(protocol)
    queries = read_assignment(protocol, definition).queries[name]
    session = AnnotatorSession.open(definition.with_queries(queries), labels_path(protocol, name), annotator=name)
    pairs = [(q, d) for q in queries for d in definition.documents_of(q)]
    for query, doc in pairs[:count]:
        session.goto(query, doc)
        label = SEED_QRELS[query][doc]
        session.label(1 - label if (query, doc) == flip else label)
    session.finish()


@pytest.fixture()
def team(blank: Path) -> Path:
    result = assign(blank)
    assert result.returncode == 0, result.stderr
    return blank


def test_assign_balances_pairs_shares_the_overlap_and_is_reproducible(team: Path) -> None:
    text = (team / "assignments.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    assert data["assignment"]["seed"] == 7 and data["assignment"]["overlap"] == 0.3
    shared = data["assignment"]["overlap_queries"]
    assert len(shared) == 2  # 0.3 of 5 queries, rounded
    given = {name: row["queries"] for name, row in data["annotators"].items()}
    every = [q for queries in given.values() for q in queries]
    assert sorted(set(every)) == ["q1", "q2", "q3", "q4", "q5"]  # every query judged
    assert all(every.count(q) == (2 if q in shared else 1) for q in set(every))
    pairs = [row["pairs"] for row in data["annotators"].values()]
    assert sum(pairs) == 6 * 7 and max(pairs) - min(pairs) <= 6  # one query of 6 pairs apart at most
    again = assign(team)
    assert again.returncode == 0
    assert (team / "assignments.toml").read_text(encoding="utf-8") == text
    assert (team / "labels").is_dir()


def test_a_different_assignment_is_refused_without_force_and_never_strands_labels(team: Path) -> None:
    before = (team / "assignments.toml").read_bytes()
    assert_one_line_error(assign(team, "--seed", "8"), "assignments.toml", "--force")
    assert (team / "assignments.toml").read_bytes() == before
    judge_as(team, "alice", count=3)  # alice has labels (and an open journal) on her queries
    refused = run_cli("assign", team, "--annotators", "bob,carol", "--seed", "7", "--force")
    assert_one_line_error(refused, "alice", "in progress")
    assert (team / "assignments.toml").read_bytes() == before
    assert read_qrels_file(labels_path(team, "alice"), load_definition(team), exhaustive=False).labels


@pytest.mark.parametrize(
    "names, rule",
    [("alice,alice", "twice"), ("alice,b\x1bob", "control character"), ("alice,../x", "plain file name")],
)
def test_annotator_names_are_checked_like_ids(blank: Path, names: str, rule: str) -> None:
    result = run_cli("assign", blank, "--annotators", names, "--seed", "1")
    assert_one_line_error(result, rule)
    assert not (blank / "assignments.toml").exists()


def test_status_follows_each_annotator_and_merge_and_agree_work_on_the_result(team: Path) -> None:
    judge_as(team, "alice", count=4)
    partial = read_qrels_file(labels_path(team, "alice"), load_definition(team), exhaustive=False)
    assert partial.provenance["partial"] is True and partial.provenance["annotator"] == "alice"
    assert sum(map(len, partial.labels.values())) == 4
    status = run_cli("status", team, "--format", "json")
    assert status.returncode == 0, status.stderr
    rows = {row["annotator"]: row for row in json.loads(status.stdout)["annotators"]}
    assert (rows["alice"]["judged_pairs"], rows["alice"]["assigned_pairs"], rows["alice"]["state"]) == (
        4,
        18,
        "in progress",
    )
    assert rows["bob"]["judged_pairs"] == 0 and rows["bob"]["state"] == "not started"
    table = run_cli("status", team)
    assert "4 / 18" in table.stdout and "alice" in table.stdout

    judge_as(team, "alice")  # resumes her journal and finishes her queries
    shared = read_assignment(team, load_definition(team)).overlap_queries
    flipped = ("q3", "d2") if "q3" in shared else (shared[0], "d1")
    judge_as(team, "bob", flip=flipped)
    judge_as(team, "carol")
    done = {
        row["annotator"]: row for row in json.loads(run_cli("status", team, "--format", "json").stdout)["annotators"]
    }
    assert all(row["state"] == "done" and row["judged_pairs"] == row["assigned_pairs"] for row in done.values())

    labels = [labels_path(team, name) for name in ("alice", "bob", "carol")]
    merged = run_cli("merge", team, *labels, "-o", team / "merged.toml")
    assert_one_line_error(merged, "1 conflicting pair", flipped[1])  # bob disagrees on the overlap
    assert not (team / "merged.toml").exists()

    owner = next(
        name for name in ("alice", "carol") if flipped[0] in read_assignment(team, load_definition(team)).queries[name]
    )
    agree = run_cli("agree", team, labels_path(team, owner), labels_path(team, "bob"), "--format", "json")
    assert agree.returncode == 0, agree.stderr
    result = json.loads(agree.stdout)
    given = read_assignment(team, load_definition(team)).queries
    overlap_pairs = 6 * len(set(given[owner]) & set(given["bob"]))
    assert result["pairs"] == result["coverage"]["overlap"] == overlap_pairs  # both files say they are partial
    assert result["coverage"]["partial"] == [True, True]
    assert [(d["query"], d["document"]) for d in result["disagreements"]] == [flipped]


def test_merge_of_agreeing_labels_files_is_the_whole_protocol(team: Path) -> None:
    for name in ("alice", "bob", "carol"):
        judge_as(team, name)
    labels = [labels_path(team, name) for name in ("alice", "bob", "carol")]
    merged = run_cli("merge", team, *labels, "-o", team / "qrels.toml", "--force")
    assert merged.returncode == 0, merged.stderr
    assert read_qrels_file(team / "qrels.toml", load_definition(team)).labels == SEED_QRELS


def test_status_without_an_assignment_names_the_assign_command(blank: Path) -> None:
    assert_one_line_error(run_cli("status", blank), "no assignment", "rankeval-tui assign")


@pytest.mark.parametrize(
    "extra, fragments",
    [
        (("--annotator", "dave"), ("assignments.toml", "'dave' has no assignment", "alice, bob, carol")),
        (("--annotator", "alice", "--qrels", "x.toml"), ("labels/NAME.toml", "--qrels does not apply")),
        (("--annotator", "al\x1bice"), ("annotator ID", "control character")),
    ],
)
def test_judge_refuses_an_annotator_outside_the_assignment_before_any_file(team: Path, extra, fragments) -> None:
    assert_one_line_error(run_cli("judge", team, *extra), *fragments)
    assert sorted(p.name for p in (team / "labels").iterdir()) == []


def test_judge_holes_first_reads_runs_against_the_whole_protocol(team: Path) -> None:
    """An annotator's top-k holes come from runs over every query: only the terminal is missing here."""
    result = run_cli("judge", team, "--annotator", "carol", "--holes-first", "top-k")
    assert_one_line_error(result, "needs a terminal")
    assert sorted(p.name for p in (team / "labels").iterdir()) == []


def test_more_annotators_than_queries_leaves_some_without_work_and_says_so(blank: Path) -> None:
    names = "a1,a2,a3,a4,a5,a6,a7"
    assert run_cli("assign", blank, "--annotators", names, "--seed", "3").returncode == 0
    rows = json.loads(run_cli("status", blank, "--format", "json").stdout)["annotators"]
    assert sorted(row["assigned_pairs"] for row in rows) == [0, 0, 6, 6, 6, 6, 6]
    idle = next(row["annotator"] for row in rows if row["assigned_pairs"] == 0)
    assert next(row["state"] for row in rows if row["annotator"] == idle) == "no queries"
    assert_one_line_error(run_cli("judge", blank, "--annotator", idle), idle, "has no queries")


def test_judge_decide_is_not_for_an_assigned_annotator(team: Path) -> None:
    result = run_cli("judge", team, "--annotator", "alice", "--decide", "fixture_A", "fixture_B")
    assert_one_line_error(result, "--decide", "assigned --annotator")
    assert sorted(p.name for p in (team / "labels").iterdir()) == []
