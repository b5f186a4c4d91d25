"""``score --bounds --baseline A``: the change's exact ranges and verdicts, and the regression gate
decided on them (0 every labelling passes, 1 every labelling fails, 3 undecided)."""

from __future__ import annotations

import json
import shlex

import pytest

from tests.cli.helpers import assert_one_line_error, run_cli
from tests.cli.test_pools_cli import make

# bm25 (the protocol's run) judged everywhere; these add unjudged top-2 pairs.
BETTER = "q:1001 Q0 docs/export.md 1 2 better\nq:1001 Q0 docs/new.md 2 1 better\n" + (
    "q:1002 Q0 docs/a.md 1 2 better\nq:1002 Q0 docs/other.md 2 1 better\n"
)
WORSE = "q:1001 Q0 docs/export.md 1 2 worse\nq:1002 Q0 msmarco_v2.1_doc_00_12345 1 2 worse\n" + (
    "q:1002 Q0 docs/other.md 2 1 worse\n"
)


def runs(tmp_path):
    (tmp_path / "better.trec").write_text(BETTER)
    (tmp_path / "worse.trec").write_text(WORSE)
    return tmp_path / "p" / "runs" / "bm25.trec"


def score(directory, *args):
    return run_cli("score", directory, "--bounds", "--baseline", "bm25", "--metrics", "R@2,RR@2", *args)


def test_change_ranges_and_verdicts(tmp_path):
    directory = make(tmp_path)
    bm25 = runs(tmp_path)
    result = score(directory, "--run", bm25, "--run", tmp_path / "dense.trec", "--fractions")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # q:1001: docs/new.md unjudged at dense's rank 1; q:1002: docs/other.md at rank 1, docs/a.md gone.
    assert "change dense - bm25: BOUNDS over every 0/1 labelling of 2 unjudged top-2 pairs" in out
    assert "mean change Recall@2 = [-1/2, +1/4]: undecided (2 unjudged pairs can change it)" in out
    assert "mean change MRR@2 = [-3/4, 0]: undecided (2 unjudged pairs can change it)" in out
    data = json.loads(score(directory, "--run", bm25, "--run", tmp_path / "dense.trec", "--format", "json").stdout)
    rr = data["delta_bounds"]["dense"]["measures"]["rr"]
    assert rr["mean_delta"]["delta_low"] == "-3/4" and rr["mean_delta"]["delta_high"] == "0"
    assert rr["per_query_delta"][1] == {
        "query": "q:1002",
        "unjudged": ["docs/other.md"],
        "delta_low": "-1",
        "delta_low_decimal": -1.0,
        "delta_high": "0",
        "delta_high_decimal": 0.0,
        "excluded_possible": False,
        "verdict": "undecided (1 unjudged pair can change it)",
    }
    plain = run_cli("score", directory, "--run", bm25, "--run", tmp_path / "dense.trec", "--bounds")
    assert plain.returncode == 0 and "change" not in plain.stdout  # no baseline asked: no comparison


def test_gate_on_a_gap_passes_fails_or_is_undecided(tmp_path):
    directory = make(tmp_path)
    bm25 = runs(tmp_path)
    better = score(directory, "--run", bm25, "--run", tmp_path / "better.trec", "--fail-on-regression")
    assert better.returncode == 0, better.stderr  # Recall can only rise, RR stays: every labelling passes
    assert "mean change MRR@2 = 0: decided no change" in better.stdout
    assert "mean change Recall@2 = [0, +0.5000]: undecided (2 unjudged pairs can change it)" in better.stdout
    worse = score(
        directory, "--run", bm25, "--run", tmp_path / "worse.trec", "--fail-on-regression", "--max-query-drop", "0.4"
    )
    assert worse.returncode == 1, worse.stderr  # q:1002's RR drops by 1/2 or 1 under every labelling
    assert "RR@2 on query 'q:1002' drops by at least 1/2 (0.5000) under every labelling" in worse.stderr
    undecided = score(directory, "--run", bm25, "--run", tmp_path / "dense.trec", "--fail-on-regression")
    assert undecided.returncode == 3, undecided.stderr
    last = undecided.stderr.strip().splitlines()[-1]
    assert last.startswith("regression gate undecided: judging at most 2 unjudged pairs decides it: ")
    grow = last.split("decides it: ")[1].split(" && ")[0]
    assert run_cli(*shlex.split(grow)[1:]).returncode == 0  # the command it names runs


def test_statistics_options_are_refused_with_bounds(tmp_path):
    directory = make(tmp_path)
    refused = score(directory, "--run", runs(tmp_path), "--run", tmp_path / "dense.trec", "--test", "bootstrap")
    assert_one_line_error(refused, "--bounds prints ranges: no --fail-under")


def test_delta_bounds_json_follows_the_schema(tmp_path):
    from tests.cli.test_report_json import schema
    from tests.schema_check import SchemaError, validate

    directory = make(tmp_path)
    args = ("--run", runs(tmp_path), "--run", tmp_path / "dense.trec", "--run", tmp_path / "better.trec")
    data = json.loads(score(directory, *args, "--format", "json", "--metrics", "R@2,RR@2,AP@2").stdout)
    root = schema()
    validate(data["delta_bounds"], {"$ref": "#/$defs/delta_bounds"}, root)
    assert set(data["delta_bounds"]) == {"dense", "better"}
    data["delta_bounds"]["dense"]["measures"]["rr"]["mean_delta"]["verdict"] = "maybe"
    with pytest.raises(SchemaError):
        validate(data["delta_bounds"], {"$ref": "#/$defs/delta_bounds"}, root)
