"""``score --metrics``, ``--fractions`` and the gates over every metric, through the real CLI."""

from __future__ import annotations

import json

import pytest

from tests.cli.helpers import REPO, assert_one_line_error, run_cli

SEED = REPO / "protocols" / "help-docs-zh"
A, B = "runs/fixture_A.json", "runs/fixture_B.json"


def lines_starting(text: str, prefix: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(prefix)]


def test_chosen_metrics_are_the_columns_and_means() -> None:
    result = run_cli("score", SEED, "--run", A, "--metrics", "P@2,nDCG@2", "--metrics", "Success")
    assert result.returncode == 0, result.stderr
    header = lines_starting(result.stdout, "query ")[0]
    assert header.split()[-3:] == ["P@2", "nDCG@2", "Success@2"] and "Recall@2" not in header
    q2 = lines_starting(result.stdout, "q2 ")[0]
    assert q2.split()[-3:] == ["0.5000", "0.6131", "1.0000"]  # nDCG = 1 / (1 + 1/log2 3)
    assert "mean P@2 = 0.3333   nDCG@2 = 0.4147   Success@2 = 0.6667   over 3 eligible of 4 queries" in result.stdout


def test_default_text_is_decimal_and_fractions_on_request() -> None:
    plain = run_cli("score", SEED, "--run", A, "--run", B).stdout
    assert "mean Recall@2 = 0.8333   MRR@2 = 0.8333" in plain and "5/6" not in plain
    assert "MRR@2: mean delta +0.3333; win/tie/loss 2/0/1; worse on: q2" in plain
    exact = run_cli("score", SEED, "--run", A, "--run", B, "--fractions", "--metrics", "R,nDCG").stdout
    assert "mean Recall@2 = 5/6 (0.8333)   nDCG@2 = 3892789260713/4892789260713 (0.7956)" in exact


def test_markdown_shows_every_chosen_metric() -> None:
    result = run_cli("score", SEED, "--run", B, "--format", "markdown", "--metrics", "AP,RR")
    assert "| query | status | returned | relevant | hits | first rel. rank | AP@2 | RR@2 |" in result.stdout
    assert "| q2 | ok | 3 | 2 | 1 | 2 | 0.2500 | 0.5000 |" in result.stdout


def test_json_measures_of_every_metric() -> None:
    result = run_cli("score", SEED, "--run", A, "--metrics", "R,RR,P,Success,AP,nDCG", "--format", "json")
    measures = json.loads(result.stdout)["runs"]["fixture_A"]["measures"]
    means = {metric: measure["mean"] for metric, measure in measures.items()}
    assert means == {
        "recall": "1/2",
        "rr": "1/2",
        "p": "1/3",
        "success": "2/3",
        "ap": "1/3",
        "ndcg": "2029002107512162787252041/4892789260713000000000000",
    }
    assert [v["value"] for v in measures["ndcg"]["per_query"]] == [
        "1000000000000/1630929753571",
        "630929753571/1000000000000",
        "0",
        None,
    ]


@pytest.mark.parametrize(
    "args, fragments",
    [
        (["--metrics", "nDCG@10"], ["metric 'nDCG@10'", "cutoff 10 is above k (2): a cutoff is at most k", "--k 10"]),
        (["--metrics", "nDCG@3", "--k", "3", "--fail-under", "P@2=0.1"], ["metric 'P@2'", "k (3)"]),
        (["--metrics", "R,ndgc"], ["unknown metric 'ndgc'", "nDCG"]),
        (["--metrics", "P@0"], ["cutoff after @"]),
        (["--fail-under", "nDCG@2=2"], ["between 0 and 1"]),
    ],
)
def test_bad_metric_options(args: list[str], fragments: list[str]) -> None:
    assert_one_line_error(run_cli("score", SEED, "--run", A, *args), *fragments)


def test_metrics_with_k_override_name_the_new_cutoff() -> None:
    result = run_cli("score", SEED, "--run", A, "--k", "3", "--metrics", "nDCG@3,P", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [m["name"] for m in data["metrics"].values()] == ["nDCG@3", "P@3"]


@pytest.mark.parametrize(
    "gate, code", [("nDCG@2=0.41", 0), ("nDCG@2=0.42", 1), ("Success=2/3", 0), ("P@2=0.34", 1), ("mrr=1/2", 0)]
)
def test_fail_under_any_metric(gate: str, code: int) -> None:
    result = run_cli("score", SEED, "--run", A, "--fail-under", gate, "--format", "json")
    assert result.returncode == code, result.stderr
    data = json.loads(result.stdout)
    name = gate.partition("=")[0]
    assert name.split("@")[0] in {m["name"].split("@")[0] for m in data["metrics"].values()} | {"mrr"}
    if code:
        assert f"gate failed: run 'fixture_A' {name} = " in result.stderr


def test_gate_metric_is_computed_and_shown_beside_the_chosen_ones() -> None:
    result = run_cli("score", SEED, "--run", A, "--fail-under", "nDCG=0.5")
    assert result.returncode == 1
    assert "gate failed: run 'fixture_A' nDCG = 2029002107512162787252041/4892789260713000000000000 (0.4147)" in (
        result.stderr
    )
    assert lines_starting(result.stdout, "query ")[0].split()[-3:] == ["Recall@2", "RR@2", "nDCG@2"]


def test_regression_gate_weighs_every_chosen_metric() -> None:
    """fixture_B vs fixture_A: q2's nDCG@2 falls by 0.2263, its Recall@2 not at all."""
    base = ("score", SEED, "--run", A, "--run", B, "--fail-on-regression", "--max-query-drop", "0.2")
    recall = run_cli(*base, "--metrics", "R")
    assert recall.returncode == 0, recall.stderr
    ndcg = run_cli(*base, "--metrics", "R,nDCG")
    assert ndcg.returncode == 1
    reasons = lines_starting(ndcg.stderr, "regression:")
    assert len(reasons) == 1
    assert "'fixture_B' nDCG@k on query 'q2' dropped by 369070246429/1630929753571 (0.2263)" in reasons[0]
    assert "nDCG@2: n = 3; sign-flip p = 0.5000 (exact, 8 assignments)" in ndcg.stdout


def test_inspect_checks_metric_names_before_the_app_opens() -> None:
    assert_one_line_error(
        run_cli("inspect", SEED, "--metrics", "nDCG@5"), "cutoff 5 is above k (2): a cutoff is at most k"
    )
    assert_one_line_error(run_cli("inspect", SEED, "--metrics", "nDGC"), "unknown metric 'nDGC'")


HUGE = "9" * 5000


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--metrics", "P@²"], "metric 'P@²': the cutoff after @ must be an integer >= 1 (ASCII digits"),
        (["--metrics", "P@٢"], "metric 'P@٢': the cutoff after @"),
        (["--metrics", "P@２"], "metric 'P@２': the cutoff after @"),
        (["--fail-under", "P@٢=0.5"], "the cutoff after @"),
        (["--fail-under", "P@2=٠.٥"], "threshold must be a number like 0.6 or 3/5, got '٠.٥'"),
        (["--alpha", "٠.٠٥"], "expected a number like 0.05 or 1/20, got '٠.٠٥'"),
        (["--k", "٢"], "expected an integer in ASCII digits, got '٢'"),
        (["--k", "２"], "expected an integer in ASCII digits, got '２'"),
        (["--metrics", f"P@{HUGE}"], "(5002 characters): the cutoff after @"),
        (["--fail-under", f"P@{HUGE}=0.5"], "(5002 characters): the cutoff after @"),
        (["--fail-under", f"P@2=0.{HUGE}"], "threshold must be a number like 0.6 or 3/5"),
        (["--k", HUGE], "expected an integer in ASCII digits, got '9999"),
        (["--samples", HUGE], "expected an integer >= 1, got '9999"),
    ],
)
def test_numbers_in_arguments_are_ascii_digits_and_said_in_one_short_line(args: list[str], fragment: str) -> None:
    """``int`` and ``Fraction`` read other scripts' digits (``٢``, ``２``, ``٠.٥``) as numbers,
    ``str.isdigit`` holds for ``²`` (then ``int`` failed with its own words): the TREC readers
    refuse all of them, so every argument does; a 5,000-digit number is one short line."""
    line = assert_one_line_error(run_cli("score", SEED, "--run", A, *args), fragment)
    assert len(line) < 400, len(line)
