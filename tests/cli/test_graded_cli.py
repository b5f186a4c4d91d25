"""A graded protocol end to end through the CLI: ``init --relevant-from`` keeps the grades, and
export, import and merge carry them unchanged (a binary protocol refuses them as before)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from rankeval_tui.core.files.tomllib_compat import tomllib
from tests.cli.helpers import assert_one_line_error, run_cli

GRADED = {"q1": {"d1": 1, "d2": 3, "d3": 0}, "q2": {"d1": 2, "d2": 0, "d3": 0}}


@pytest.fixture
def graded(tmp_path: Path) -> Path:
    (tmp_path / "corpus.jsonl").write_text(
        "".join(json.dumps({"id": f"d{i}", "text": f"text {i}"}) + "\n" for i in (1, 2, 3))
    )
    (tmp_path / "queries.tsv").write_text("q1\tone\nq2\ttwo\n")
    (tmp_path / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, row in GRADED.items() for d, g in row.items())
    )
    (tmp_path / "run.json").write_text(json.dumps({"q1": ["d2", "d1"], "q2": ["d3", "d1"]}))
    made = run_cli(
        "init", tmp_path / "p", "--corpus", tmp_path / "corpus.jsonl", "--queries", tmp_path / "queries.tsv",
        "--qrels", tmp_path / "qrels.txt", "--run", tmp_path / "run.json", "--k", "2",
        "--relevant-from", "2", "--grades", "not relevant,marginal,relevant,highly relevant",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert "scale: grades 0 to 3, relevant from 2" in made.stdout
    return tmp_path / "p"


def labels(path: Path) -> dict:
    return tomllib.loads(path.read_text())["qrels"]


def test_init_keeps_grades_and_declares_the_scale(graded):
    assert labels(graded / "qrels.toml") == GRADED
    header = tomllib.loads((graded / "protocol.toml").read_text())["protocol"]
    assert header["grades"] == ["not relevant", "marginal", "relevant", "highly relevant"]
    assert header["relevant_from"] == 2
    scored = json.loads(run_cli("score", graded, "--metrics", "nDCG,R", "--format", "json").stdout)
    rows = {row["query"]: row for row in scored["runs"]["run"]["rows"]}
    assert rows["q1"]["relevant"] == 1 and rows["q2"]["relevant"] == 1  # grade >= 2 only
    assert scored["protocol"]["scale"] == {"grades": header["grades"], "relevant_from": 2}


def test_export_import_and_merge_keep_grades(graded, tmp_path):
    exported = run_cli("qrels", "export", graded)
    assert exported.returncode == 0, exported.stderr
    assert "q1 0 d2 3\n" in exported.stdout
    (tmp_path / "exported.txt").write_text(exported.stdout)
    imported = run_cli("qrels", "import", graded, tmp_path / "exported.txt", "-o", tmp_path / "back.toml")
    assert imported.returncode == 0, imported.stderr
    assert labels(tmp_path / "back.toml") == GRADED
    for query in GRADED:
        (tmp_path / f"{query}.toml").write_text(
            f"[qrels.{query}]\n" + "".join(f"{d} = {g}\n" for d, g in GRADED[query].items())
        )
    merged = run_cli("merge", graded, tmp_path / "q1.toml", tmp_path / "q2.toml", "-o", tmp_path / "merged.toml")
    assert merged.returncode == 0, merged.stderr
    assert labels(tmp_path / "merged.toml") == GRADED


def test_a_grade_above_the_scale_is_one_error_line(graded):
    (graded / "qrels.toml").write_text((graded / "qrels.toml").read_text().replace("d2 = 3", "d2 = 4"))
    assert_one_line_error(run_cli("score", graded), "qrels.toml", "d2", "integer grade 0 to 3")


def test_a_binary_init_still_refuses_grades_naming_both_options(tmp_path, graded):
    refused = run_cli(
        "init", tmp_path / "b", "--corpus", tmp_path / "corpus.jsonl", "--queries", tmp_path / "queries.tsv",
        "--qrels", tmp_path / "qrels.txt", "--k", "2",
    )  # fmt: skip
    assert_one_line_error(refused, "graded label 3", "--threshold T", "--relevant-from T")
    assert not (tmp_path / "b").exists()


def test_agree_on_a_graded_protocol_weighs_its_grades(graded, tmp_path):
    """Two annotators' files on a graded protocol: ``agree`` uses the protocol's scale (grades
    0..3, binary kappa at relevant_from 2) without being told, as sklearn computes it."""
    from sklearn.metrics import cohen_kappa_score

    other = {"q1": {"d1": 2, "d2": 3, "d3": 1}, "q2": {"d1": 2, "d2": 1, "d3": 0}}
    (tmp_path / "other.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, row in other.items() for d, g in row.items()))
    imported = run_cli(
        "qrels", "import", graded, tmp_path / "other.txt", "--annotator", "model:m", "--partial",
        "-o", graded / "model.toml",
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    result = run_cli("agree", graded, graded / "qrels.toml", graded / "model.toml", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    pairs = [(GRADED[q][d], other[q][d]) for q in GRADED for d in GRADED[q]]
    a, b = zip(*pairs)
    assert data["scale"] == {"top": 3, "relevant_from": 2}
    for weights in ("linear", "quadratic"):
        expected = cohen_kappa_score(a, b, weights=weights)
        assert float(Fraction(data["grades"][f"{weights}_kappa"])) == pytest.approx(expected, abs=1e-12), weights
    binary = cohen_kappa_score([int(x >= 2) for x in a], [int(x >= 2) for x in b])
    assert float(Fraction(data["kappa"])) == pytest.approx(binary, abs=1e-12)
