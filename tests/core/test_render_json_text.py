"""``render_json``'s text is ``json.dumps(..., ensure_ascii=False, indent=2)`` of the reports'
plain JSON, byte for byte: the per-query lists it writes as ``json_text.Columns`` (each distinct
row of values written once) say exactly what ``report_json`` without columns says."""

from __future__ import annotations

import json
import random

import pytest

from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.evaluation.metrics import PRIMARY
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query
from rankeval_tui.core.evaluation.render import render_json, report_json
from rankeval_tui.core.files import load_protocol, load_run
from tests.cli.helpers import REPO

SEED = REPO / "protocols" / "help-docs-zh"
EVERY_METRIC = ("recall", "rr", "p", "success", "ap", "ndcg")


def synthetic(seed: int) -> tuple[Protocol, list[Run]]:
    """300 queries x 40 documents, runs of every length (none, short, past k), queries missing."""
    rng = random.Random(seed)
    documents = {f"msmarco_v2.1_doc_00_{12345 + d}": f"text {d}" for d in range(40)}
    queries = {f"q:{1001 + q}": Query(f"query {q}", "test") for q in range(300)}
    qrels = {q: {d: int(rng.random() < 0.1) for d in documents} for q in queries}
    definition = ProtocolDefinition("synthetic", 10, "test", "r", documents, queries)
    runs = []
    for name in ("A", "B"):
        rankings = {q: rng.sample(list(documents), rng.choice([0, 1, 3, 10, 25, 40])) for q in queries}
        runs.append(Run(name, {q: ranking for q, ranking in rankings.items() if rng.random() < 0.9}))
    return Protocol(definition, qrels), runs


def check(protocol: Protocol, runs: list[Run], metrics: tuple[str, ...]) -> None:
    reports = [evaluate(protocol, run, metrics) for run in runs]  # type: ignore[arg-type]
    text = render_json(protocol, reports)
    data = json.loads(text)
    assert text == json.dumps(data, ensure_ascii=False, indent=2)
    for report in reports:
        assert data["runs"][report.run] == json.loads(json.dumps(report_json(report)))


@pytest.mark.parametrize("metrics", [PRIMARY, EVERY_METRIC])
@pytest.mark.parametrize("seed", [0, 1])
def test_synthetic_reports(metrics: tuple[str, ...], seed: int) -> None:
    check(*synthetic(seed), metrics)


@pytest.mark.parametrize("metrics", [PRIMARY, EVERY_METRIC])
def test_seed_reports(metrics: tuple[str, ...]) -> None:
    protocol = load_protocol(SEED)
    runs = [load_run(SEED / "runs" / name) for name in ("fixture_A.json", "fixture_B.json", "all_empty.json")]
    check(protocol, runs, metrics)
