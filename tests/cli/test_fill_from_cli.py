"""``score --fill-from``: only the pairs the protocol's qrels leave unjudged are taken from another
annotator's file, every output counts the filled top-k pairs per run and query and names the
source, and a gate passes on filled labels only with --allow-filled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from tests.cli.helpers import REPO, assert_one_line_error, run_cli
from tests.schema_check import validate

SCHEMA = json.loads((REPO / "rankeval_tui" / "schema" / "report.schema.json").read_text(encoding="utf-8"))
HOLES = {("q2", "d1"), ("q3", "d2"), ("q3", "d5")}
"""Pairs the protocol's qrels leave unjudged below: fixture_A ranks q2/d1 second, q3/d2 and q3/d5 first and second."""


def write(path: Path, labels: dict, provenance: dict | None = None) -> Path:
    path.write_text(tomli_w.dumps({"provenance": provenance, "qrels": labels} if provenance else {"qrels": labels}))
    return path


@pytest.fixture()
def holed(seed_copy) -> tuple[Path, dict, Path]:
    """The seed with three holes in its qrels, and a model's partial file that labels them (q3/d2
    relevant, unlike the seed) and contradicts a judged pair (q2/d3), which must not count."""
    labels = tomllib.loads((seed_copy / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    own = {q: {d: v for d, v in row.items() if (q, d) not in HOLES} for q, row in labels.items()}
    write(seed_copy / "qrels.toml", own)
    model = {"q2": {"d1": 0, "d3": 0}, "q3": {"d2": 1, "d5": 1}}
    fill = write(seed_copy.parent / "model.toml", model, {"annotator": "model:umbrela", "partial": True})
    merged = {q: dict(row) for q, row in own.items()}
    for q, d in HOLES:
        merged[q][d] = model[q][d]
    return seed_copy, merged, fill


def test_unjudged_pairs_are_still_refused_without_fill_from(holed):
    protocol, _, _ = holed
    assert_one_line_error(run_cli("score", protocol), "3 of 30 pairs are unjudged")


def test_fill_from_scores_as_the_merged_labels_and_counts_filled_pairs(holed, tmp_path):
    protocol, merged, fill = holed
    result = run_cli("score", protocol, "--fill-from", fill, "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    validate(data, SCHEMA)
    # The one evaluator on the protocol's labels with only the holes filled (q2/d3 stays 1, not the model's 0).
    reference = json.loads(
        run_cli("score", protocol, "--qrels", write(tmp_path / "merged.toml", merged), "--format", "json").stdout
    )
    assert data["runs"]["fixture_A"]["measures"] == reference["runs"]["fixture_A"]["measures"]
    assert data["protocol"]["protocol_sha256"] == reference["protocol"]["protocol_sha256"]
    assert data["filled"] == {
        "source": str(fill),
        "annotator": "model:umbrela",
        "annotator_kind": "model",  # a model marked as one in every output
        "filled_pairs": 3,
        "k": 2,
        "runs": {
            "all_empty": {"top_k_pairs": 0, "per_query": {}},
            "fixture_A": {"top_k_pairs": 3, "per_query": {"q2": 1, "q3": 2}},
            "fixture_B": {"top_k_pairs": 3, "per_query": {"q2": 1, "q3": 2}},
        },
    }


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_every_text_output_names_the_source_and_counts(holed, fmt):
    protocol, _, fill = holed
    out = run_cli("score", protocol, "--fill-from", fill, "--format", fmt).stdout
    assert f"filled from {fill} (model:umbrela (a model)): 3 pairs the protocol's qrels leave unjudged" in out
    assert "fixture_A: 3 filled top-2 pairs in 2 queries (q2 1, q3 2)" in out


def test_a_gate_passes_on_filled_labels_only_with_allow_filled(holed, tmp_path):
    protocol, _, fill = holed
    gate = ["--run", protocol / "runs" / "fixture_A.json", "--fail-under", "recall=0.1"]
    refused = run_cli("score", protocol, "--fill-from", fill, *gate)
    assert refused.returncode == 1
    assert "gate on filled labels: run 'fixture_A' has 3 top-2 pairs labeled from" in refused.stderr
    assert "pass --allow-filled to accept" in refused.stderr
    allowed = run_cli("score", protocol, "--fill-from", fill, "--allow-filled", *gate)
    assert allowed.returncode == 0, allowed.stderr
    summary = tmp_path / "summary.md"
    run_cli("score", protocol, "--fill-from", fill, *gate, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert "**Filled labels (--fill-from): failed**" in summary.read_text(encoding="utf-8")


def test_allow_filled_without_fill_from_is_a_usage_error(seed_copy):
    assert_one_line_error(run_cli("score", seed_copy, "--allow-filled"), "--allow-filled is for --fill-from")


def test_holes_the_fill_leaves_are_still_refused(holed):
    protocol, _, _ = holed
    partial_fill = write(protocol.parent / "some.toml", {"q2": {"d1": 0}}, {"partial": True})
    assert_one_line_error(run_cli("score", protocol, "--fill-from", partial_fill), "2 of 30 pairs are unjudged")


def test_fill_from_the_protocols_own_qrels_is_refused(seed_copy):
    result = run_cli("score", seed_copy, "--fill-from", seed_copy / "qrels.toml")
    assert_one_line_error(result, "--fill-from names the protocol's own qrels")
