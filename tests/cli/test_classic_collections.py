"""Two classic collections nobody here wrote (CACM, binary; Cystic Fibrosis, graded 0-8), a BM25
run of each from a PyPI package, and the C trec_eval's numbers (tests/data/collections): two
commands, ``init --qrels Q --run R --k 100 --unlisted-as-zero [--relevant-from 1] --tie-order
score`` then ``score``, give trec_eval's value for every query and every mean of P, recall,
success, map_cut and ndcg_cut at 5, 10, 20 and 100, and recip_rank."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import REPO, run_cli
from tests.schema_check import validate

DATA = REPO / "tests" / "data" / "collections"
CUTOFFS = (5, 10, 20, 100)
MEASURES = {"P": "p", "recall": "recall", "success": "success", "map_cut": "ap", "ndcg_cut": "ndcg"}


def trec_eval_values(collection: str) -> dict[tuple[str, int], dict[str, str]]:
    """trec_eval.txt -> {(metric id, cutoff): {topic or 'all': '0.1518'}} (recip_rank as RR@100:
    every run ranks 100 documents a query, so its first relevant rank is within 100 or absent)."""
    table: dict[tuple[str, int], dict[str, str]] = {}
    for line in (DATA / collection / "trec_eval.txt").read_text().splitlines():
        measure, topic, value = (field.strip() for field in line.split("\t"))
        if measure == "recip_rank":
            key = ("rr", 100)
        else:
            name, _, cutoff = measure.rpartition("_")
            if name not in MEASURES:
                continue
            key = (MEASURES[name], int(cutoff))
        table.setdefault(key, {})[topic] = value
    return table


def scored(tmp_path: Path, collection: str, *init_args: str) -> dict[int, dict]:
    """The two commands; the JSON's run per cutoff."""
    directory = tmp_path / collection
    source = DATA / collection
    made = run_cli(
        "init",
        directory,
        "--qrels",
        source / "qrels.trec",
        "--run",
        source / "bm25.run",
        "--k",
        "100",
        "--unlisted-as-zero",
        "--tie-order",
        "score",
        *init_args,
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[-1] == f"next: rankeval-tui score {directory}"  # the gap is scored, not refused
    names = ",".join(f"{prefix}@{k}" for k in CUTOFFS for prefix in ("P", "R", "Success", "AP", "nDCG")) + ",RR@100"
    result = run_cli("score", directory, "--metrics", names, "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    validate(report, json.loads((REPO / "rankeval_tui" / "schema" / "report.schema.json").read_text()))
    assert report["protocol"]["unlisted_as_zero"] is True and report["protocol"]["tie_order"] == "score"
    graded = "--relevant-from" in init_args
    assert ("scale" in report["protocol"]) is graded
    runs = {100: report["runs"]["bm25"]}
    for cutoff, other in report["other_cutoffs"].items():
        runs[int(cutoff)] = other["runs"]["bm25"]
    return runs


@pytest.mark.parametrize(("collection", "init_args"), [("cacm", ()), ("cf", ("--relevant-from", "1"))])
def test_two_commands_give_trec_evals_numbers(tmp_path, collection, init_args):
    expected = trec_eval_values(collection)
    runs = scored(tmp_path, collection, *init_args)
    compared = 0
    for (metric, cutoff), values in expected.items():
        measures = runs[cutoff]["measures"][metric]
        per_query = {row["query"]: row["value_decimal"] for row in measures["per_query"]}
        for topic, value in values.items():
            ours = measures["mean_decimal"] if topic == "all" else per_query[topic]
            assert f"{ours:.4f}" == value, (metric, cutoff, topic, ours, value)
            compared += 1
    topics = len(expected["p", 5]) - 1
    assert compared == (len(MEASURES) * len(CUTOFFS) + 1) * (topics + 1)
    # every top-k pair the qrels do not list was labelled 0 by the declaration, and counted
    assert runs[100]["unlisted_pairs"] > 0
    assert runs[5]["unlisted_pairs"] < runs[100]["unlisted_pairs"]


def test_graded_ndcg_differs_from_binarized(tmp_path):
    """The graded nDCG above is not the binary one: binarized at import (--threshold 1) nDCG@10
    differs from trec_eval's graded ndcg_cut_10 on most queries."""
    expected = trec_eval_values("cf")["ndcg", 10]
    binary = scored(tmp_path, "cf", "--threshold", "1")[10]["measures"]["ndcg"]["per_query"]
    differing = [row for row in binary if f"{row['value_decimal']:.4f}" != expected[row["query"]]]
    assert len(differing) > len(binary) // 2
