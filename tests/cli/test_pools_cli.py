"""Pooled protocols from the command line: the gap of a new run refused in one line, added to
the pools by the one command the refusal names, judged, then scored."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from rankeval_tui.core.files import load_definition
from tests.cli.helpers import assert_one_line_error, run_cli

QRELS = "q:1001 0 docs/export.md 1\nq:1001 0 faq#3 0\nq:1002 0 msmarco_v2.1_doc_00_12345 0\nq:1002 0 docs/a.md 1\n"
RUN = (
    "q:1001 Q0 docs/export.md 1 3 bm25\nq:1001 Q0 faq#3 2 2 bm25\nq:1001 Q0 unjudged-below-k 3 1 bm25\n"
    "q:1002 Q0 docs/a.md 1 2 bm25\nq:1002 Q0 msmarco_v2.1_doc_00_12345 2 1 bm25\n"
)
NEW_RUN = "q:1001 Q0 docs/new.md 1 2 dense\nq:1001 Q0 docs/export.md 2 1 dense\nq:1002 Q0 docs/other.md 1 1 dense\n"


def make(tmp_path: Path) -> Path:
    (tmp_path / "qrels.trec").write_text(QRELS)
    (tmp_path / "bm25.trec").write_text(RUN)
    (tmp_path / "dense.trec").write_text(NEW_RUN)
    directory = tmp_path / "p"
    made = run_cli("init", directory, "--qrels", tmp_path / "qrels.trec", "--run", tmp_path / "bm25.trec", "--k", "2")
    assert made.returncode == 0, made.stderr
    assert "labels: 4 imported, 0 of 4 pairs to judge" in made.stdout
    return directory


def test_gap_refused_added_judged_scored(tmp_path):
    directory = make(tmp_path)
    scored = run_cli("score", directory, "--format", "json")
    assert scored.returncode == 0, scored.stderr  # rank 3 is below k: never judged, never needed
    refused = run_cli("score", directory, "--run", tmp_path / "dense.trec")
    line = assert_one_line_error(refused, "2 top-2 pairs in 2 queries outside the pools", "never read as 0")
    command = line.split("add them to the pools as holes to judge: ")[1].split(" (or see")[0]
    assert command == f"rankeval-tui grow {directory} --gap {tmp_path / 'dense.trec'}"
    grown = run_cli(*shlex.split(command)[1:])
    assert grown.returncode == 0, grown.stderr
    assert "+2 pool pairs in 2 queries" in grown.stdout
    holes = run_cli("score", directory, "--run", tmp_path / "dense.trec")
    assert_one_line_error(holes, "every pair of every pool judged; 2 of 6 pairs are unjudged")
    qrels = directory / "qrels.toml"
    text = (
        qrels.read_text()
        .replace('faq#3" = 0', 'faq#3" = 0\n"docs/new.md" = 1')
        .replace('"docs/a.md" = 1', '"docs/a.md" = 1\n"docs/other.md" = 0')
    )
    qrels.write_text(text)
    final = run_cli("score", directory, "--run", tmp_path / "dense.trec", "--metrics", "R@2,P@2", "--fractions")
    assert final.returncode == 0, final.stderr
    assert "q:1001" in final.stdout and "1/2 (0.5000)" in final.stdout


def test_gap_growth_is_for_pooled_protocols_only(tmp_path):
    assert run_cli("demo", tmp_path / "demo").returncode == 0
    result = run_cli("grow", tmp_path / "demo", "--gap", tmp_path / "demo" / "runs" / "fixture_A.json")
    assert_one_line_error(result, "--gap is for a pooled protocol", "grow PROTOCOL --run RUN --corpus CORPUS")


def test_every_output_names_the_kind_the_pool_rule_and_recalls_denominator(tmp_path):
    import json

    from tests.cli.test_report_json import schema
    from tests.schema_check import validate

    (tmp_path / "qrels.trec").write_text(QRELS + "q:1003 0 docs/z.md 0\n")
    (tmp_path / "bm25.trec").write_text(RUN + "q:1003 Q0 docs/z.md 1 1 bm25\n")
    directory = tmp_path / "p"
    assert (
        run_cli(
            "init", directory, "--qrels", tmp_path / "qrels.trec", "--run", tmp_path / "bm25.trec", "--k", "2"
        ).returncode
        == 0
    )
    data = json.loads(run_cli("score", directory, "--format", "json").stdout)
    validate(data, schema())
    assert data["protocol"]["kind"] == "pooled" and data["protocol"]["pooled_pairs"] == 5
    assert data["protocol"]["pool_rule"] == "each query's pool: the documents labelled for it in qrels.trec"
    assert "in the query's pool" in data["protocol"]["recall_denominator"]
    assert data["runs"]["bm25"]["no_relevant_in_pool_queries"] == ["q:1003"]
    for fmt in ("table", "markdown"):
        text = run_cli("score", directory, "--format", fmt).stdout
        assert "kind pooled: 5 judged pairs; each query's pool: the documents labelled for it in qrels.trec" in text
        assert "Recall@k's denominator: the relevant documents in the query's pool" in text
        assert "no relevant in pool (excluded)" in text
        assert "over 2 eligible of 3 queries (1 with no relevant in pool)" in text
        assert "no_relevant_in_pool_queries: q:1003" in text


def test_bounds_are_printed_as_ranges(tmp_path):
    import json

    directory = make(tmp_path)
    text = run_cli(
        "score", directory, "--run", tmp_path / "dense.trec", "--bounds", "--metrics", "R@2,RR@2", "--fractions"
    )
    assert text.returncode == 0, text.stderr
    assert "BOUNDS over every 0/1 assignment of 2 unjudged top-2 pairs in 2 queries" in text.stdout
    # q:1001: docs/new.md at rank 1 unjudged, docs/export.md (relevant) at 2: RR in [1/2, 1]
    assert "[1/2 (0.5000), 1]" in text.stdout
    assert "mean bounds Recall@2 = [1/2 (0.5000), 3/4 (0.7500)]   MRR@2 = [1/4 (0.2500), 1]" in text.stdout
    data = json.loads(
        run_cli("score", directory, "--run", tmp_path / "dense.trec", "--bounds", "--format", "json").stdout
    )
    rr = data["bounds"]["dense"]["measures"]["rr"]
    assert rr["per_query"][0] == {
        "query": "q:1001",
        "unjudged": ["docs/new.md"],
        "low": "1/2",
        "low_decimal": 0.5,
        "high": "1",
        "high_decimal": 1.0,
        "excluded_possible": False,
    }
    refused = run_cli("score", "--bounds")
    assert_one_line_error(refused, "--bounds is for a pooled protocol")


def test_texts_are_added_to_a_pooled_protocol_later(tmp_path):
    directory = make(tmp_path)
    (tmp_path / "topics").write_text("<top>\n<num> Number: q:1001\n<title> export notes as CSV\n</top>\n")
    (tmp_path / "corpus.jsonl").write_text(
        '{"id": "docs/export.md", "text": "Export: File > Export > CSV"}\n{"id": "not-pooled.md", "text": "x"}\n'
    )
    before = load_definition(directory)
    grown = run_cli("grow", directory, "--queries", tmp_path / "topics", "--corpus", tmp_path / "corpus.jsonl")
    assert grown.returncode == 0, grown.stderr
    assert "+0 pool pairs in 0 queries" in grown.stdout and "+1 document texts, +1 query texts" in grown.stdout
    after = load_definition(directory)
    assert after.queries["q:1001"].text == "export notes as CSV" and after.queries["q:1002"].text is None
    assert dict(after.documents) == {"docs/export.md": "Export: File > Export > CSV"}  # pooled documents only
    assert after.pools == before.pools
    (tmp_path / "other").write_text("<top>\n<num> Number: q:1001\n<title> another text\n</top>\n")
    again = run_cli("grow", directory, "--queries", tmp_path / "other")
    assert_one_line_error(again, "query 'q:1001'", "another text, split or need; grow only adds")


def test_agree_and_merge_work_on_pools(tmp_path):
    directory = make(tmp_path)
    qrels = (directory / "qrels.toml").read_text()
    alice = tmp_path / "alice.toml"
    alice.write_text(qrels)
    bob = tmp_path / "bob.toml"
    bob.write_text(qrels.replace('"docs/a.md" = 1', '"docs/a.md" = 0'))  # one disagreement, in q:1002's pool
    agreed = run_cli("agree", directory, alice, bob, "--format", "json")
    assert agreed.returncode == 0, agreed.stderr
    data = json.loads(agreed.stdout)
    assert data["pairs"] == 4 and [d["document"] for d in data["disagreements"]] == ["docs/a.md"]
    half_a = tmp_path / "half-a.toml"  # shards: q:1001 by one annotator, q:1002 by the other
    half_a.write_text(qrels.split('[qrels."q:1002"]')[0])
    half_b = tmp_path / "half-b.toml"
    half_b.write_text('[qrels."q:1002"]\n' + qrels.split('[qrels."q:1002"]')[1])
    merged = run_cli("merge", directory, half_a, half_b, "-o", tmp_path / "merged.toml")
    assert merged.returncode == 0, merged.stderr
    assert "4 pairs" in merged.stderr + merged.stdout
    outside = tmp_path / "outside.toml"
    outside.write_text(qrels.replace('"faq#3" = 0', '"faq#3" = 0\n"docs/a.md" = 0'))  # q:1002's, not q:1001's
    assert_one_line_error(run_cli("agree", directory, alice, outside), "label outside the query's pool")
    # a shard's label outside the pools is an error, never dropped by the merge
    merged_outside = run_cli("merge", directory, outside, half_b, "-o", tmp_path / "merged2.toml")
    assert_one_line_error(merged_outside, "outside.toml", "label outside the query's pool")


def test_qrels_export_and_import_round_trip_on_pools(tmp_path):
    directory = make(tmp_path)
    exported = run_cli("qrels", "export", directory, "-o", tmp_path / "out.trec")
    assert exported.returncode == 0, exported.stderr
    lines = (tmp_path / "out.trec").read_text().splitlines()
    assert sorted(lines) == sorted(QRELS.splitlines())  # the pools' pairs, zeros included, nothing else
    imported = run_cli("qrels", "import", directory, tmp_path / "out.trec", "-o", tmp_path / "back.toml")
    assert imported.returncode == 0, imported.stderr
    (tmp_path / "bad.trec").write_text(QRELS + "q:1001 0 docs/a.md 0\n")  # docs/a.md is q:1002's, not q:1001's
    refused = run_cli("qrels", "import", directory, tmp_path / "bad.trec", "-o", tmp_path / "bad.toml")
    assert_one_line_error(refused, "label outside the query's pool")


def test_validate_names_a_runs_gap_and_a_label_outside_a_pool(tmp_path):
    directory = make(tmp_path)
    gap = run_cli("validate", directory, "--run", tmp_path / "dense.trec")
    assert gap.returncode == 0, gap.stderr
    assert (
        f"warning: run 'dense': 2 top-2 pairs in 2 queries outside the pools (score refuses it; never read as 0): "
        f"rankeval-tui grow {directory} --gap {tmp_path / 'dense.trec'}"
    ) in gap.stdout + gap.stderr
    qrels = directory / "qrels.toml"
    qrels.write_text(qrels.read_text().replace('"faq#3" = 0', '"faq#3" = 0\n"docs/a.md" = 0'))
    bad = run_cli("validate", directory)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "label outside the query's pool" in bad.stdout + bad.stderr


@pytest.mark.parametrize("growth", ["5", '"text"', "[1, 2]"])
def test_a_growth_record_that_is_not_tables_is_refused_not_extended(tmp_path, growth):
    """``grow`` appends to ``[[provenance.growth]]``: ``growth = 5`` was a traceback and
    ``growth = "text"`` became ``['t', 'e', 'x', 't', {...}]``; now every command names it."""
    directory = make(tmp_path)
    path = directory / "protocol.toml"
    path.write_text(path.read_text().replace("[provenance]\n", f"[provenance]\ngrowth = {growth}\n", 1))
    before = path.read_bytes()
    for command in (("grow", directory, "--gap", tmp_path / "dense.trec"), ("validate", directory)):
        result = run_cli(*command)
        assert "Traceback" not in result.stderr
        errors = [line for line in (result.stdout + result.stderr).splitlines() if line.startswith("error:")]
        assert errors == [
            f"error: {path}: [provenance] growth must be [[provenance.growth]] tables, got {growth.replace(chr(34), chr(39))}"
        ]
        assert result.returncode == 2
    assert path.read_bytes() == before


def test_grow_gap_without_texts_says_how_many_and_validate_names_them(tmp_path):
    from rankeval_tui.core.files import load_definition

    directory = make(tmp_path)
    grown = run_cli("grow", directory, "--gap", tmp_path / "dense.trec")
    assert grown.returncode == 0, grown.stderr
    definition = load_definition(directory)
    untexted = sorted({d for pool in (definition.pools or {}).values() for d in pool} - set(definition.documents))
    assert untexted  # a pooled protocol made without --corpus: no document has a text
    assert (
        f"warning: {len(untexted)} pooled documents without text: judging shows a placeholder; "
        f"add the texts with rankeval-tui grow {directory} --corpus FILE (validate lists them)"
    ) in grown.stdout
    checked = run_cli("validate", directory)
    assert f"{len(untexted)} pooled documents without text ({repr(untexted[0])}" in checked.stdout
    assert f"rankeval-tui grow {directory} --corpus FILE" in checked.stdout
