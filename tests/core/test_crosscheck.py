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
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.synth import SynthData, SynthSpec, make_data, qrels_toml  # noqa: E402
from rankeval_tui.core.evaluation.evaluate import Report, Run, evaluate  # noqa: E402
from rankeval_tui.core.evaluation.metrics import DEFINITIONS, METRIC_IDS, PRIMARY, MetricId  # noqa: E402
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query  # noqa: E402
from rankeval_tui.core.files.tomllib_compat import tomllib  # noqa: E402  (tomli on Python 3.10)

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


def ours(data: SynthData, metrics: tuple[MetricId, ...] = PRIMARY) -> Report:
    definition = ProtocolDefinition(
        name="synth",
        k=data.spec.k,
        split="test",
        relevance="synthetic",
        documents=data.documents,
        queries={q: Query(text=m["text"], split=m["split"]) for q, m in data.queries.items()},
    )
    return evaluate(Protocol(definition, data.qrels), Run("A", data.runs["A"]), metrics)


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


# ---------------------------------------------------------------- every metric, where conventions coincide


# ir_measures' measure and pytrec_eval's measure and result key per metric at cutoff k, from the
# metric's own definition: a metric added to DEFINITIONS is cross-checked here, or fails here.
def peer_names(metric: MetricId) -> tuple[Callable, Callable | None, Callable | None]:
    definition = DEFINITIONS[metric]
    measure = getattr(ir_measures, definition.prefix)
    trec = definition.trec_eval
    if trec is None:
        return (lambda k: measure @ k, None, None)
    return (lambda k: measure @ k, lambda k: f"{trec}.{k}", lambda k: f"{trec}_{k}")


PEERS = {metric: peer_names(metric) for metric in METRIC_IDS}
EXACT_AS_DOUBLE = {"recall", "rr", "p", "success"}
"""One division each in the peers: IEEE division is correctly rounded, so the double of our exact
Fraction is their number bit for bit. AP sums precisions in doubles and nDCG uses the C library's
log2, so those are compared to 1e-12 (our nDCG discounts are 12-place decimals: docs/metrics.md)."""


def coinciding(seed: int) -> SynthData:
    """A random protocol where the peers' conventions are the seed's: every query of the split
    is in the run and has a relevant document (no dev split: ir_measures would score it too)."""
    spec = random_spec(seed)
    return make_data(SynthSpec(**{**spec.__dict__, "missing": 0.0, "no_relevant": 0.0, "dev": 0}))


@pytest.mark.parametrize("seed", range(40))
def test_every_metric_per_query_equals_ir_measures_and_pytrec_eval(seed: int) -> None:
    data = coinciding(seed)
    k = data.spec.k
    report = ours(data, METRIC_IDS)
    assert all(row.eligible and not row.missing for row in report.rows)
    run = peer_run(data.runs["A"])
    trec_measures = {name(k) for _, name, _ in PEERS.values() if name is not None}
    trec = pytrec_eval.RelevanceEvaluator(data.qrels, trec_measures).evaluate(run)
    irm: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc([measure(k) for measure, _, _ in PEERS.values()], data.qrels, run):
        irm.setdefault(metric.query_id, {})[str(metric.measure)] = metric.value
    assert set(irm) == set(trec) == {row.query for row in report.rows}
    for row in report.rows:
        for metric, (measure, _, trec_key) in PEERS.items():
            value = float(row.value(metric))  # type: ignore[arg-type]
            peers = [irm[row.query][str(measure(k))]] + ([] if trec_key is None else [trec[row.query][trec_key(k)]])
            for peer in peers:
                if metric in EXACT_AS_DOUBLE:
                    assert value == peer, (row.query, metric)
                else:
                    assert value == pytest.approx(peer, rel=0, abs=1e-12), (row.query, metric)
    # With every query eligible and returned, the means are the peers' means as well.
    for metric, (measure, _, _) in PEERS.items():
        peer_mean = sum(irm[q][str(measure(k))] for q in irm) / len(irm)
        assert float(report.mean(metric)) == pytest.approx(peer_mean, rel=0, abs=1e-12)  # type: ignore[arg-type]


def test_coinciding_protocols_are_not_trivial() -> None:
    """The check above must meet partial hits at varied ranks, else it passes on all-0/all-1."""
    partial = ranks_past_first = 0
    for seed in range(40):
        report = ours(coinciding(seed), METRIC_IDS)
        partial += sum(0 < row.value("ndcg") < 1 for row in report.rows)  # type: ignore[operator]
        ranks_past_first += sum(row.hits >= 2 for row in report.rows)
    assert partial > 100 and ranks_past_first > 50


def test_where_the_conventions_differ_by_design() -> None:
    """What docs/metrics.md lists, shown on one query each (q:2001 has 3 relevant, k = 2)."""
    definition = ProtocolDefinition(
        name="differences",
        k=2,
        split="test",
        relevance="r",
        documents={d: d for d in ("docs/a.md", "docs/b.md", "docs/c.md", "docs/d.md")},
        queries={q: Query(text=q, split="test") for q in ("q:2001", "q:2002", "q:2003")},
    )
    qrels = {
        "q:2001": {"docs/a.md": 1, "docs/b.md": 1, "docs/c.md": 1, "docs/d.md": 0},
        "q:2002": {"docs/a.md": 1, "docs/b.md": 0, "docs/c.md": 0, "docs/d.md": 0},
        "q:2003": {"docs/a.md": 0, "docs/b.md": 0, "docs/c.md": 0, "docs/d.md": 0},
    }
    # q:2002 is missing from the run; q:2003 has no relevant document.
    rankings = {"q:2001": ["docs/a.md", "docs/b.md", "docs/d.md"], "q:2003": ["docs/a.md"]}
    report = evaluate(Protocol(definition, qrels), Run("A", rankings), METRIC_IDS)
    run = peer_run(rankings)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut.2", "ndcg_cut.2"}).evaluate(run)
    irm = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc([ir_measures.AP @ 2], qrels, run)}
    q2001, q2002, q2003 = report.rows
    # AP@k divides by all relevant documents (3), as trec_eval's map_cut and ir_measures do; a
    # tool dividing by min(relevant, k) = 2 would say 1.
    assert q2001.value("ap") == Fraction(2, 3) and trec["q:2001"]["map_cut_2"] == irm[("q:2001", "AP@2")] == 2 / 3
    # Missing query: ours 0 and in the mean; pytrec_eval drops it, ir_measures scores it 0.
    assert q2002.missing and q2002.value("ap") == 0 and "q:2002" not in trec and irm[("q:2002", "AP@2")] == 0
    # No relevant document: ours null and excluded; both peers 0 and averaged in.
    assert q2003.value("ndcg") is None and trec["q:2003"]["ndcg_cut_2"] == 0
    assert report.mean("ap") == Fraction(2, 3) / 2  # over q:2001 and q:2002, not q:2003
    # Ties: trec_eval orders by score, then document ID descending, and ignores the rank; we order
    # by rank. The relevant docs/a.md ranked first, tied in score with docs/d.md: trec_eval puts
    # docs/d.md first.
    tied = pytrec_eval.RelevanceEvaluator({"q:2001": qrels["q:2001"]}, {"recip_rank"}).evaluate(
        {"q:2001": {"docs/a.md": 1.0, "docs/d.md": 1.0}}
    )
    ranked = evaluate(Protocol(definition, qrels), Run("A", {"q:2001": ["docs/a.md", "docs/d.md"]}))
    assert tied["q:2001"]["recip_rank"] == 0.5 and ranked.rows[0].rr == 1
