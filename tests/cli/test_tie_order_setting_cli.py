"""``init --tie-order score`` records trec_eval's order in protocol.toml: ``score`` then orders TREC
runs so without ``--score-order``, says so, accepts a constant rank column, and warns of nothing;
under the default order the one warning line names the queries whose value changes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import assert_one_line_error, run_cli

# q1: d2 and d1 tie in score; trec_eval puts d2 (document ID descending) first, the rank column d1.
RUN = "q1 Q0 d1 1 5.0 r\nq1 Q0 d2 2 5.0 r\nq2 Q0 d1 1 2.0 r\nq2 Q0 d2 2 1.0 r\n"
CONSTANT_RANKS = "q1 Q0 d1 0 5.0 r\nq1 Q0 d2 0 5.0 r\nq2 Q0 d1 0 2.0 r\nq2 Q0 d2 0 1.0 r\n"


def make(tmp_path: Path, *options: str) -> Path:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "qrels.txt").write_text("q1 0 d1 0\nq1 0 d2 1\nq2 0 d1 1\nq2 0 d2 0\n")
    (tmp_path / "r.trec").write_text(RUN)
    (tmp_path / "constant.trec").write_text(CONSTANT_RANKS)
    made = run_cli(
        "init", tmp_path / "p", "--qrels", tmp_path / "qrels.txt", "--run", tmp_path / "r.trec", "--k", "2", *options
    )
    assert made.returncode == 0, made.stderr
    return tmp_path / "p"


def rr(result) -> dict[str, str]:
    assert result.returncode == 0, result.stderr
    return {row["query"]: row["rr"] for row in json.loads(result.stdout)["runs"]["r"]["rows"]}


def test_the_recorded_order_is_honoured_stated_and_warns_of_nothing(tmp_path):
    protocol = make(tmp_path, "--tie-order", "score")
    assert 'tie_order = "score"' in (protocol / "protocol.toml").read_text()
    result = run_cli("score", protocol, "--format", "json")
    assert rr(result) == {"q1": "1", "q2": "1"}
    assert json.loads(result.stdout)["protocol"]["tie_order"] == "score"
    assert "warning" not in result.stderr
    assert "tie order: score" in run_cli("score", protocol).stdout


def test_a_constant_rank_column_is_read_when_ordering_by_score(tmp_path):
    protocol = make(tmp_path, "--tie-order", "score")
    constant = tmp_path / "constant.trec"
    assert rr(run_cli("score", protocol, "--run", f"r={constant}", "--format", "json")) == {"q1": "1", "q2": "1"}
    by_rank = make(tmp_path / "b")  # the default order reads the rank column, which clashes
    assert_one_line_error(run_cli("score", by_rank, "--run", f"r={constant}"), "rank clash", "line 2")
    assert rr(run_cli("score", by_rank, "--run", f"r={constant}", "--score-order", "--format", "json"))["q1"] == "1"


def test_under_the_rank_order_one_warning_line_names_the_changed_queries(tmp_path):
    protocol = make(tmp_path)
    result = run_cli("score", protocol, "--format", "json")
    assert rr(result) == {"q1": "1/2", "q2": "1"}
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "1 of them change a value at k=2 (query 'q1')" in warnings[0], warnings


def test_init_proposes_the_setting_when_a_runs_rank_column_disagrees_with_its_scores(tmp_path):
    """q1's rank column puts d1 first where trec_eval's score order puts d2: init says so and how
    to record trec_eval's order; with --tie-order score it has nothing to propose."""
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "qrels.txt").write_text("q1 0 d1 0\nq1 0 d2 1\nq2 0 d1 1\nq2 0 d2 0\n")
    (tmp_path / "r.trec").write_text(RUN)
    made = run_cli("init", tmp_path / "p", "--qrels", tmp_path / "qrels.txt", "--run", tmp_path / "r.trec", "--k", "2")
    assert made.returncode == 0, made.stderr
    proposals = [line for line in made.stdout.splitlines() if "--tie-order score" in line]
    assert proposals == [
        "notice: run 'r': 1 query ordered otherwise by trec_eval (by score, ties by document ID); "
        "init --tie-order score records trec_eval's order in the protocol"
    ]
    recorded = run_cli(
        "init", tmp_path / "q", "--qrels", tmp_path / "qrels.txt", "--run", tmp_path / "r.trec", "--k", "2",
        "--tie-order", "score",
    )  # fmt: skip
    assert recorded.returncode == 0 and "--tie-order score" not in recorded.stdout + recorded.stderr


def test_a_placeholder_rank_column_is_read_when_ordering_by_score(tmp_path):
    """trec_eval never reads the rank column: ordered by score, ``-`` there stands (the same
    rows as the ranked run); ordered by rank it is still one error line."""
    protocol = make(tmp_path, "--tie-order", "score")
    placeholder = tmp_path / "placeholder.trec"
    placeholder.write_text(RUN.replace(" 1 ", " - ").replace(" 2 ", " - "))
    assert " - " in placeholder.read_text()
    assert rr(run_cli("score", protocol, "--run", f"r={placeholder}", "--format", "json")) == {"q1": "1", "q2": "1"}
    by_rank = make(tmp_path / "b")
    assert_one_line_error(run_cli("score", by_rank, "--run", f"r={placeholder}"), "rank must be an integer", "line 1")
