"""``rankeval-tui agree`` and ``rankeval-tui merge`` through a subprocess: outputs, exit codes,
conflicts and gaps listed on the one error line, nothing written on error."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from tests.cli.helpers import REPO, assert_one_line_error, run_cli

SEED = REPO / "protocols" / "help-docs-zh"
SEED_HASH = "9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb"


@pytest.fixture(scope="module")
def labels() -> dict:
    return tomllib.loads((SEED / "qrels.toml").read_text(encoding="utf-8"))["qrels"]


def write(path: Path, labels: dict, **tables) -> Path:
    path.write_text(
        tomli_w.dumps(
            {
                **{k: v for k, v in tables.items() if k == "provenance"},
                "qrels": labels,
                **{k: v for k, v in tables.items() if k != "provenance"},
            }
        ),
        encoding="utf-8",
    )
    return path


def only(labels: dict, *queries: str) -> dict:
    return {q: labels[q] for q in queries}


@pytest.fixture()
def two_annotators(tmp_path, labels) -> tuple[Path, Path]:
    bob = copy.deepcopy(labels)
    bob["q2"]["d4"] = 0
    bob["q1"]["d1"] = 1
    a = write(
        tmp_path / "alice.toml",
        labels,
        provenance={"annotators": ["alice"]},
        notes={"q2": {"d4": "CSV is an export format"}},
    )
    b = write(tmp_path / "bob.toml", bob, provenance={"annotators": ["bob"]}, notes={"q1": {"d1": "retry?"}})
    return a, b


# ---------------------------------------------------------------- agree


def test_agree_json(two_annotators):
    a, b = two_annotators
    result = run_cli("agree", SEED, a, b, "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["annotators"] == ["alice", "bob"]
    assert data["kappa"] == "19/25" and data["kappa_decimal"] == 0.76 and data["kappa_undefined_reason"] is None
    assert data["observed_agreement"] == "14/15" and data["pairs"] == 30
    assert data["confusion"] == {"a1_b1": 4, "a1_b0": 1, "a0_b1": 1, "a0_b0": 24}
    assert data["disagreements"] == [
        {"query": "q1", "document": "d1", "labels": [0, 1], "notes": [None, "retry?"]},
        {"query": "q2", "document": "d4", "labels": [1, 0], "notes": ["CSV is an export format", None]},
    ]
    assert data["per_query"]["q1"]["kappa"] == "4/7"
    assert data["per_query"]["q4"]["kappa"] == "1"
    assert data["per_query"]["q5"]["kappa"] is None
    assert "single label 0" in data["per_query"]["q5"]["kappa_undefined_reason"]


def test_agree_table(two_annotators):
    a, b = two_annotators
    result = run_cli("agree", SEED, a, b)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Cohen's kappa 19/25 (0.7600)" in out
    assert "observed agreement 14/15 (0.9333)" in out
    assert "undefined (both gave 0 everywhere)" in out
    assert "CSV is an export format" in out and "retry?" in out


def test_agree_undefined_kappa_is_null_with_reason(tmp_path, labels):
    nothing = {q: {d: 0 for d in row} for q, row in labels.items()}
    a = write(tmp_path / "a.toml", nothing)
    b = write(tmp_path / "b.toml", nothing)
    data = json.loads(run_cli("agree", SEED, a, b, "--format", "json").stdout)
    assert data["kappa"] is None and data["kappa_decimal"] is None
    assert data["kappa_undefined_reason"].startswith("expected chance agreement is 1")
    assert data["observed_agreement"] == "1"


def test_agree_finds_files_in_the_protocol_directory(tmp_path, labels, seed_copy):
    write(seed_copy / "qrels-alice.toml", labels)
    write(seed_copy / "qrels-bob.toml", labels)
    result = run_cli("agree", seed_copy, "qrels-alice.toml", "qrels-bob.toml", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["kappa"] == "1"


def test_agree_coverage_difference_is_one_error_line(tmp_path, labels):
    a = write(tmp_path / "a.toml", labels)
    b = write(tmp_path / "b.toml", only(labels, "q1", "q2", "q3", "q4"))
    assert_one_line_error(
        run_cli("agree", SEED, a, b), "differ in coverage (6 pairs)", f"judged only in {a}: query 'q5': all 6 documents"
    )


def test_agree_missing_file_is_one_error_line(tmp_path, labels):
    a = write(tmp_path / "a.toml", labels)
    assert_one_line_error(run_cli("agree", SEED, a, tmp_path / "nope.toml"), "nope.toml", "file not found")


# ---------------------------------------------------------------- merge


def test_merge_disjoint_shards_scores_under_the_seed_hash(tmp_path, labels):
    s1 = write(tmp_path / "shard-1.toml", only(labels, "q1", "q2"), provenance={"annotators": ["alice"]})
    s2 = write(tmp_path / "shard-2.toml", only(labels, "q3", "q4", "q5"), provenance={"annotators": ["bob"]})
    out = tmp_path / "qrels.toml"
    result = run_cli("merge", SEED, s1, s2, "-o", out)
    assert result.returncode == 0, result.stderr
    assert "annotators: alice, bob" in result.stderr
    merged = tomllib.loads(out.read_text(encoding="utf-8"))
    assert merged["qrels"] == labels
    assert merged["provenance"]["annotators"] == ["alice", "bob"]
    score = run_cli("score", SEED, "--qrels", out, "--format", "json")
    assert json.loads(score.stdout)["protocol"]["protocol_sha256"] == SEED_HASH


def test_merge_conflicts_are_listed_in_full_and_nothing_is_written(tmp_path, labels):
    other = copy.deepcopy(labels)
    other["q3"]["d5"] = 0
    other["q3"]["d6"] = 1
    other["q4"]["d6"] = 0
    s1 = write(tmp_path / "s1.toml", only(labels, "q1", "q2", "q3", "q4"))
    s2 = write(tmp_path / "s2.toml", only(other, "q3", "q4", "q5"))
    out = tmp_path / "qrels.toml"
    line = assert_one_line_error(
        run_cli("merge", SEED, s1, s2, "-o", out),
        "3 conflicting pairs",
        f"query 'q3', document 'd5': 1 in {s1}, 0 in {s2}",
        f"query 'q3', document 'd6': 0 in {s1}, 1 in {s2}",
        f"query 'q4', document 'd6': 1 in {s1}, 0 in {s2}",
    )
    assert "judged in no shard" not in line
    assert not out.exists()


def test_merge_missing_pairs_are_listed(tmp_path, labels):
    partial = copy.deepcopy(labels)
    del partial["q2"]["d6"]
    s1 = write(tmp_path / "s1.toml", only(partial, "q1", "q2"))
    s2 = write(tmp_path / "s2.toml", only(labels, "q3", "q4"))
    out = tmp_path / "qrels.toml"
    assert_one_line_error(
        run_cli("merge", SEED, s1, s2, "-o", out),
        "7 pairs judged in no shard: query 'q2': 'd6'; query 'q5': all 6 documents",
    )
    assert not out.exists()


def test_merge_error_leaves_an_existing_output_untouched(tmp_path, labels):
    out = tmp_path / "qrels.toml"
    out.write_text("old contents\n", encoding="utf-8")
    s1 = write(tmp_path / "s1.toml", only(labels, "q1"))
    assert_one_line_error(run_cli("merge", SEED, s1, "-o", out, "--force"), "judged in no shard")
    assert out.read_text(encoding="utf-8") == "old contents\n"


def test_merge_refuses_to_overwrite_a_shard(tmp_path, labels):
    s1 = write(tmp_path / "s1.toml", labels)
    before = s1.read_bytes()
    line = assert_one_line_error(run_cli("merge", SEED, s1, "-o", s1, "--force"), "is one of the shards")
    assert str(s1) in line and "even with --force" in line
    assert s1.read_bytes() == before


def test_merge_unknown_query_in_a_shard(tmp_path, labels):
    s1 = write(tmp_path / "s1.toml", {**labels, "q9": {"d1": 0}})
    assert_one_line_error(run_cli("merge", SEED, s1, "-o", tmp_path / "o.toml"), "unknown query 'q9'")


def test_merge_requires_output(tmp_path, labels):
    s1 = write(tmp_path / "s1.toml", labels)
    assert_one_line_error(run_cli("merge", SEED, s1), "-o/--output")


# ---------------------------------------------------------------- adjudicate (argument errors; the queue is Pilot-tested)


def test_adjudicate_refuses_bad_input_before_opening_the_app(tmp_path, labels):
    a = write(tmp_path / "a.toml", labels)
    b = write(tmp_path / "b.toml", only(labels, "q1", "q2"))
    out = tmp_path / "qrels.toml"
    assert_one_line_error(run_cli("adjudicate", SEED, a, b, "-o", out), "differ in coverage (18 pairs)")
    assert_one_line_error(run_cli("adjudicate", SEED, a, a, "-o", out), "the same file is given for both annotators")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.toml", "b.toml"]  # no output, lock or journal


def test_judge_adjudicate_option_checks(tmp_path, labels):
    a = write(tmp_path / "a.toml", labels)
    b = write(tmp_path / "b.toml", labels)
    assert_one_line_error(run_cli("judge", SEED, "--adjudicate", a, b), "--adjudicate needs -o")
    assert_one_line_error(run_cli("judge", SEED, "-o", tmp_path / "x.toml"), "-o applies to --adjudicate only")
    assert_one_line_error(
        run_cli("judge", SEED, "--adjudicate", a, b, "-o", tmp_path / "x.toml", "--order", "corpus"),
        "--order does not apply to --adjudicate",
    )
