"""Issue 33 item 5: trec_eval's tie order, one warning line per run, details on request.

A TREC run of the 500-query protocol with ties in score (seeded). What trec_eval would do is
worked out here: each query sorted by (score, document ID) descending, evaluated by the
evaluator; the queries whose values at k differ are counted here, not by the code under test.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest

from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.evaluation.metrics import METRIC_IDS
from rankeval_tui.core.evaluation.tie_order import tie_order_report
from rankeval_tui.core.files import load_protocol, load_run
from tests.cli.helpers import run_cli


@pytest.fixture(scope="module")
def tied(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, list[tuple[str, int]]]]:
    from tests.tui.big_protocol import write_big_protocol

    directory = write_big_protocol(tmp_path_factory.mktemp("ties") / "mid", queries=500)
    rng = random.Random(33)
    rankings = json.loads((directory / "runs" / "bm25.json").read_text(encoding="utf-8"))
    scored: dict[str, list[tuple[str, int]]] = {}
    lines = []
    for query, docs in rankings.items():
        tie = rng.random() < 0.3  # a third of the queries: scores tied in groups of three
        scored[query] = [(doc, 100 - ((rank - 1) // 3 if tie else rank)) for rank, doc in enumerate(docs, 1)]
        lines += [f"{query} Q0 {doc} {rank} {score} tied" for rank, (doc, score) in enumerate(scored[query], 1)]
    path = directory / "tied.trec"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return directory, path, scored


def trec_eval_order(scored: dict[str, list[tuple[str, int]]]) -> dict[str, list[str]]:
    return {q: [d for d, _ in sorted(pairs, key=lambda p: (p[1], p[0]), reverse=True)] for q, pairs in scored.items()}


def test_one_line_per_run_with_counts_worked_out_independently(tied) -> None:
    directory, path, scored = tied
    protocol = load_protocol(directory)
    ours = {q: [d for d, _ in pairs] for q, pairs in scored.items()}
    theirs = trec_eval_order(scored)
    differing = [q for q in protocol.selected_queries if q in ours and ours[q] != theirs[q]]
    a = evaluate(protocol, Run("a", ours), METRIC_IDS)
    b = evaluate(protocol, Run("b", theirs), METRIC_IDS)
    changing = [q for q in differing if any(a.row(q).value(m) != b.row(q).value(m) for m in METRIC_IDS)]
    assert 0 < len(changing) < len(differing)  # the data shows both kinds

    result = run_cli("score", directory, "--run", path, "--format", "json")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines  # one line for the run, not one per query
    assert re.search(
        rf"{len(differing)} queries ranked otherwise by trec_eval .*; {len(changing)} of them change", lines[0]
    )
    assert "score --score-order orders like trec_eval" in lines[0] and "--tie-order-details" in lines[0]

    details = run_cli("score", directory, "--run", path, "--tie-order-details", "--format", "json").stderr.splitlines()
    assert details[0] == lines[0] and len(details) == 1 + len(differing)
    assert sum("changes no value at k=10" not in line for line in details[1:]) == len(changing)


def test_score_order_scores_as_trec_eval_orders(tied) -> None:
    directory, path, scored = tied
    protocol = load_protocol(directory)
    expected = evaluate(protocol, Run("tied", trec_eval_order(scored)))
    result = run_cli("score", directory, "--run", path, "--score-order", "--format", "json")
    assert result.returncode == 0 and result.stderr == ""  # nothing differs any more: no warning
    report = json.loads(result.stdout)["runs"]["tied"]
    assert report["mrr_at_k"] == str(expected.mrr_at_k) and report["recall_at_k"] == str(expected.recall_at_k)
    default = json.loads(run_cli("score", directory, "--run", path, "--format", "json").stdout)["runs"]["tied"]
    assert default["mrr_at_k"] != report["mrr_at_k"]  # the option changes what is scored


def test_the_screens_line_names_only_runs_whose_values_change(tied) -> None:
    """The status line counts and names the queries whose value changes; a run whose tie order
    changes no value gets no line on screen (stderr's summary still says it)."""
    directory, path, scored = tied
    protocol = load_protocol(directory)
    report = tie_order_report(protocol, load_run(path, "tied"), METRIC_IDS)
    assert report is not None and report.changed
    line = report.status_line()
    assert line is not None and "\n" not in line
    assert f"{len(report.changed)} quer" in line and repr(report.changed[0][0]) in line
    unchanged = replace(report, changed=())
    assert unchanged.status_line() is None and "0 of them" in unchanged.summary()
