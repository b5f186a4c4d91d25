"""rankeval_tui.api: the CLI's objects and numbers, reached from Python."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from rankeval_tui import api
from rankeval_tui.core.evaluation import compare as compare_module
from rankeval_tui.core.evaluation import evaluate as evaluate_module
from rankeval_tui.core.evaluation.delta_bounds import verdict_text
from tests.cli.test_pools_cli import make
from tests.cli.test_report_json import schema
from tests.schema_check import validate

RUNS = api.DEMO_PROTOCOL / "runs"


def test_the_api_returns_the_cli_json() -> None:
    """Same protocol, runs and settings: the dict equals what ``score --format json`` prints."""
    protocol = api.load_protocol()
    reports = [
        api.evaluate(protocol, api.load_run(RUNS / f"{n}.json"), ["R", "AP"]) for n in ("fixture_A", "fixture_B")
    ]
    stats = api.statistics(api.compare_all(reports, "fixture_A"))
    data = api.report_json(protocol, reports, baseline="fixture_A", statistics=stats)  # as the CLI below
    validate(data, schema())
    cli = subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "score", "--run", "runs/fixture_A.json", "--run", "runs/fixture_B.json",
         "--metrics", "R,AP", "--baseline", "fixture_A", "--format", "json"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    cli_data = json.loads(cli)
    cli_data["protocol"].pop("adjudicated_queries")  # the CLI reads the qrels file's [adjudication] table too
    assert data == cli_data


def test_the_api_is_the_core_evaluator() -> None:
    protocol = api.load_protocol()
    run = api.load_run(RUNS / "fixture_B.json")
    assert api.evaluate(protocol, run, ["nDCG@2", "P"]) == evaluate_module.evaluate(protocol, run, ["ndcg", "p"])
    assert api.compare is compare_module.compare and api.Report is evaluate_module.Report  # re-exported, not wrapped


def test_k_and_split_overrides_and_cutoff_check() -> None:
    protocol = api.load_protocol(k=3)
    assert protocol.k == 3 and not protocol.protocol_sha256.startswith("9dd1a576")
    with pytest.raises(api.ContractError, match="cutoff 2 is not the protocol's k"):
        api.evaluate(protocol, api.load_run(RUNS / "fixture_A.json"), ["nDCG@2"])
    with pytest.raises(api.ContractError, match="unknown metric"):
        api.evaluate(protocol, api.load_run(RUNS / "fixture_A.json"), ["nDGC"])


def test_rows_exact_and_float() -> None:
    report = api.evaluate(api.load_protocol(), api.load_run(RUNS / "fixture_A.json"), ["RR", "Success"])
    exact = api.rows(report, exact=True)
    assert [r["RR@2"] for r in exact] == [Fraction(1), Fraction(1, 2), Fraction(0), None]
    assert [r["Success@2"] for r in api.rows(report)] == [1.0, 1.0, 0.0, None]
    assert [r["missing"] for r in exact] == [False, False, True, False]
    assert api.mean_rows([report], exact=True) == [
        {"run": "fixture_A", "eligible_queries": 3, "total_queries": 4, "missing_queries": 1,
         "RR@2": Fraction(1, 2), "Success@2": Fraction(2, 3)}
    ]  # fmt: skip


def test_change_bounds_is_the_cli_comparison_on_a_gap(tmp_path: Path) -> None:
    directory = make(tmp_path)
    protocol = api.load_protocol(directory)
    bm25 = api.load_run(directory / "runs" / "bm25.trec")
    change = api.change_bounds(protocol, bm25, api.load_run(tmp_path / "dense.trec"), ["R@2", "RR@2"])
    assert (change.mean("rr").low, change.mean("rr").high) == (Fraction(-3, 4), Fraction(0))
    assert verdict_text(change.mean("rr"), change.unjudged_pairs) == "undecided (2 unjudged pairs can change it)"


def test_agreement_and_rankings_under_labels_are_agrees(tmp_path) -> None:
    from tests.cli.helpers import run_cli

    seed = api.DEMO_PROTOCOL
    labels = (seed / "qrels.toml").read_text(encoding="utf-8")
    alice = tmp_path / "alice.toml"
    alice.write_text(labels, encoding="utf-8")
    bob = tmp_path / "bob.toml"
    bob.write_text(labels.replace("[qrels.q3]\nd1 = 0\nd2 = 0", "[qrels.q3]\nd1 = 0\nd2 = 1"), encoding="utf-8")
    result = api.agreement(seed, alice, bob)
    cli = json.loads(run_cli("agree", seed, alice, bob, "--runs", "--format", "json").stdout)
    assert {"protocol": "help-docs-zh", **result.to_json()} == {k: v for k, v in cli.items() if k != "rankings"}
    assert result.overall.pairs == 30 and len(result.disagreements) == 1
    runs = [api.load_run(seed / "runs" / f"{name}.json") for name in ("all_empty", "fixture_A", "fixture_B")]
    rankings = api.rankings_under_labels(seed, alice, bob, runs)
    assert rankings.to_json() == cli["rankings"]
