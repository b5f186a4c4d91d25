"""core.files.trec: TOML -> TREC -> TOML identity, strict import, run export trec_eval reads as we do."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run, evaluate
from rankeval_tui.core.files import load_protocol, load_run, qrels_to_toml, write_qrels
from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from rankeval_tui.core.files.trec import parse_trec_qrels, qrels_to_trec, run_to_trec

SEED_HASH = "9dd1a576cc830736a0884e847845f31f2390843c27a250abf3bafaf8fa72cadb"


@pytest.fixture(scope="module")
def protocol(seed_dir):
    return load_protocol(seed_dir)


def test_qrels_export_lines(protocol):
    lines = qrels_to_trec(protocol).splitlines()
    assert len(lines) == 5 * 6  # every pair, zeros included
    assert lines[:2] == ["q1 0 d1 0", "q1 0 d2 1"]
    assert "q2 0 d4 1" in lines and "q5 0 d6 0" in lines
    split_only = qrels_to_trec(protocol, split_only=True).splitlines()
    assert len(split_only) == 4 * 6 and not any(line.startswith("q1 ") for line in split_only)


def test_toml_trec_toml_is_identity_on_the_seed(protocol, seed_dir, tmp_path):
    definition = protocol.definition
    imported = parse_trec_qrels(qrels_to_trec(protocol), definition, path="qrels.txt")
    assert imported.labels == {q: dict(row) for q, row in protocol.qrels.items()}
    # the [qrels] table written is the seed's, pair for pair and in the same order
    original = tomllib.loads((seed_dir / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    written = tomllib.loads(qrels_to_toml(imported, definition))["qrels"]
    assert written == original and list(written) == list(original)
    assert [list(row) for row in written.values()] == [list(row) for row in original.values()]
    assert imported.provenance == {"imported_from": "qrels.txt", "format": "trec"}
    # and the protocol loaded from the written file has the seed's hash
    write_qrels(tmp_path / "qrels.toml", imported, definition)
    assert load_protocol(seed_dir, tmp_path / "qrels.toml").protocol_sha256 == SEED_HASH


def seed_lines(protocol) -> list[str]:
    return qrels_to_trec(protocol).splitlines()


def test_non_exhaustive_import_fails_listing_unjudged_pairs(protocol):
    lines = [line for line in seed_lines(protocol) if not line.startswith("q3 ") and line != "q2 0 d6 0"]
    with pytest.raises(ContractError) as error:
        parse_trec_qrels("\n".join(lines), protocol.definition, path="partial.txt")
    message = error.value.one_line()
    assert message.startswith("partial.txt: not exhaustive: 7 of 30 pairs unjudged")
    assert "first: q2/d6, q3/d1, q3/d2, q3/d3, q3/d4, ..." in message


def test_typical_trec_qrels_with_only_relevant_lines_is_refused(protocol):
    relevant_only = [line for line in seed_lines(protocol) if line.endswith(" 1")]
    with pytest.raises(ContractError, match=r"not exhaustive: 25 of 30 pairs unjudged"):
        parse_trec_qrels("\n".join(relevant_only), protocol.definition)


def graded(protocol) -> str:
    """The seed's qrels with q2/d3 graded 2 and q2/d4 left at 1."""
    return "\n".join("q2 0 d3 2" if line == "q2 0 d3 1" else line for line in seed_lines(protocol))


def test_graded_labels_refused_without_threshold(protocol):
    with pytest.raises(ContractError) as error:
        parse_trec_qrels(graded(protocol), protocol.definition, path="g.txt")
    assert error.value.where == "line 9" and "graded label 2" in error.value.rule
    assert "--threshold" in error.value.rule


def test_threshold_maps_explicitly_and_is_recorded(protocol):
    at_two = parse_trec_qrels(graded(protocol), protocol.definition, path="g.txt", threshold=2)
    assert at_two.labels["q2"]["d3"] == 1 and at_two.labels["q2"]["d4"] == 0  # 1 < 2 -> 0
    assert at_two.provenance["threshold"] == 2 and at_two.provenance["graded_labels"] == 1
    assert at_two.provenance["threshold_rule"] == "rel >= 2 -> 1, otherwise 0"
    at_one = parse_trec_qrels(graded(protocol), protocol.definition, threshold=1)
    assert at_one.labels == {q: dict(row) for q, row in protocol.qrels.items()}
    with pytest.raises(ContractError, match="threshold must be an integer >= 1"):
        parse_trec_qrels(graded(protocol), protocol.definition, threshold=0)


@pytest.mark.parametrize(
    "bad_line, fragment",
    [
        ("q2 0 d3", "4 fields"),
        ("q9 0 d1 0", "unknown query 'q9'"),
        ("q2 0 d9 0", "unknown document 'd9'"),
        ("q2 0 d1 yes", "relevance must be an integer"),
        ("q2 0 d1 0.5", "relevance must be an integer"),
        ("q2 0 d1 -1", "negative relevance"),
        ("q2 0 d1 1", "pair judged twice"),
    ],
)
def test_bad_lines_name_the_line(protocol, bad_line, fragment):
    text = "\n".join(seed_lines(protocol) + [bad_line])
    with pytest.raises(ContractError) as error:
        parse_trec_qrels(text, protocol.definition, path="bad.txt")
    assert error.value.where == "line 31" and fragment in error.value.rule


# ---------------------------------------------------------------- run export


def test_run_export_reads_back_identically_without_warnings(protocol, seed_dir, tmp_path):
    run = load_run(seed_dir / "runs" / "fixture_B.json")
    text, warnings = run_to_trec(protocol, run)
    assert text.splitlines()[:3] == ["q2 Q0 d1 1 3 fixture_B", "q2 Q0 d3 2 2 fixture_B", "q2 Q0 d4 3 1 fixture_B"]
    assert len(warnings) == 1 and "'q5' has an empty ranking" in warnings[0]
    path = tmp_path / "B.trec"
    path.write_text(text)
    back = load_run(path)
    assert back.warnings == ()  # rank order == score order, so trec_eval orders as we do
    assert dict(back.rankings) == {q: r for q, r in run.rankings.items() if r}
    ours, theirs = evaluate(protocol, run), evaluate(protocol, back)
    assert (ours.recall_at_k, ours.mrr_at_k) == (theirs.recall_at_k, theirs.mrr_at_k) == (F(5, 6), F(5, 6))


def test_run_export_refuses_an_invalid_or_empty_run(protocol, seed_dir):
    with pytest.raises(ContractError, match="unknown document ID"):
        run_to_trec(protocol, Run("bad", {"q2": ["d1", "nope"]}))
    with pytest.raises(ContractError, match="wrong-split query"):
        run_to_trec(protocol, Run("dev", {"q1": ["d2"]}))
    with pytest.raises(ContractError, match="ranks no document"):
        run_to_trec(protocol, load_run(seed_dir / "runs" / "all_empty.json"))
    with pytest.raises(ContractError, match="whitespace"):
        run_to_trec(protocol, Run("my run", {"q2": ["d1"]}))


def test_exported_files_score_the_same_in_ir_measures(protocol, seed_dir, tmp_path):
    """What trec_eval-style tools read from our export equals our evaluator where definitions
    coincide: eligible queries the run answered (RR@k via ir_measures, which cuts at k)."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text(qrels_to_trec(protocol, split_only=True))
    for name in ("fixture_A", "fixture_B"):
        run = load_run(seed_dir / "runs" / f"{name}.json")
        run_path = tmp_path / f"{name}.trec"
        run_path.write_text(run_to_trec(protocol, run)[0])
        report = evaluate(protocol, run)
        measures = [ir_measures.R @ protocol.k, ir_measures.RR @ protocol.k]
        theirs = {
            (m.query_id, str(m.measure)): m.value
            for m in ir_measures.iter_calc(
                measures, ir_measures.read_trec_qrels(str(qrels_path)), ir_measures.read_trec_run(str(run_path))
            )
        }
        compared = 0
        for row in report.rows:
            if not row.eligible or row.missing:
                continue
            assert theirs[(row.query, f"R@{protocol.k}")] == pytest.approx(float(row.recall))
            assert theirs[(row.query, f"RR@{protocol.k}")] == pytest.approx(float(row.rr))
            compared += 1
        assert compared >= 2
