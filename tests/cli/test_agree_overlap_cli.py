"""``agree`` on partial label files (a model's, a sample of a person's): compared on the overlap,
a model marked as one, JSON valid under agree.schema.json (both of its shapes)."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from tests.cli.helpers import REPO, assert_one_line_error, run_cli
from tests.schema_check import validate

SEED = REPO / "protocols" / "help-docs-zh"
SCHEMA = json.loads((REPO / "rankeval_tui" / "schema" / "agree.schema.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def labels() -> dict:
    return tomllib.loads((SEED / "qrels.toml").read_text(encoding="utf-8"))["qrels"]


def write(path: Path, labels: dict, provenance: dict | None = None) -> Path:
    data = {"provenance": provenance, "qrels": labels} if provenance else {"qrels": labels}
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


def model_file(tmp_path: Path, labels: dict) -> Path:
    """A model's partial labels for q1..q3, two of them flipped (q1/d1 and q3/d2)."""
    rows = {q: dict(labels[q]) for q in ("q1", "q2", "q3")}
    rows["q1"]["d1"] = 1 - rows["q1"]["d1"]
    rows["q3"]["d2"] = 1 - rows["q3"]["d2"]
    return write(tmp_path / "model.toml", rows, {"annotator": "model:umbrela", "partial": True})


def test_model_against_people_on_the_overlap_json(tmp_path, labels):
    result = run_cli("agree", SEED, model_file(tmp_path, labels), SEED / "qrels.toml", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    validate(data, SCHEMA)
    assert data["annotator_kinds"] == ["model", "person"]
    assert data["coverage"] == {
        "overlap": 18,
        "only_a": 0,
        "only_b": 12,
        "partial": [True, False],
        "protocol_pairs": 30,
    }
    assert data["pairs"] == 18 and data["agreements"] == 16
    assert set(data["per_query"]) == {"q1", "q2", "q3"}
    assert [d["document"] for d in data["disagreements"]] == ["d1", "d2"]
    assert data["scale"] == {"top": 1, "relevant_from": 1}
    # On the binary scale every weighting of kappa is Cohen's kappa.
    assert data["grades"]["linear_kappa"] == data["grades"]["quadratic_kappa"] == data["kappa"]


def test_model_is_marked_in_the_table(tmp_path, labels):
    result = run_cli("agree", SEED, model_file(tmp_path, labels), SEED / "qrels.toml")
    assert result.returncode == 0, result.stderr
    assert "A = model:umbrela (a model)" in result.stdout
    assert (
        "overlap 18 of 30 pairs judged in both (A partial); only in A 0, only in B 12 (not compared)" in result.stdout
    )


def test_two_partial_files_without_overlap_is_one_error_line(tmp_path, labels):
    a = write(tmp_path / "a.toml", {"q1": labels["q1"]}, {"partial": True})
    b = write(tmp_path / "b.toml", {"q2": labels["q2"]}, {"partial": True})
    assert_one_line_error(run_cli("agree", SEED, a, b), "no pair is judged in both files", "agreement needs an overlap")


def test_complete_files_json_valid_under_the_schema_and_unchanged_in_shape(tmp_path, labels):
    a = write(tmp_path / "a.toml", labels, {"annotators": ["alice"]})
    b = write(tmp_path / "b.toml", labels, {"annotators": ["bob"]})
    data = json.loads(run_cli("agree", SEED, a, b, "--format", "json").stdout)
    validate(data, SCHEMA)
    assert not {"annotator_kinds", "scale", "coverage", "grades"} & set(data)  # the output it always was


def test_imported_model_labels_agree_end_to_end(tmp_path, labels):
    lines = [f"{q} 0 {d} {v}\n" for q in ("q4", "q5") for d, v in labels[q].items()]
    (tmp_path / "m.txt").write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "m.toml"
    imported = run_cli("qrels", "import", SEED, tmp_path / "m.txt", "--annotator", "model:m", "--partial", "-o", out)
    assert imported.returncode == 0, imported.stderr
    data = json.loads(run_cli("agree", SEED, SEED / "qrels.toml", out, "--format", "json").stdout)
    assert data["annotators"] == ["seed-author", "model:m"] and data["annotator_kinds"] == ["person", "model"]
    assert data["coverage"]["overlap"] == 12 and data["kappa"] == "1"


# ---------------------------------------------------------------- agree --runs


def score_means(labels_path: Path, metric: str) -> dict[str, str]:
    data = json.loads(run_cli("score", SEED, "--qrels", labels_path, "--metrics", "R,RR", "--format", "json").stdout)
    return {run: report["measures"][metric]["mean"] for run, report in data["runs"].items()}


def test_agree_runs_orders_runs_under_each_label_set(tmp_path, labels):
    stats = pytest.importorskip("scipy.stats")
    alice = write(tmp_path / "alice.toml", labels, {"annotators": ["alice"]})
    dave_labels = {q: dict(row) for q, row in labels.items()}
    dave_labels["q3"]["d2"], dave_labels["q3"]["d5"] = 1, 0  # fixture_A ranks d2 first, fixture_B d5
    dave_labels["q4"]["d6"] = 0  # fixture_B's one document for q4
    dave = write(tmp_path / "dave.toml", dave_labels, {"annotators": ["dave"]})
    result = run_cli("agree", SEED, alice, dave, "--runs", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    validate(data, SCHEMA)
    rankings = {m["metric"]: m for m in data["rankings"]["metrics"]}
    assert set(rankings) == {"R@2", "RR@2"}
    for name, key in (("R@2", "recall"), ("RR@2", "rr")):
        ordering = rankings[name]
        # The one evaluator: the means are score's, under each file.
        assert ordering["means_a"] == score_means(alice, key)
        assert ordering["means_b"] == score_means(dave, key)
        runs = list(ordering["means_a"])
        a = [float(Fraction(ordering["means_a"][r])) for r in runs]
        b = [float(Fraction(ordering["means_b"][r])) for r in runs]
        assert ordering["kendall_tau"]["tau_b_decimal"] == pytest.approx(stats.kendalltau(a, b).statistic, abs=1e-12)
        flipped = [
            [x, y]
            for (i, x), (j, y) in itertools.combinations(enumerate(runs), 2)
            if (a[i] > a[j]) - (a[i] < a[j]) != (b[i] > b[j]) - (b[i] < b[j])
        ]
        assert [c["runs"] for c in ordering["order_changes"]] == flipped
    rr = rankings["RR@2"]
    assert [c["runs"] for c in rr["order_changes"]] == [["fixture_A", "fixture_B"]]
    change = rr["order_changes"][0]
    assert Fraction(change["delta_a"]) < 0 < Fraction(change["delta_b"])
    q3 = next(q for q in rr["per_query"] if q["query"] == "q3")
    assert q3["change"] in ("1/2", "-1/2") and q3["kappa"] == data["per_query"]["q3"]["kappa"]
    table = run_cli("agree", SEED, alice, dave, "--runs").stdout
    assert "runs ordered by RR@2 under A and under B" in table
    assert "fixture_A vs fixture_B: A -" in table and ", B +" in table


def test_agree_runs_refuses_a_partial_file(tmp_path, labels):
    result = run_cli("agree", SEED, model_file(tmp_path, labels), SEED / "qrels.toml", "--runs")
    assert_one_line_error(result, "model.toml", "is partial: scoring runs under it needs every pair judged")


def test_agree_runs_needs_two_runs(tmp_path, labels):
    a = write(tmp_path / "a.toml", labels)
    result = run_cli("agree", SEED, a, SEED / "qrels.toml", "--run", SEED / "runs" / "fixture_A.json")
    assert_one_line_error(result, "ordering runs needs at least 2 runs, got 1")


def test_adjudication_of_a_partial_file_is_on_the_overlap(tmp_path, labels):
    """A partial file is adjudicated on its overlap with the other (no coverage refusal): here the
    inputs pass every check, so only the missing terminal stops it, with nothing left behind
    (tests/tui/test_adjudicate_partial.py adjudicates on screen)."""
    out = tmp_path / "adjudicated.toml"
    result = run_cli("adjudicate", SEED, model_file(tmp_path, labels), SEED / "qrels.toml", "-o", out)
    assert_one_line_error(result, "the app needs a terminal")
    assert not out.exists() and not out.with_name(out.name + ".adjudication.journal").exists()
