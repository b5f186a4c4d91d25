"""Our per-query Recall@k and RR@k against pytrec_eval (trec_eval) and ir_measures.

On many seeded random protocols (benchmarks/synth.py) the numbers must be equal wherever the
definitions coincide (an eligible query the run returned), and differ exactly where the seed's
protocol says they must:

- a query missing from the run stays in our denominator at 0 (pytrec_eval drops it,
  ir_measures scores it 0 as we do);
- a query with no relevant document is null for us and excluded from both means (both peers
  score it 0 and average it in);
- trec_eval's ``recip_rank`` ignores the cutoff: where our RR@k is 0 it may report 1/r, r > k.

Skipped when the peers (the ``crosscheck`` extra) are not installed.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.synth import SynthData, SynthSpec, make_data, qrels_toml  # noqa: E402
from rankeval_tui.core.evaluation.evaluate import Report, Run, evaluate  # noqa: E402
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query  # noqa: E402
from rankeval_tui.core.files.tomlio import tomllib  # noqa: E402  (tomli on Python 3.10)

SEEDS = range(80)


def random_spec(seed: int) -> SynthSpec:
    """Small protocols of varied shape; seeds decide everything, so a failure is reproducible."""
    import random

    rng = random.Random(10_000 + seed)
    documents = rng.randint(1, 25)
    return SynthSpec(
        queries=rng.randint(1, 30),
        documents=documents,
        depth=rng.randint(1, documents),
        k=rng.randint(1, 8),
        seed=seed,
        missing=0.25,
        no_relevant=0.25,
        max_relevant=rng.randint(1, 6),
        dev=rng.randint(0, 3),
    )


def ours(data: SynthData) -> Report:
    definition = ProtocolDefinition(
        name="synth",
        k=data.spec.k,
        split="test",
        relevance="synthetic",
        documents=data.documents,
        queries={q: Query(text=m["text"], split=m["split"]) for q, m in data.queries.items()},
    )
    return evaluate(Protocol(definition, data.qrels), Run("A", data.runs["A"]))


def peer_run(rankings: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """Scores strictly decreasing with rank, so trec_eval's score order is our rank order."""
    return {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in rankings.items()}


@pytest.mark.parametrize("seed", SEEDS)
def test_per_query_values_equal_peers_where_definitions_coincide(seed: int) -> None:
    data = make_data(random_spec(seed))
    k = data.spec.k
    report = ours(data)
    run = peer_run(data.runs["A"])
    trec = pytrec_eval.RelevanceEvaluator(data.qrels, {f"recall.{k}", "recip_rank"}).evaluate(run)
    # ir_measures scores every query of the qrels it is given: give it the split's queries only.
    split_qrels = {q: data.qrels[q] for q in data.selected}
    irm: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc([ir_measures.R @ k, ir_measures.RR @ k], split_qrels, run):
        irm.setdefault(metric.query_id, {})[str(metric.measure)] = metric.value
    r_key, rr_key = str(ir_measures.R @ k), str(ir_measures.RR @ k)

    assert [row.query for row in report.rows] == data.selected  # fixed denominator, dev excluded
    for row in report.rows:
        q = row.query
        if not row.eligible:
            # The seed: null, excluded. Peers: 0, averaged in.
            assert row.recall is None and row.rr is None
            assert irm[q][r_key] == 0 and irm[q][rr_key] == 0
            if q in run:
                assert trec[q][f"recall_{k}"] == 0 and trec[q]["recip_rank"] == 0
            else:
                assert q not in trec
        elif row.missing:
            # The seed: kept in the denominator at 0. pytrec_eval drops it; ir_measures says 0.
            assert row.recall == 0 and row.rr == 0
            assert q not in trec
            assert irm[q][r_key] == 0 and irm[q][rr_key] == 0
        else:
            # Same definitions: the same numbers (IEEE division is correctly rounded, so equal).
            assert float(row.recall) == trec[q][f"recall_{k}"] == irm[q][r_key]
            assert float(row.rr) == irm[q][rr_key]
            uncut = trec[q]["recip_rank"]
            if row.first_relevant_rank is not None:
                assert uncut == float(row.rr)
            else:
                # trec_eval has no RR@k: a first hit past k still counts there.
                assert uncut == 0 or round(1 / uncut) > k

    eligible = [row for row in report.rows if row.eligible]
    if eligible:
        returned = [row for row in eligible if not row.missing]
        assert report.recall_at_k == sum((row.recall for row in eligible), Fraction(0)) / len(eligible)
        trec_sum = sum(trec[row.query][f"recall_{k}"] for row in returned)
        assert float(report.recall_at_k) == pytest.approx(trec_sum / len(eligible), abs=1e-12)
        if len(trec) == len(eligible) == len(report.rows):
            # No missing and no no-relevant query: trec_eval's own mean is ours.
            mean = sum(m[f"recall_{k}"] for m in trec.values()) / len(trec)
            assert float(report.recall_at_k) == pytest.approx(mean, abs=1e-12)
    else:
        assert report.recall_at_k is None and report.mrr_at_k is None


def test_random_protocols_exercise_every_convention() -> None:
    """The parametrised test above must meet missing, no-relevant and RR-past-k cases, or it
    would pass without checking the differences it documents."""
    missing = no_relevant = past_k = both_present = 0
    for seed in SEEDS:
        data = make_data(random_spec(seed))
        report = ours(data)
        missing += sum(row.missing and row.eligible for row in report.rows)
        no_relevant += sum(not row.eligible for row in report.rows)
        both_present += sum(row.eligible and not row.missing for row in report.rows)
        for row in report.rows:
            ranking = data.runs["A"].get(row.query, [])
            relevant = {d for d, v in data.qrels[row.query].items() if v}
            if row.eligible and row.first_relevant_rank is None and relevant & set(ranking[data.spec.k :]):
                past_k += 1
    assert missing > 20 and no_relevant > 20 and past_k > 20 and both_present > 200


def test_synthetic_qrels_text_is_what_tomli_w_writes() -> None:
    """The generator writes qrels.toml directly (tomli-w is too slow at millions of pairs); it
    must be byte-for-byte the project's own format, and parse back to the same labels."""
    import tomli_w

    data = make_data(SynthSpec(queries=7, documents=9, depth=4, seed=3, dev=2))
    text = qrels_toml(data.qrels)
    assert text == tomli_w.dumps({"qrels": data.qrels})
    assert tomllib.loads(text) == {"qrels": data.qrels}
