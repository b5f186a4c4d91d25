"""``rankeval-tui score / validate / adapt`` through a subprocess: outputs, exit codes, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import REPO, assert_one_line_error, run_cli

SEED = REPO / "protocols" / "help-docs-zh"
SEED_HASH = "9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb"


def test_json_equals_seed_expected(seed_expected):
    result = run_cli("score", SEED, "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["protocol"]["protocol_sha256"] == SEED_HASH
    for name, expected in seed_expected["results"].items():
        report = data["runs"][name]
        assert {key: report[key] for key in expected} == expected


def test_no_protocol_scores_bundled_demo_from_any_directory(tmp_path, seed_expected):
    result = run_cli("score", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["protocol"]["name"] == "help-docs-zh"
    assert data["runs"]["fixture_B"]["mrr_at_k"] == "5/6"


def test_named_runs_relative_to_protocol_and_trec(tmp_path):
    trec = tmp_path / "other.trec"
    trec.write_text(
        "q2 Q0 d1 1 3.0 B\nq2 Q0 d3 2 2.0 B\nq2 Q0 d4 3 1.0 B\nq3 Q0 d5 1 2.0 B\nq3 Q0 d2 2 1.0 B\nq4 Q0 d6 1 1.0 B\n"
    )
    result = run_cli("score", SEED, "--run", "runs/fixture_A.json", "--run", f"B={trec}", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data["runs"]) == ["fixture_A", "B"]
    assert data["runs"]["B"]["recall_at_k"] == "5/6"
    comparison = data["comparisons"][0]
    assert comparison["baseline"] == "fixture_A" and comparison["candidate"] == "B"
    assert comparison["metrics"]["rr"]["regressions"] == ["q2"]


def test_table_names_missing_and_no_relevant_and_marks_regression():
    result = run_cli("score", SEED, "--run", "runs/fixture_A.json", "--run", "runs/fixture_B.json", "--fractions")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "missing_queries: q4" in out
    assert "no_relevant_queries: q5" in out
    assert "mean Recall@2 = 5/6 (0.8333)" in out
    q2_line = next(line for line in out.splitlines() if line.startswith("q2 ") and "WORSE" in line)
    assert "-1/2" in q2_line
    assert "MRR@2: mean delta +1/3; win/tie/loss 2/0/1; worse on: q2" in out


def test_markdown_is_a_table():
    result = run_cli("score", SEED, "--format", "markdown", "--run", "runs/fixture_A.json", "--fractions")
    assert result.returncode == 0
    assert "| q4 | MISSING (scored 0) | 0 | 1 | 0 | - | 0 | 0 |" in result.stdout


@pytest.mark.parametrize("gate, code", [("recall=0.5", 0), ("recall=0.6", 1), ("mrr=1/2", 0), ("mrr=0.51", 1)])
def test_fail_under_gate(gate, code):
    result = run_cli("score", SEED, "--run", "runs/fixture_A.json", "--fail-under", gate, "--format", "json")
    assert result.returncode == code, result.stderr
    json.loads(result.stdout)  # the report is still printed
    assert ("gate failed" in result.stderr) == (code == 1)


def test_k_override_changes_hash_and_numbers():
    result = run_cli("score", SEED, "--run", "runs/fixture_A.json", "--k", "3", "--format", "json")
    data = json.loads(result.stdout)
    assert data["protocol"]["k"] == 3 and data["protocol"]["protocol_sha256"] != SEED_HASH
    assert data["runs"]["fixture_A"]["recall_at_k"] == "2/3"


def test_chunk_map_scores_through_adapter(seed_expected_chunk):
    result = run_cli(
        "score",
        SEED,
        "--chunk-map",
        SEED / "chunks/chunk_map.toml",
        "--run",
        "chunks/chunk_run.json",
        "--format",
        "json",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)["runs"]["chunk_run"]
    expected = seed_expected_chunk["collapse_then_document_cutoff"]
    assert report["recall_at_k"] == expected["recall_at_2"] and report["mrr_at_k"] == expected["mrr_at_2"]
    assert report["adapter_sha256"] == "d6706e72c8476072541a9ff6ec1ea1c86c4b7c58057b587db56acac24102cd12"


def test_adapt_writes_document_run(tmp_path, seed_expected_chunk):
    out = tmp_path / "doc_run.json"
    result = run_cli(
        "adapt", SEED, "--chunk-map", SEED / "chunks/chunk_map.toml", SEED / "chunks/chunk_run.json", "-o", out
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text()) == seed_expected_chunk["document_runs"]
    sidecar = json.loads((tmp_path / "doc_run.json.provenance.json").read_text())
    assert sidecar["evidence"] == seed_expected_chunk["provenance"]


def test_validate_ok_and_bad_run(seed_copy):
    assert run_cli("validate", seed_copy).returncode == 0
    (seed_copy / "runs" / "dup.json").write_text('{"q2": ["d3", "d1", "d4", "d3"]}')
    result = run_cli("validate", seed_copy)
    assert result.returncode == 2
    assert "ok: run fixture_A" in result.stdout
    assert "duplicate document ID" in result.stdout and "dup.json" in result.stdout


def test_python_m_is_the_console_script():
    assert run_cli("--version").stdout.startswith("rankeval-tui ")


# -------- bad input: exit 2, one line naming the file, the place and the rule, nothing else


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


BAD_RUNS = [
    ("dup.json", '{"q2": ["d3", "d1", "d4", "d3"]}', ["dup.json", "'q2'", "'d3'", "duplicate document ID"]),
    ("unknown.json", '{"q2": ["d9"]}', ["unknown.json", "'d9'", "unknown document ID"]),
    ("split.json", '{"q1": ["d2"]}', ["split.json", "'q1'", "wrong-split"]),
    ("query.json", '{"q99": []}', ["query.json", "'q99'", "unknown or wrong-split query"]),
    ("notlist.json", '{"q2": "d3"}', ["notlist.json", "'q2'", "list"]),
    ("intdoc.json", '{"q2": [3]}', ["intdoc.json", "document ID"]),
    ("dupkey.json", '{"q2": ["d3"], "q2": ["d4"]}', ["dupkey.json", "duplicate key"]),
    ("broken.json", '{"q2": ["d3"', ["broken.json", "invalid JSON"]),
    ("clash.trec", "q2 Q0 d3 1 2.0 t\nq2 Q0 d1 1 1.0 t\n", ["clash.trec", "line 2", "rank clash"]),
    ("short.trec", "q2 Q0 d3 1 2.0\n", ["short.trec", "line 1", "6 fields"]),
    ("rank.trec", "q2 Q0 d3 one 2.0 t\n", ["rank.trec", "line 1", "rank must be an integer"]),
    ("dup.trec", "q2 Q0 d3 1 2.0 t\nq2 Q0 d3 2 1.0 t\n", ["dup.trec", "line 2", "duplicate document ID"]),
    ("empty.trec", "", ["empty.trec", "empty TREC run"]),
]


@pytest.mark.parametrize("name, text, fragments", BAD_RUNS, ids=[b[0] for b in BAD_RUNS])
def test_bad_run_is_one_line_exit_2(tmp_path, name, text, fragments):
    path = write(tmp_path / name, text)
    assert_one_line_error(run_cli("score", SEED, "--run", path), *fragments)


def test_bad_run_among_good_ones_prints_no_partial_report(tmp_path):
    path = write(tmp_path / "dup.json", '{"q2": ["d3", "d3"]}')
    assert_one_line_error(run_cli("score", SEED, "--run", "runs/fixture_A.json", "--run", path), "dup.json")


def test_unjudged_pair_names_qrels_file_and_pair(seed_copy):
    qrels = seed_copy / "qrels.toml"
    qrels.write_text(qrels.read_text().replace("d4 = 1\n", "", 1))
    assert_one_line_error(run_cli("score", seed_copy), "qrels.toml", "'q2'", "'d4'", "unjudged")


@pytest.mark.parametrize(
    "bad, fragment", [("d3 = true", "True"), ("d3 = 2", "2"), ('d3 = "1"', "'1'"), ("d3 = 1.0", "1.0")]
)
def test_non_binary_labels_rejected(seed_copy, bad, fragment):
    qrels = seed_copy / "qrels.toml"
    qrels.write_text(qrels.read_text().replace("d3 = 1", bad, 1))
    assert_one_line_error(run_cli("score", seed_copy), "qrels.toml", "integer 0 or 1", fragment)


def test_malformed_protocol_toml(seed_copy):
    write(seed_copy / "protocol.toml", "[protocol\nname = 1\n")
    assert_one_line_error(run_cli("score", seed_copy), "protocol.toml", "invalid TOML")


def test_protocol_unknown_key_and_bad_k(seed_copy):
    text = (seed_copy / "protocol.toml").read_text()
    write(seed_copy / "protocol.toml", text.replace("k = 2", "k = 0"))
    assert_one_line_error(run_cli("score", seed_copy), "protocol.toml", "k must be a positive integer")
    write(seed_copy / "protocol.toml", text.replace('split = "dev"', 'split = "dev"\nnead = "typo"'))
    assert_one_line_error(run_cli("score", seed_copy), "protocol.toml", "[queries.q1]", "unknown key 'nead'")


def test_missing_protocol_dir():
    assert_one_line_error(run_cli("score", "no/such/protocol"), "no/such/protocol", "not found")


def test_protocol_toml_given_for_the_protocol_directory(seed_copy):
    """A user pointing at the file (found by a user walkthrough): it exists, so 'not found' misled."""
    line = assert_one_line_error(run_cli("score", seed_copy / "protocol.toml"), "is a file")
    assert line.endswith(f"a protocol is the directory that holds protocol.toml: pass {seed_copy}")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--k", "0"], "k must be a positive integer"),
        (["--split", "dev", "--run", "runs/fixture_A.json"], "wrong-split"),
        (["--split", "nope"], "split has no queries"),
        (["--baseline", "nope"], "--baseline 'nope'"),
        (["--fail-under", "ndgc=0.3"], "recall=VALUE"),
        (["--format", "xml"], "invalid choice"),
    ],
)
def test_bad_options(args, fragment):
    assert_one_line_error(run_cli("score", SEED, *args), fragment)


def test_run_file_missing():
    assert_one_line_error(run_cli("score", SEED, "--run", "runs/nope.json"), "nope.json", "file not found")


def test_chunk_map_pointing_outside_corpus(tmp_path):
    bad_map = write(tmp_path / "map.toml", '[chunk_to_doc]\nd3a = "d3"\nx = "d99"\n')
    run = write(tmp_path / "chunks.json", '{"q2": ["d3a"]}')
    assert_one_line_error(
        run_cli("score", SEED, "--chunk-map", bad_map, "--run", run), "map.toml", "outside the corpus"
    )


def test_trec_rank_score_disagreement_warns(tmp_path):
    trec = write(tmp_path / "odd.trec", "q2 Q0 d3 1 1.0 t\nq2 Q0 d4 2 2.0 t\n")
    result = run_cli("score", SEED, "--run", trec)
    assert result.returncode == 0
    # one line for the run (issue 33): d4 and d3 swap inside the top 2, so no value changes
    assert result.stderr.startswith("warning: run 'odd'") and len(result.stderr.splitlines()) == 1
    assert (
        "1 query ranked otherwise by trec_eval" in result.stderr and "0 of them change a value at k=2" in result.stderr
    )
    detailed = run_cli("score", SEED, "--run", trec, "--tie-order-details")
    assert "warning: run 'odd': query 'q2': trec_eval's order changes no value at k=2" in detailed.stderr


def test_nothing_written_on_bad_adapt(tmp_path):
    out = tmp_path / "out.json"
    run = write(tmp_path / "chunks.json", '{"q2": ["d3a", "d3a"]}')
    result = run_cli("adapt", SEED, "--chunk-map", SEED / "chunks/chunk_map.toml", run, "-o", out)
    assert_one_line_error(result, "chunks.json", "duplicate chunk ID")
    assert not out.exists()
    assert not list(tmp_path.glob(".out.json*"))


# -------- adjudication provenance: which queries' labels an adjudicator decided

ADJUDICATION = """
[adjudication.q1.d1]
labels = [0, 1]
final = 0
reason = "d1 is about downloads, not the export need"
adjudicator = "carol"

[adjudication.q2.d4]
labels = [1, 0]
final = 1
reason = "CSV is one of the export formats"
adjudicator = "carol"
"""


def adjudicated_copy(seed_copy: Path) -> Path:
    """The seed's labels plus an ``[adjudication]`` table in the format core/annotation/adjudication.py
    writes (``[adjudication.Q] D = {labels, final, reason, adjudicator}``), by hand."""
    qrels = seed_copy / "qrels.toml"
    qrels.write_text(qrels.read_text(encoding="utf-8") + ADJUDICATION, encoding="utf-8")
    return seed_copy


def test_json_lists_adjudicated_queries_and_rows_stay_the_seed(seed_copy, seed_expected):
    result = run_cli("score", adjudicated_copy(seed_copy), "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["protocol"]["adjudicated_queries"] == ["q2"]  # q1 is adjudicated but in the dev split
    assert data["protocol"]["protocol_sha256"] == SEED_HASH  # provenance is not part of the protocol
    for name, expected in seed_expected["results"].items():
        assert {key: data["runs"][name][key] for key in expected} == expected
        assert all(set(row) == set(expected["rows"][0]) for row in data["runs"][name]["rows"])
    dev = run_cli(
        "score",
        seed_copy,
        "--split",
        "dev",
        "--run",
        "dev=" + str(write(seed_copy / "dev.json", '{"q1": ["d2"]}')),
        "--format",
        "json",
    )
    assert json.loads(dev.stdout)["protocol"]["adjudicated_queries"] == ["q1"]


def test_json_without_adjudication_says_none():
    data = json.loads(run_cli("score", SEED, "--format", "json").stdout)
    assert data["protocol"]["adjudicated_queries"] == []


def test_table_and_markdown_mark_adjudicated_queries(seed_copy):
    adjudicated_copy(seed_copy)
    table = run_cli("score", seed_copy, "--run", "runs/fixture_A.json").stdout
    assert "adjudicated_queries: q2" in table.splitlines()
    q2 = next(line for line in table.splitlines() if line.startswith("q2 "))
    assert q2.split()[1:3] == ["ok,", "adjudicated"]
    q4 = next(line for line in table.splitlines() if line.startswith("q4 "))
    assert "MISSING (scored 0)" in q4 and "adjudicated" not in q4
    markdown = run_cli("score", seed_copy, "--format", "markdown", "--run", "runs/fixture_A.json", "--fractions").stdout
    assert "| q2 | ok, adjudicated | 3 | 2 | 1 | 1 | 1/2 (0.5000) | 1 |" in markdown
    assert "adjudicated_queries: q2" in markdown
    plain = run_cli("score", SEED, "--run", "runs/fixture_A.json").stdout
    assert "adjudicated_queries: none" in plain and "adjudicated," not in plain


def test_malformed_adjudication_table_is_one_line(seed_copy):
    qrels = seed_copy / "qrels.toml"
    qrels.write_text("adjudication = 3\n" + qrels.read_text(encoding="utf-8"), encoding="utf-8")
    assert_one_line_error(run_cli("score", seed_copy), "qrels.toml", "[adjudication] must be a table")


def test_score_reads_large_runs_in_its_own_process(tmp_path, monkeypatch, capsys):
    """``score`` runs in one process whatever the run size or the machine's load: a CI step pays
    for CPU, and a second reader only added CPU. A fork here fails the test."""
    import os

    from rankeval_tui.cli import main

    protocol = tmp_path / "p"
    assert run_cli("demo", protocol).returncode == 0
    run = (protocol / "runs" / "fixture_A.json").read_text(encoding="utf-8")
    filler = " " * (3 * 1024 * 1024)  # over any size where reading ahead could pay
    (protocol / "runs" / "big.json").write_text(run + filler, encoding="utf-8")

    def no_fork() -> int:
        raise AssertionError("score forked")

    monkeypatch.setattr(os, "fork", no_fork)
    assert main(["score", str(protocol), "--format", "json"]) == 0
    assert '"big"' in capsys.readouterr().out
