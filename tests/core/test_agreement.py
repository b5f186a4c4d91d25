"""Cohen's kappa and agreement of two annotators: hand-computed values, undefined cases,
coverage errors, and a cross-check against scikit-learn on random label pairs."""

from __future__ import annotations

import copy
import random
import warnings
from fractions import Fraction
from pathlib import Path

import pytest
import tomli_w

from rankeval_tui.core.annotation.agreement import Confusion, agreement, agreement_of_files, describe_pairs, iter_pairs
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import QrelsFile


def write(path: Path, labels: dict, notes: dict | None = None, provenance: dict | None = None) -> Path:
    """Raw TOML written here, not through core, so a bug in core's writer can't hide a bug in its reader."""
    data: dict = {}
    if provenance:
        data["provenance"] = provenance
    data["qrels"] = labels
    if notes:
        data["notes"] = notes
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


# ---------------------------------------------------------------- hand-computed kappa


def test_kappa_textbook_table():
    # 50 pairs: 20 both 1, 5 A-only, 10 B-only, 15 both 0.
    # p_o = 35/50 = 7/10; p(A=1) = 25/50, p(B=1) = 30/50;
    # p_e = 1/2 * 3/5 + 1/2 * 2/5 = 1/2; kappa = (7/10 - 1/2) / (1 - 1/2) = 2/5.
    c = Confusion(a1_b1=20, a1_b0=5, a0_b1=10, a0_b0=15)
    assert c.pairs == 50 and c.agreements == 35
    assert c.observed_agreement == Fraction(7, 10)
    assert c.expected_agreement == Fraction(1, 2)
    assert c.kappa == Fraction(2, 5)
    assert c.undefined_reason is None


def test_kappa_seed_like_table():
    # 30 pairs: 4 both 1, 1 A-only, 1 B-only, 24 both 0.
    # p_o = 28/30 = 14/15; p(A=1) = p(B=1) = 5/30; p_e = (5*5 + 25*25)/900 = 650/900 = 13/18;
    # kappa = (14/15 - 13/18) / (5/18) = (19/90) * (18/5) = 19/25.
    c = Confusion(4, 1, 1, 24)
    assert (c.observed_agreement, c.expected_agreement, c.kappa) == (
        Fraction(14, 15),
        Fraction(13, 18),
        Fraction(19, 25),
    )


def test_kappa_perfect_disagreement_is_minus_one():
    # p_o = 0, p_e = 1/2*1/2 + 1/2*1/2 = 1/2 -> (0 - 1/2) / (1/2) = -1.
    assert Confusion(0, 2, 2, 0).kappa == -1


def test_kappa_opposite_constant_annotators_is_zero_not_undefined():
    # A says 0 everywhere, B says 1 everywhere: p_o = 0, p_e = 0*1 + 1*0 = 0, kappa = 0.
    c = Confusion(0, 0, 6, 0)
    assert c.kappa == 0 and c.undefined_reason is None


def test_kappa_perfect_agreement_with_both_labels_is_one():
    assert Confusion(2, 0, 0, 4).kappa == 1


@pytest.mark.parametrize("confusion, label", [(Confusion(0, 0, 0, 6), 0), (Confusion(3, 0, 0, 0), 1)])
def test_kappa_undefined_when_both_give_one_label_everywhere(confusion, label):
    # p_o = 1 and p_e = 1: kappa = 0/0. Not 0, not 1: None with the reason.
    assert confusion.observed_agreement == 1 and confusion.expected_agreement == 1
    assert confusion.kappa is None
    assert f"single label {label}" in confusion.undefined_reason
    assert f"all {confusion.pairs} pairs" in confusion.undefined_reason


def test_kappa_of_no_pairs_is_undefined():
    c = Confusion()
    assert c.kappa is None and c.observed_agreement is None and c.undefined_reason == "no pairs"


def test_confusion_of_counts_label_pairs():
    assert Confusion.of([(1, 1), (1, 0), (0, 1), (0, 0), (0, 0)]) == Confusion(1, 1, 1, 2)


# ---------------------------------------------------------------- two files


def test_agreement_on_seed_protocol(tmp_path, definition, seed_labels):
    bob = copy.deepcopy(seed_labels)
    bob["q2"]["d4"] = 0
    bob["q1"]["d1"] = 1
    a = write(
        tmp_path / "alice.toml",
        seed_labels,
        notes={"q2": {"d4": "CSV is a format"}},
        provenance={"annotators": ["alice"]},
    )
    b = write(tmp_path / "bob.toml", bob, notes={"q2": {"d4": "a table, not text"}}, provenance={"annotators": ["bob"]})
    result = agreement_of_files(definition, a, b)
    assert result.annotators == ("alice", "bob")
    assert result.overall == Confusion(4, 1, 1, 24)
    assert result.overall.kappa == Fraction(19, 25)
    # q1: A has only d2; B has d1, d2. 6 pairs: both1=1, A-only=0, B-only=1, both0=4.
    # p_o = 5/6; p(A=1) = 1/6, p(B=1) = 2/6; p_e = (1*2 + 5*4)/36 = 22/36 = 11/18;
    # kappa = (5/6 - 11/18) / (7/18) = (4/18) / (7/18) = 4/7.
    assert result.per_query["q1"].kappa == Fraction(4, 7)
    assert result.per_query["q3"].kappa == 1
    assert result.per_query["q5"].kappa is None  # both: nothing relevant for q5
    assert [(d.query, d.document, d.labels, d.notes) for d in result.disagreements] == [
        ("q1", "d1", (0, 1), (None, None)),
        ("q2", "d4", (1, 0), ("CSV is a format", "a table, not text")),
    ]
    data = result.to_json()
    assert data["kappa"] == "19/25" and data["kappa_decimal"] == 0.76
    assert data["observed_agreement"] == "14/15" and data["pairs"] == 30
    assert data["confusion"] == {"a1_b1": 4, "a1_b0": 1, "a0_b1": 1, "a0_b0": 24}
    assert data["per_query"]["q5"]["kappa"] is None
    assert "single label 0" in data["per_query"]["q5"]["kappa_undefined_reason"]
    assert data["disagreements"][1] == {
        "query": "q2",
        "document": "d4",
        "labels": [1, 0],
        "notes": ["CSV is a format", "a table, not text"],
    }


def test_identical_files_agree_fully(tmp_path, definition, seed_labels):
    a = write(tmp_path / "a.toml", seed_labels)
    b = write(tmp_path / "b.toml", seed_labels)
    result = agreement_of_files(definition, a, b)
    assert result.overall.kappa == 1 and not result.disagreements
    assert result.annotators == ("a", "b")  # no provenance: named by file


def test_coverage_difference_names_the_pairs(tmp_path, definition, seed_labels):
    partial = copy.deepcopy(seed_labels)
    del partial["q3"]
    del partial["q1"]["d6"]
    a = write(tmp_path / "a.toml", seed_labels)
    b = write(tmp_path / "b.toml", partial)
    with pytest.raises(ContractError) as error:
        agreement_of_files(definition, a, b)
    message = error.value.one_line()
    assert "differ in coverage (7 pairs)" in message
    assert f"judged only in {a}: query 'q1': 'd6'; query 'q3': all 6 documents" in message


def test_pairs_judged_in_neither_file_are_named(tmp_path, definition, seed_labels):
    partial = copy.deepcopy(seed_labels)
    del partial["q4"]["d2"]
    a = write(tmp_path / "a.toml", partial)
    b = write(tmp_path / "b.toml", partial)
    with pytest.raises(ContractError, match=r"judged in none: query 'q4': 'd2'"):
        agreement_of_files(definition, a, b)


def test_unknown_document_is_refused(tmp_path, definition, seed_labels):
    extra = copy.deepcopy(seed_labels)
    extra["q1"]["d99"] = 0
    a = write(tmp_path / "a.toml", seed_labels)
    b = write(tmp_path / "b.toml", extra)
    with pytest.raises(ContractError, match="unknown document 'd99'"):
        agreement_of_files(definition, a, b)


def test_non_binary_label_is_refused(tmp_path, definition, seed_labels):
    bad = copy.deepcopy(seed_labels)
    bad["q2"]["d1"] = 2
    with pytest.raises(ContractError, match="integer 0 or 1, got 2"):
        agreement_of_files(definition, write(tmp_path / "a.toml", seed_labels), write(tmp_path / "b.toml", bad))


def test_agreement_in_memory_checks_exhaustive(definition, seed_labels):
    partial = copy.deepcopy(seed_labels)
    del partial["q5"]
    with pytest.raises(ContractError, match="differ in coverage"):
        agreement(definition, QrelsFile(seed_labels), QrelsFile(partial))


def test_describe_pairs_groups_by_query(definition):
    pairs = [("q1", "d2"), ("q1", "d3")] + [("q4", d) for d in definition.documents]
    assert describe_pairs(pairs, definition) == "query 'q1': 'd2', 'd3'; query 'q4': all 6 documents"
    assert len(list(iter_pairs(definition))) == definition.pair_count


# ---------------------------------------------------------------- reference implementation


def test_kappa_matches_scikit_learn_on_random_label_pairs():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(20240607)
    checked = undefined = 0
    for trial in range(400):
        n = rng.randint(1, 80)
        rate_a, rate_b = rng.choice([0.0, 0.05, 0.3, 0.5, 0.9, 1.0]), rng.choice([0.0, 0.05, 0.3, 0.5, 0.9, 1.0])
        noise = rng.random()
        a = [int(rng.random() < rate_a) for _ in range(n)]
        # B copies A with probability 1 - noise, otherwise labels at its own rate: every degree of agreement.
        b = [x if rng.random() > noise else int(rng.random() < rate_b) for x in a]
        ours = Confusion.of(zip(a, b))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = sklearn_metrics.cohen_kappa_score(a, b, labels=[0, 1])
        if ours.kappa is None:
            undefined += 1
            assert theirs != theirs, (trial, a, b, theirs)  # NaN exactly where we say undefined
        else:
            checked += 1
            assert float(ours.kappa) == pytest.approx(theirs, abs=1e-12), (trial, a, b)
    assert checked > 300 and undefined > 5  # both branches really exercised
