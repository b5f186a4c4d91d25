"""``qrels import --annotator/--partial/--provenance``: one annotator's labels (a model's or a
person's) written to a file of their own, with provenance, never into the protocol's qrels.toml."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from tests.cli.helpers import REPO, assert_one_line_error, run_cli

SEED = REPO / "protocols" / "help-docs-zh"


@pytest.fixture(scope="module")
def seed_labels() -> dict:
    return tomllib.loads((SEED / "qrels.toml").read_text(encoding="utf-8"))["qrels"]


def model_jsonl(tmp_path: Path, seed_labels: dict, queries: tuple[str, ...] = ("q1", "q2")) -> Path:
    """A model's UMBRELA-style file covering only ``queries``, with its reasoning, q1/d1 flipped."""
    lines = []
    for query in queries:
        for doc, label in seed_labels[query].items():
            judgment = 1 - label if (query, doc) == ("q1", "d1") else label
            lines.append(json.dumps({"qid": query, "docid": doc, "judgment": judgment, "reasoning": f"why {doc}"}))
    path = tmp_path / "umbrela.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_model_labels_go_to_their_own_partial_file_with_provenance(tmp_path, seed_labels):
    source = model_jsonl(tmp_path, seed_labels)
    out = tmp_path / "model.toml"
    result = run_cli(
        "qrels", "import", SEED, source, "--annotator", "model:umbrela", "--partial",
        "--provenance", "model=gpt-4o", "--provenance", "prompt_sha256=abc123", "--provenance", "temperature=0",
        "-o", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "12 of 30 pairs judged (partial), annotator model:umbrela (a model)" in result.stderr
    data = tomllib.loads(out.read_text(encoding="utf-8"))
    assert set(data["qrels"]) == {"q1", "q2"}
    assert data["qrels"]["q1"]["d1"] == 1 - seed_labels["q1"]["d1"]
    assert data["qrels"]["q2"] == seed_labels["q2"]
    assert data["notes"]["q1"]["d3"] == "why d3"
    provenance = data["provenance"]
    assert provenance["annotator"] == "model:umbrela"
    assert provenance["annotator_kind"] == "model"
    assert provenance["partial"] is True
    assert provenance["format"] == "jsonl"
    assert provenance["input_sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()
    assert provenance["stated"] == {"model": "gpt-4o", "prompt_sha256": "abc123", "temperature": "0"}


def test_a_person_may_import_a_partial_trec_file(tmp_path, seed_labels):
    source = tmp_path / "alice.txt"
    source.write_text("".join(f"q3 0 {doc} {label}\n" for doc, label in seed_labels["q3"].items()), encoding="utf-8")
    out = tmp_path / "alice.toml"
    result = run_cli("qrels", "import", SEED, source, "--annotator", "alice", "--partial", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "(a model)" not in result.stderr
    data = tomllib.loads(out.read_text(encoding="utf-8"))
    assert data["qrels"] == {"q3": seed_labels["q3"]}
    assert data["provenance"]["annotator_kind"] == "person"
    assert data["provenance"]["format"] == "trec"


def test_partial_coverage_without_partial_is_refused(tmp_path, seed_labels):
    out = tmp_path / "model.toml"
    result = run_cli("qrels", "import", SEED, model_jsonl(tmp_path, seed_labels), "--annotator", "model:m", "-o", out)
    assert_one_line_error(result, "not exhaustive: 18 of 30 pairs unjudged")
    assert not out.exists()


def test_model_labels_never_replace_the_protocols_qrels(tmp_path, seed_labels):
    protocol = tmp_path / "p"
    protocol.mkdir()
    for name in ("protocol.toml", "qrels.toml"):
        (protocol / name).write_bytes((SEED / name).read_bytes())
    before = (protocol / "qrels.toml").read_bytes()
    source = model_jsonl(tmp_path, seed_labels, queries=("q1", "q2", "q3", "q4", "q5"))
    for extra in (["--annotator", "model:m"], ["--partial"]):
        result = run_cli("qrels", "import", protocol, source, *extra, "-o", protocol / "qrels.toml", "--force")
        assert_one_line_error(result, "qrels.toml of protocol", "even with --force")
    assert (protocol / "qrels.toml").read_bytes() == before


@pytest.mark.parametrize(
    ("record", "rule"),
    [
        ({"qid": "q1", "docid": "d1", "judgment": "1"}, "judgment must be an integer, got '1'"),
        ({"qid": "q1", "docid": "d1", "judgment": True}, "judgment must be an integer"),
        ({"qid": 1, "docid": "d1", "judgment": 1}, "qid must be a string"),
        ({"qid": "q1", "docid": "d1"}, "missing judgment"),
        ({"qid": "q1", "docid": "d1", "judgment": 1, "score": 3}, "unknown key 'score'"),
        ({"qid": "q9", "docid": "d1", "judgment": 1}, "unknown query 'q9'"),
        ({"qid": "q1", "docid": "d1", "judgment": 2}, "graded label 2: binary labels required"),
    ],
)
def test_bad_jsonl_record_is_one_error_line_naming_its_line(tmp_path, record, rule):
    source = tmp_path / "bad.jsonl"
    source.write_text(json.dumps({"qid": "q2", "docid": "d1", "judgment": 0}) + "\n" + json.dumps(record) + "\n")
    out = tmp_path / "out.toml"
    assert_one_line_error(run_cli("qrels", "import", SEED, source, "--partial", "-o", out), "bad.jsonl", "line 2", rule)
    assert not out.exists()


def test_graded_model_labels_binarized_only_with_a_threshold(tmp_path):
    source = tmp_path / "graded.jsonl"
    source.write_text(
        "\n".join(json.dumps({"qid": "q1", "docid": d, "judgment": j}) for d, j in (("d1", 3), ("d2", 1))) + "\n"
    )
    out = tmp_path / "out.toml"
    result = run_cli("qrels", "import", SEED, source, "--partial", "--threshold", "2", "-o", out)
    assert result.returncode == 0, result.stderr
    data = tomllib.loads(out.read_text(encoding="utf-8"))
    assert data["qrels"] == {"q1": {"d1": 1, "d2": 0}}
    assert data["provenance"]["threshold_rule"] == "rel >= 2 -> 1, otherwise 0"


@pytest.mark.parametrize(
    ("option", "rule"),
    [
        (["--provenance", "temperature"], "--provenance takes KEY=VALUE"),
        (["--provenance", "a b=1"], "--provenance takes KEY=VALUE"),
        (["--provenance", "t=0", "--provenance", "t=1"], "--provenance t given twice"),
        (["--annotator", "model:"], "names the model"),
        (["--annotator", " alice"], "without surrounding blanks"),
    ],
)
def test_bad_annotator_options_are_refused_before_reading(tmp_path, seed_labels, option, rule):
    out = tmp_path / "out.toml"
    result = run_cli("qrels", "import", SEED, model_jsonl(tmp_path, seed_labels), "--partial", *option, "-o", out)
    assert_one_line_error(result, rule)
    assert not out.exists()
