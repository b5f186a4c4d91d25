"""ScoringSession: the scoring screen's view model, checked against the seed and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.render import report_json
from rankeval_tui.core.session import ScoringSession

SEED_HASH = "9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb"


def test_default_runs_are_the_runs_directory_and_match_the_seed(seed_dir: Path, seed_expected: dict) -> None:
    session = ScoringSession.load(seed_dir)
    assert [s.name for s in session.scored] == ["all_empty", "fixture_A", "fixture_B"]
    assert session.protocol.protocol_sha256 == SEED_HASH
    for name in ("fixture_A", "fixture_B"):
        data = session.report(name).to_json()
        data.pop("source")
        assert data == seed_expected["results"][name]
    assert session.eligible_queries == 3
    assert session.splits == ("dev", "test")


def test_session_numbers_equal_score_json(seed_dir: Path) -> None:
    """The screen's source of numbers and ``score --format json`` agree run by run."""
    out = subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "score", str(seed_dir), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    cli = json.loads(out)["runs"]
    session = ScoringSession.load(seed_dir)
    assert {s.name: report_json(s.report) for s in session.accepted} == cli


def test_rejected_run_keeps_its_reason_and_others_stay_usable(seed_copy: Path) -> None:
    (seed_copy / "runs" / "dup.json").write_text('{"q2": ["d3", "d3"]}', encoding="utf-8")
    (seed_copy / "runs" / "broken.json").write_text('{"q2": ', encoding="utf-8")
    session = ScoringSession.load(seed_copy)
    rejected = {s.name: s.error for s in session.rejected}
    assert set(rejected) == {"dup", "broken"}
    assert "duplicate document ID" in rejected["dup"] and "'d3'" in rejected["dup"]
    assert "invalid JSON" in rejected["broken"]
    assert [s.name for s in session.accepted] == ["all_empty", "fixture_A", "fixture_B"]
    with pytest.raises(KeyError):
        session.report("dup")


def test_same_name_twice_is_rejected_not_merged(seed_dir: Path) -> None:
    a = seed_dir / "runs" / "fixture_A.json"
    session = ScoringSession.load(seed_dir, [(None, a), ("fixture_A", seed_dir / "runs" / "fixture_B.json")])
    assert [s.rejected for s in session.scored] == [False, True]
    assert "two runs are named 'fixture_A'" in session.scored[1].error


def test_k_change_rescores_with_a_new_hash(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir)
    k1 = session.with_k(1)
    assert k1.protocol.k == 1 and k1.protocol.protocol_sha256 != SEED_HASH
    b = k1.report("fixture_B")
    assert b.k == 1 and b.protocol_sha256 == k1.protocol.protocol_sha256
    assert str(b.recall_at_k) == "2/3" and str(b.mrr_at_k) == "2/3"  # q2's hit is at rank 2: out of the top 1
    assert k1.with_k(2).protocol.protocol_sha256 == SEED_HASH
    with pytest.raises(ContractError):
        session.with_k(0)


def test_split_change_rejects_runs_of_the_other_split(seed_dir: Path) -> None:
    dev = ScoringSession.load(seed_dir).with_split("dev")
    assert dev.protocol.selected_queries == ("q1",)
    errors = {s.name: s.error for s in dev.rejected}
    assert "wrong-split query" in errors["fixture_A"]
    with pytest.raises(ContractError):
        dev.with_split("nope")


def test_reload_rereads_run_files_keeping_k(seed_copy: Path) -> None:
    session = ScoringSession.load(seed_copy).with_k(1)
    (seed_copy / "runs" / "fixture_A.json").write_text('{"q4": ["d6"]}', encoding="utf-8")
    again = session.reload()
    assert again.protocol.k == 1
    assert again.report("fixture_A").missing_queries == ["q2", "q3", "q5"]
    assert session.report("fixture_A").missing_queries == ["q4"]  # the old session is untouched


def test_invalid_protocol_raises(seed_copy: Path) -> None:
    qrels = seed_copy / "qrels.toml"
    qrels.write_text(qrels.read_text(encoding="utf-8").replace("d6 = 1\n", "", 1), encoding="utf-8")
    with pytest.raises(ContractError, match="unjudged"):
        ScoringSession.load(seed_copy)


def test_chunk_map_runs_through_the_adapter(seed_dir: Path, seed_expected_chunk: dict) -> None:
    session = ScoringSession.load(
        seed_dir,
        [(None, seed_dir / "chunks" / "chunk_run.json")],
        chunk_map_path=seed_dir / "chunks" / "chunk_map.toml",
    )
    report = session.report("chunk_run")
    expected = seed_expected_chunk["collapse_then_document_cutoff"]
    assert report.adapter_sha256 is not None
    assert report.to_json()["recall_at_k"] == expected["recall_at_2"]
    assert report.to_json()["mrr_at_k"] == expected["mrr_at_2"]
    assert report.missing_queries == expected["missing_queries"]


# ---------------------------------------------------------------- adjudication and paired statistics


def adjudicate_copy(protocol_dir: Path, tmp_path: Path) -> Path:
    """Write ``protocol_dir/qrels.toml`` through the real adjudication path (core.adjudication).

    alice has the seed's labels, bob disagrees on q1/d1, q2/d4 and q4/d6, and the adjudicator
    carol sides with alice every time: the final labels are the seed's (so every score stays
    the seed's) while q1, q2 and q4 are adjudicated.
    """
    import copy

    import tomli_w

    from rankeval_tui.core.annotation.adjudication import AdjudicationSession
    from rankeval_tui.core.files import load_definition
    from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10

    labels = tomllib.loads((protocol_dir / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    bob = copy.deepcopy(labels)
    bob["q1"]["d1"], bob["q2"]["d4"], bob["q4"]["d6"] = 1, 0, 0
    a, b = tmp_path / "alice.toml", tmp_path / "bob.toml"
    a.write_text(tomli_w.dumps({"provenance": {"annotators": ["alice"]}, "qrels": labels}), encoding="utf-8")
    b.write_text(tomli_w.dumps({"provenance": {"annotators": ["bob"]}, "qrels": bob}), encoding="utf-8")
    out = protocol_dir / "qrels.toml"
    session = AdjudicationSession.open(load_definition(protocol_dir), a, b, out, adjudicator="carol")
    try:
        while not session.complete:
            item = session.current
            session.decide(item.labels[0], "alice's label matches the need")
        session.write()
    finally:
        session.close()
    return out


def test_adjudicated_queries_come_from_the_written_qrels(seed_copy: Path, tmp_path: Path, seed_expected: dict) -> None:
    adjudicate_copy(seed_copy, tmp_path)
    session = ScoringSession.load(seed_copy)
    assert session.adjudicated == {"q1", "q2", "q4"}
    assert session.adjudicated_queries() == ("q2", "q4")  # the test split's, in protocol order
    assert session.with_split("dev").adjudicated_queries() == ("q1",)
    assert session.with_k(3).adjudicated == session.adjudicated
    data = session.report("fixture_A").to_json()
    data.pop("source")
    assert data == seed_expected["results"]["fixture_A"]  # the labels are the seed's: scores unchanged
    assert ScoringSession.load(Path(__file__).resolve().parents[2] / "protocols" / "help-docs-zh").adjudicated == set()


def test_reload_picks_up_a_new_adjudication(seed_copy: Path, tmp_path: Path) -> None:
    session = ScoringSession.load(seed_copy)
    assert session.adjudicated_queries() == ()
    adjudicate_copy(seed_copy, tmp_path)
    assert session.reload().adjudicated_queries() == ("q2", "q4")


def test_statistics_of_the_seed_equal_score_json(seed_dir: Path) -> None:
    """fixture_B vs fixture_A: exact sign-flip p 3/4 (MRR: deltas -1/2, +1/2, +1) and 1 (Recall:
    0, 0, +1); with all_empty in the family too, Holm doubles the smaller p exactly as the CLI."""
    from fractions import Fraction

    from rankeval_tui.core.evaluation.paired_defaults import DEFAULT_ALPHA

    pair = ScoringSession.load(seed_dir, [(None, seed_dir / "runs" / f"{n}.json") for n in ("fixture_A", "fixture_B")])
    stats = pair.statistics("fixture_A")
    b = stats.get("fixture_B")
    assert b.metrics["rr"].p_value == Fraction(3, 4) and b.metrics["rr"].sign_flip.method == "exact"
    assert b.metrics["recall"].p_value == 1
    assert b.metrics["rr"].p_holm == Fraction(3, 4)  # one candidate: Holm changes nothing
    assert pair.statistics("fixture_B").get("fixture_A").metrics["rr"].mean_delta == Fraction(-1, 3)

    everything = ScoringSession.load(seed_dir)
    family = everything.statistics("fixture_A")
    assert [c.candidate for c in family.candidates] == ["all_empty", "fixture_B"]
    # score computes only the requested test (the other is null); the screen computes both: each
    # of score's two reports equals the screen's numbers everywhere but the test it did not run.
    for test, skipped in (("randomization", "bootstrap"), ("bootstrap", "sign_flip")):
        command = ["score", str(seed_dir), "--baseline", "fixture_A", "--format", "json", "--test", test]
        out = subprocess.run(
            [sys.executable, "-m", "rankeval_tui", *command], capture_output=True, text=True, check=True
        ).stdout
        screen = everything.statistics("fixture_A", test=test)
        for comparison in json.loads(out)["comparisons"]:
            mine = screen.get(comparison["candidate"])
            for metric, data in comparison["metrics"].items():
                expected = {**mine.metrics[metric].to_json(DEFAULT_ALPHA), skipped: None}
                assert expected == data["statistics"], (test, comparison["candidate"], metric)
    assert family.get("fixture_B").metrics["rr"].p_holm == 1  # 2 * min(1/2, 3/4) step-down, capped at 1


def test_no_candidate_no_statistics(seed_dir: Path) -> None:
    session = ScoringSession.load(seed_dir, [(None, seed_dir / "runs" / "fixture_A.json")])
    assert session.statistics("fixture_A") is None


def test_verdict_in_plain_words(seed_dir: Path) -> None:
    from fractions import Fraction

    from rankeval_tui.core.evaluation.compare import compare
    from rankeval_tui.core.evaluation.stats import paired_statistics
    from rankeval_tui.core.session import smallest_possible_p, verdict

    session = ScoringSession.load(seed_dir)
    pair = ScoringSession.load(seed_dir, [(None, seed_dir / "runs" / f"{n}.json") for n in ("fixture_A", "fixture_B")])
    b = pair.statistics("fixture_A").get("fixture_B").metrics
    alpha = Fraction(1, 20)
    assert smallest_possible_p(b["rr"]) == Fraction(1, 4)  # 3 non-zero deltas: 2/2^3
    assert smallest_possible_p(b["recall"]) == 1  # one non-zero delta: its mirror is as extreme
    assert verdict(b["rr"], alpha) == "not significant at alpha 0.05 (n = 3: smallest possible p is 1/4)"
    assert verdict(b["recall"], alpha) == (
        "not significant at alpha 0.05 (n = 3, 1 non-zero delta: smallest possible p is 1)"
    )
    # A reachable alpha: p = 3/4 is simply too large.
    assert verdict(b["rr"], Fraction(1, 2)) == "not significant at alpha 0.5 (p = 3/4 > 0.5)"
    family = session.statistics("fixture_A").get("fixture_B").metrics  # all_empty is a candidate too
    assert verdict(family["rr"], Fraction(1, 2), candidates=2) == (
        "not significant at alpha 0.5 (Holm-adjusted p = 1 > 0.5)"
    )
    # fixture_B vs all_empty: deltas +1, +1, +1 -> p = 2/8 = 1/4, significant at alpha 1/4, higher.
    empty = session.report("all_empty")
    up = (
        paired_statistics(compare(empty, session.report("fixture_B")), alpha=Fraction(1, 4))
        .candidates[0]
        .metrics["recall"]
    )
    assert up.p_value == Fraction(1, 4)
    assert verdict(up, Fraction(1, 4)) == "significant at alpha 0.25: the candidate's mean is higher (p = 1/4)"
    down = paired_statistics(compare(session.report("fixture_B"), empty)).candidates[0].metrics["rr"]
    assert verdict(down, Fraction(1, 4)).startswith("significant at alpha 0.25: the candidate's mean is lower")
    # Monte-Carlo: the floor is 1 / (1 + samples), so a small alpha stays reachable.
    mc = paired_statistics(compare(empty, session.report("fixture_B")), samples=99, exact_max_n=2).candidates[0]
    assert mc.metrics["recall"].sign_flip.method == "monte-carlo"
    assert smallest_possible_p(mc.metrics["recall"]) == Fraction(1, 100)


def test_statistics_in_a_child_process_equal_and_can_be_cancelled(seed_dir: Path) -> None:
    import time

    from rankeval_tui.core.session_statistics import statistics_in_process

    session = ScoringSession.load(seed_dir)
    reports = session.family("fixture_A")
    assert [r.run for r in reports] == ["fixture_A", "all_empty", "fixture_B"]
    assert statistics_in_process(reports, cancelled=lambda: False) == session.statistics("fixture_A")
    assert statistics_in_process(reports, cancelled=lambda: False, seed=3, samples=50) == session.statistics(
        "fixture_A", seed=3, samples=50
    )
    start = time.perf_counter()
    assert statistics_in_process(reports, cancelled=lambda: True, samples=10**9) is None  # would run for hours
    assert time.perf_counter() - start < 30
    with pytest.raises(RuntimeError, match="unknown test"):
        statistics_in_process(reports, cancelled=lambda: False, test="t-test")


def test_chosen_metrics_survive_k_split_and_reload(seed_dir: Path) -> None:
    """The screen's metrics are the session's: every rescoring keeps them, and the numbers are
    the evaluator's at the new cutoff."""
    from rankeval_tui.core.evaluation.evaluate import evaluate
    from rankeval_tui.core.files import load_protocol, load_run

    session = ScoringSession.load(seed_dir, metrics=("ndcg", "ap"))
    for changed in (session.with_k(3), session.with_split("test"), session.reload()):
        assert changed.metrics == ("ndcg", "ap")
        report = changed.report("fixture_B")
        assert report.metrics == ("ndcg", "ap")
        expected = evaluate(
            load_protocol(seed_dir).with_k(changed.protocol.k),
            load_run(seed_dir / "runs" / "fixture_B.json"),
            ("ndcg", "ap"),
        )
        assert report == expected
