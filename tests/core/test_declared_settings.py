"""Protocol settings a collection declares: unlisted pairs 0 (``unlisted_as_zero``), a graded
scale (``grades``, ``relevant_from``) and the tie order. Each is hashed only when set (the seed's
hash is pinned by the seed tests), read and written by protocol.toml, and honoured by the one
evaluator: graded nDCG as trec_eval's ndcg_cut (pytrec_eval, the same C code), the binary
measures at ``relevant_from`` (trec_eval -l), unlisted top-k pairs counted, never refused."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import replace

import pytest

from rankeval_tui.core.annotation.pair_labels import checked_label
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.evaluation.protocol import LabelScale, Protocol, ProtocolDefinition, Query
from rankeval_tui.core.evaluation.tie_order import tie_order_report
from rankeval_tui.core.files.protocol_files import definition_to_toml, load_definition
from tests.core.seed import CORPUS, DEFINITION, PROTOCOL, QRELS, QUERIES

pytrec_eval = pytest.importorskip("pytrec_eval")

SCALE = LabelScale(("not relevant", "marginal", "relevant", "highly relevant"), 2)


def seed_text(**extra: object) -> str:
    """The seed's canonical JSON (json.dumps, sorted keys) with ``extra`` keys."""
    value = {"corpus": CORPUS, "k": PROTOCOL.k, "qrels": QRELS, "queries": QUERIES, "split": PROTOCOL.split, **extra}
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_setting_is_hashed_only_when_set_in_sorted_key_order():
    assert PROTOCOL.protocol_sha256 == sha(seed_text())  # none set: the seed's text
    unlisted = Protocol(replace(DEFINITION, unlisted_as_zero=True), QRELS)
    assert unlisted.protocol_sha256 == sha(seed_text(unlisted_as_zero=True))
    graded = Protocol(replace(DEFINITION, scale=SCALE), QRELS)
    assert graded.protocol_sha256 == sha(seed_text(relevant_from=2, scale=list(SCALE.words)))
    scored_by_score = Protocol(replace(DEFINITION, tie_order="score"), QRELS)
    assert scored_by_score.protocol_sha256 == PROTOCOL.protocol_sha256  # how runs are read: not hashed
    assert len({PROTOCOL.protocol_sha256, unlisted.protocol_sha256, graded.protocol_sha256}) == 3


def test_protocol_toml_round_trips_the_settings_and_writes_none_by_default(tmp_path):
    assert "unlisted_as_zero" not in definition_to_toml(DEFINITION)
    assert "grades" not in definition_to_toml(DEFINITION) and "tie_order" not in definition_to_toml(DEFINITION)
    declared = replace(DEFINITION, scale=SCALE, unlisted_as_zero=True, tie_order="score")
    (tmp_path / "protocol.toml").write_text(definition_to_toml(declared))
    read = load_definition(tmp_path)
    assert (read.scale, read.unlisted_as_zero, read.tie_order) == (SCALE, True, "score")


@pytest.mark.parametrize(
    ("header", "rule"),
    [
        ("relevant_from = 2", "relevant_from needs grades"),
        ('grades = ["no", "yes"]\nrelevant_from = 2', "relevant_from must be an integer grade from 1 to 1"),
        ('grades = ["only"]', "a word for each grade from 0, at least two"),
        ('tie_order = "random"', "tie_order must be rank or score"),
        ('unlisted_as_zero = "yes"', "key 'unlisted_as_zero' must be bool"),
    ],
)
def test_bad_settings_are_refused_naming_the_rule(tmp_path, header, rule):
    text = definition_to_toml(DEFINITION).replace("[protocol]\n", f"[protocol]\n{header}\n", 1)
    (tmp_path / "protocol.toml").write_text(text)
    problems: list[ContractError] = []
    with pytest.raises(ContractError) as raised:
        load_definition(tmp_path, report=problems.append)
    assert any(rule in problem.rule for problem in [*problems, raised.value]), [p.rule for p in problems]


def pooled(qrels: dict[str, dict[str, int]], **settings: object) -> Protocol:
    queries = {q: Query(text=None, split="test") for q in qrels}
    definition = ProtocolDefinition(
        name="p",
        k=5,
        split="test",
        relevance="r",
        documents={},
        queries=queries,
        pools={q: tuple(row) for q, row in qrels.items()},
        **settings,  # type: ignore[arg-type]
    )
    return Protocol(definition, qrels)


def test_unlisted_pairs_are_counted_and_scored_as_zero_not_refused():
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d9": 1}}
    run = Run("r", {"q1": ["x", "d1", "y", "d2", "z", "w"], "q2": ["d9"]})
    with pytest.raises(ContractError, match="outside the pools"):
        evaluate(pooled(qrels), run)
    report = evaluate(pooled(qrels, unlisted_as_zero=True), run, ("recall", "rr", "p"))
    assert report.unlisted == 3  # x, y, z in q1's top 5 (w is below k); q2's d9 is listed
    assert report.to_json()["unlisted_pairs"] == 3
    assert [row.rr for row in report.rows] == [pytest.approx(0.5), 1]
    assert "unlisted_pairs" not in evaluate(pooled(qrels), Run("r", {"q1": ["d1"], "q2": []})).to_json()


def test_a_listed_qrels_under_the_declaration_may_leave_pool_pairs_unlabelled():
    qrels = {"q1": {"d1": 1, "d2": 0}}
    definition = replace(pooled(qrels).definition, pools={"q1": ("d1", "d2", "d3")})
    with pytest.raises(ContractError, match="unjudged pool pair"):
        Protocol(definition, qrels)
    Protocol(replace(definition, unlisted_as_zero=True), qrels)  # d3: 0 by the declaration


def trec_eval_values(qrels, rankings, measures, level=1):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level)
    run = {q: {doc: float(len(ranking) - i) for i, doc in enumerate(ranking)} for q, ranking in rankings.items()}
    return evaluator.evaluate(run)


@pytest.mark.parametrize("seed", range(20))
def test_graded_measures_equal_trec_evals_at_relevant_from(seed):
    rng = random.Random(seed)
    documents = [f"d{i}" for i in range(30)]
    top = rng.choice([2, 3, 4, 8])
    relevant_from = rng.randint(1, top)
    qrels = {f"q{i}": {doc: rng.randint(0, top) for doc in rng.sample(documents, rng.randint(1, 15))} for i in range(8)}
    rankings = {q: rng.sample(documents, rng.randint(0, 12)) for q in qrels}
    scale = LabelScale(tuple(f"g{g}" for g in range(top + 1)), relevant_from)
    protocol = pooled(qrels, scale=scale, unlisted_as_zero=True)
    report = evaluate(protocol, Run("r", rankings), ("recall", "rr", "p", "success", "ap", "ndcg"))
    peer = trec_eval_values(qrels, rankings, {"ndcg_cut.5", "P.5", "recall.5", "map_cut.5"}, relevant_from)
    for row in report.rows:
        if not row.eligible:  # no grade >= relevant_from: null here (trec_eval reports 0 for R, P, AP)
            continue
        theirs = peer[row.query]
        assert float(row.value("ndcg")) == pytest.approx(theirs["ndcg_cut_5"], abs=1e-9), (seed, row.query)
        assert float(row.value("p")) == pytest.approx(theirs["P_5"], abs=1e-12)
        assert float(row.recall) == pytest.approx(theirs["recall_5"], abs=1e-12)
        assert float(row.value("ap")) == pytest.approx(theirs["map_cut_5"], abs=1e-12)


def test_tie_order_score_scores_as_trec_eval_orders_and_warns_of_nothing():
    qrels = {"q1": {"a": 0, "b": 1}}
    run = Run("r", {"q1": ["a", "b"]}, score_order={"q1": ["b", "a"]})
    by_rank = pooled(qrels)
    assert evaluate(by_rank, run).rows[0].rr == pytest.approx(0.5)
    assert tie_order_report(by_rank, run) is not None
    by_score = pooled(qrels, tie_order="score")
    assert evaluate(by_score, run).rows[0].rr == 1
    assert tie_order_report(by_score, run) is None


def test_a_graded_protocol_takes_its_grades_as_labels_and_nothing_above():
    assert checked_label(3, SCALE.top) == 3
    with pytest.raises(ContractError, match="integer grade 0 to 3"):
        checked_label(4, SCALE.top)
    with pytest.raises(ContractError, match="integer 0 or 1"):
        checked_label(2)


def test_a_graded_ndcg_explanation_adds_up_to_the_evaluators_value():
    from rankeval_tui.core.evaluation.explain import explain

    qrels = {"q1": {"a": 3, "b": 0, "c": 1, "d": 2}}
    protocol = pooled(qrels, scale=SCALE, unlisted_as_zero=True)
    ranking = ["x", "c", "a", "b", "d", "y"]
    row = evaluate(protocol, Run("r", {"q1": ranking}), ("ndcg",)).rows[0]
    why = explain(row, ranking, protocol.relevant["q1"], protocol.k, "ndcg", protocol.gains_of("q1"))
    assert [term.label for term in why.terms] == ["1/log2(2+1)", "3/log2(3+1)", "2/log2(5+1)"]
    assert why.value == row.value("ndcg")
