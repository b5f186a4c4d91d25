"""trec_eval's own test collection (tests/data/trec_eval, public NIST data): two commands, TREC
files in, trec_eval's numbers out, through a pooled protocol whose pools are the judged pairs."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from tests.cli.helpers import REPO, assert_one_line_error, run_cli

DATA = REPO / "tests" / "data" / "trec_eval"
MEASURES = {"P_10": "p", "recall_10": "recall", "ndcg_cut_10": "ndcg", "map_cut_10": "ap"}


def expected_values() -> dict[str, dict[str, str]]:
    """out.test.aq: ``measure<TAB>topic<TAB>value`` -> {measure: {topic or 'all': '0.1518'}}."""
    table: dict[str, dict[str, str]] = {}
    for line in (DATA / "out.test.aq").read_text().splitlines():
        measure, topic, value = (field.strip() for field in line.split("\t"))
        table.setdefault(measure, {})[topic] = value
    return table


def init_and_score(tmp_path: Path, *init_args: str) -> dict:
    directory = tmp_path / "te"
    made = run_cli("init", directory, "--run", DATA / "results.test", "--k", "10", *init_args)
    assert made.returncode == 0, made.stderr
    scored = run_cli("score", directory, "--metrics", "P@10,R@10,nDCG@10,AP@10,RR@10", "--format", "json")
    assert scored.returncode == 0, scored.stderr
    return json.loads(scored.stdout)


def test_init_and_score_give_trec_evals_values_per_topic_and_mean(tmp_path):
    report = init_and_score(tmp_path, "--qrels", str(DATA / "qrels.test"))
    expected = expected_values()
    (run,) = report["runs"].values()
    measures = run["measures"]
    assert [row["query"] for row in measures["p"]["per_query"]] == ["301", "302", "303"]
    for measure, metric in MEASURES.items():
        for row in measures[metric]["per_query"]:
            assert f"{row['value_decimal']:.4f}" == expected[measure][row["query"]], (measure, row)
        assert f"{measures[metric]['mean_decimal']:.4f}" == expected[measure]["all"], measure
    # the pool's relevant count is recall's denominator: trec_eval's num_rel, per topic and in all
    rows = {row["query"]: row for row in run["rows"]}
    for topic in ("301", "302", "303"):
        assert rows[topic]["relevant"] == int(expected["num_rel"][topic])
    assert sum(row["relevant"] for row in rows.values()) == int(expected["num_rel"]["all"])
    # RR@10 is trec_eval's recip_rank where the first relevant document is within 10 (301, 302);
    # 303's is at rank 19 (recip_rank 0.0526), so RR@10 is 0 there.
    for row in measures["rr"]["per_query"]:
        if rows[row["query"]]["first_relevant_rank"] is not None:
            assert f"{row['value_decimal']:.4f}" == expected["recip_rank"][row["query"]]
        else:
            assert row["value"] == "0" and float(expected["recip_rank"][row["query"]]) == pytest.approx(
                1 / 19, abs=1e-4
            )
    assert Fraction(measures["p"]["mean"]) == Fraction(3, 10)


def test_pooled_protocol_is_made_from_the_judged_pairs_only(tmp_path):
    directory = tmp_path / "te"
    made = run_cli("init", directory, "--qrels", DATA / "qrels.test", "--run", DATA / "results.test", "--k", "10")
    assert made.returncode == 0, made.stderr
    # 3,681 pooled judgments, nothing asked: no invented corpus, no invented zero
    assert "labels: 3681 imported, 0 of 3681 pairs to judge" in made.stdout
    assert "pooled protocol, 3 queries" in made.stdout
    text = (directory / "protocol.toml").read_text()
    assert 'kind = "pooled"' in text and "[pools]" in text


def test_graded_scale_read_as_trec_eval_reads_it_with_threshold_1(tmp_path):
    """qrels.rel_level (-1..4): rel >= 1 relevant, rel <= 0 (negatives included) judged not relevant."""
    report = init_and_score(tmp_path, "--qrels", str(DATA / "qrels.rel_level"), "--threshold", "1")
    relevant: dict[str, int] = {}
    for line in (DATA / "qrels.rel_level").read_text().splitlines():
        topic, _, _, rel = line.split()
        relevant[topic] = relevant.get(topic, 0) + (int(rel) >= 1)
    (run,) = report["runs"].values()
    assert {row["query"]: row["relevant"] for row in run["rows"]} == relevant
    qrels = (tmp_path / "te" / "qrels.toml").read_text()
    assert 'threshold_rule = "rel >= 1 -> 1, otherwise 0"' in qrels


def test_negative_labels_need_an_explicit_rule(tmp_path):
    qrels = tmp_path / "neg.qrels"
    qrels.write_text("301 0 CR93E-10279 0\n301 0 CR93E-10505 -1\n")
    made = run_cli("init", tmp_path / "te", "--qrels", qrels, "--run", DATA / "results.test", "--k", "10")
    assert_one_line_error(made, "neg.qrels", "line 2", "negative relevance -1", "--threshold 1")
    assert not (tmp_path / "te").exists()


def test_relevant_values_rule_is_recorded(tmp_path):
    directory = tmp_path / "te"
    made = run_cli("init", directory, "--qrels", DATA / "qrels.rel_level", "--relevant-values", "1,2,3,4", "--k", "10")
    assert made.returncode == 0, made.stderr
    qrels = (directory / "qrels.toml").read_text()
    assert (
        "relevant_values = [\n    1,\n    2,\n    3,\n    4,\n]" in qrels or "relevant_values = [1, 2, 3, 4]" in qrels
    )
    assert 'label_rule = "rel in {1, 2, 3, 4} -> 1, otherwise 0"' in qrels
    # 304 negatives and 2,818 zeros are judged not relevant; 559 labels 1..4 (462+14+77+6) relevant
    assert "labels_mapped = 401" in qrels  # -1 -> 0 (304) and 2, 3, 4 -> 1 (97)


def test_own_data_md_shows_what_init_and_score_print(tmp_path):
    """docs/own-data.md quotes this collection's two commands; their output there is the real one."""
    import shutil

    for name in ("qrels.test", "results.test"):
        shutil.copy(DATA / name, tmp_path / name)
    made = run_cli("init", "trec-test", "--qrels", "qrels.test", "--run", "results.test", "--k", "10", cwd=tmp_path)
    scored = run_cli("score", "trec-test", "--metrics", "P@10,R@10,nDCG@10,AP@10", cwd=tmp_path)
    doc = (REPO / "docs" / "own-data.md").read_text(encoding="utf-8")
    block = doc.split("    $ rankeval-tui init trec-test --qrels qrels.test --run results.test --k 10\n")[1]
    init_lines, rest = block.split("    $ rankeval-tui score trec-test --metrics P@10,R@10,nDCG@10,AP@10\n")
    score_lines = rest.split("\n\n")[0]
    output = made.stdout + made.stderr
    for line in init_lines.splitlines():
        assert line[4:] in output, line
    for line in score_lines.splitlines():
        if line.strip() != "...":
            assert line[4:] in scored.stdout, line


def test_several_cutoffs_in_one_call_give_trec_evals_values(tmp_path):
    """``--metrics P@5,R@5,nDCG@5,AP@5,P@10``: the protocol's k (10) at the top level, cutoff 5
    as its own protocol (its own hash) in ``other_cutoffs``; trec_eval's _5 measures per topic."""
    from tests.cli.test_report_json import schema
    from tests.schema_check import validate

    directory = tmp_path / "te"
    made = run_cli("init", directory, "--qrels", DATA / "qrels.test", "--run", DATA / "results.test", "--k", "10")
    assert made.returncode == 0, made.stderr
    scored = run_cli("score", directory, "--metrics", "P@5,R@5,nDCG@5,AP@5,P@10", "--format", "json")
    assert scored.returncode == 0, scored.stderr
    report = json.loads(scored.stdout)
    validate(report, schema())
    expected = expected_values()
    assert report["protocol"]["k"] == 10 and list(report["runs"]["results"]["measures"]) == ["p"]
    at_five = report["other_cutoffs"]["5"]
    assert at_five["k"] == 5 and at_five["protocol_sha256"] != report["protocol"]["protocol_sha256"]
    measures = at_five["runs"]["results"]["measures"]
    for measure, metric in {"P_5": "p", "recall_5": "recall", "ndcg_cut_5": "ndcg", "map_cut_5": "ap"}.items():
        for row in measures[metric]["per_query"]:
            assert f"{row['value_decimal']:.4f}" == expected[measure][row["query"]], (measure, row)
        assert f"{measures[metric]['mean_decimal']:.4f}" == expected[measure]["all"], measure
    # the same numbers as scoring at --k 5 alone (one evaluator, one protocol per cutoff)
    alone = json.loads(run_cli("score", directory, "--k", "5", "--metrics", "P@5", "--format", "json").stdout)
    assert alone["protocol"]["protocol_sha256"] == at_five["protocol_sha256"]
    assert alone["runs"]["results"]["measures"]["p"] == measures["p"]
    deeper = run_cli("score", directory, "--metrics", "P@10,P@20")
    assert_one_line_error(deeper, "cutoff 20 is above k (10): a cutoff is at most k", "--k 20")
