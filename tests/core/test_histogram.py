"""The per-query delta histogram (core.evaluation.histogram): exact bins, the same picture for every view.

Expected bins are worked out here from the reports' own values (candidate minus baseline per
query), not through ``Comparison``, so a pairing or binning mistake fails.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from rankeval_tui.core.evaluation.compare import compare
from rankeval_tui.core.evaluation.evaluate import evaluate
from rankeval_tui.core.evaluation.histogram import LEFT, PER_SIDE, chart_text, delta_histogram, picture
from rankeval_tui.core.files import load_protocol, load_run


def seed_comparison(seed_dir: Path):
    protocol = load_protocol(seed_dir)
    base, cand = (evaluate(protocol, load_run(seed_dir / "runs" / f"{n}.json")) for n in ("fixture_A", "fixture_B"))
    return compare(base, cand)


def test_seed_rr_deltas_land_in_their_bins(seed_dir: Path) -> None:
    """fixture_B vs fixture_A, RR@2: q2 -1/2, q3 +1/2, q4 +1, q5 no relevant document (in no bin)."""
    histogram = delta_histogram(seed_comparison(seed_dir), "rr")
    occupied = {index: b.queries for index, b in enumerate(histogram.bins) if b.queries}
    # -1/2 is the closed lower end of [-0.5, -0.4); +1/2 the closed upper end of (0.4, 0.5]
    assert occupied == {PER_SIDE - 5: ("q2",), PER_SIDE + 5: ("q3",), PER_SIDE + 10: ("q4",)}
    assert histogram.bins[PER_SIDE - 5].range_text() == "Δ in [-0.5, -0.4)"
    assert histogram.bins[PER_SIDE + 5].range_text() == "Δ in (+0.4, +0.5]"
    assert histogram.counts == {"loss": 1, "tie": 0, "win": 2} and histogram.mean == Fraction(1, 3)


@pytest.mark.parametrize("delta", [Fraction(-1), Fraction(-1, 10), Fraction(-1, 11), Fraction(0), Fraction(1, 10),
                                   Fraction(11, 100), Fraction(1)])  # fmt: skip
def test_every_delta_is_in_the_one_bin_whose_rule_holds(seed_dir: Path, delta: Fraction) -> None:
    histogram = delta_histogram(seed_comparison(seed_dir), "rr")
    holding = [i for i, b in enumerate(histogram.bins) if b.contains(delta)]
    assert holding == [histogram.bin_of(delta)]


def test_bins_partition_the_eligible_queries_of_a_large_comparison(tmp_path: Path) -> None:
    from tests.tui.big_protocol import write_big_protocol

    directory = write_big_protocol(tmp_path / "mid", queries=500)
    protocol = load_protocol(directory)
    base, cand = (evaluate(protocol, load_run(directory / "runs" / f"{n}.json")) for n in ("bm25", "dense"))
    for metric in ("recall", "rr"):
        histogram = delta_histogram(compare(base, cand), metric)
        expected = {
            b.query: c.value(metric) - b.value(metric)
            for b, c in zip(base.rows, cand.rows)
            if b.value(metric) is not None
        }
        placed = [q for b in histogram.bins for q in b.queries]
        assert sorted(placed) == sorted(expected)  # each eligible query once
        for b in histogram.bins:
            assert all(b.contains(expected[q]) for q in b.queries)


def test_the_picture_draws_every_occupied_bin_and_nothing_else(seed_dir: Path) -> None:
    """The CLI's text and the screen's segments are one picture: a bar over each occupied bin,
    the zero line, the mean's marker in the mean's bin (+1/3: (0.3, 0.4])."""
    histogram = delta_histogram(seed_comparison(seed_dir), "rr")
    shown = picture(histogram, height=3, bin_width=2)
    lines = chart_text(histogram, height=3)
    assert lines == shown.text() and len(lines) == 4
    bars = [line[LEFT : LEFT + (2 * PER_SIDE + 1) * 2] for line in lines[:3]]
    drawn = {column // 2 for line in bars for column, char in enumerate(line) if char != " "}
    assert drawn == {PER_SIDE - 5, PER_SIDE + 5, PER_SIDE + 10}
    axis = lines[3][LEFT:]
    assert axis.index("◆") // 2 == PER_SIDE + 4 and axis.index("┼") // 2 == PER_SIDE
    assert "◆ mean Δ +0.3333" in "\n".join(lines) and "▼ 1  = 0  ▲ 2" in "\n".join(lines)
    assert all(shown.bin_at(LEFT + 2 * i) == i and shown.bin_at(LEFT + 2 * i + 1) == i for i in range(2 * PER_SIDE + 1))


def test_a_single_query_in_a_bin_is_never_drawn_as_none(seed_dir: Path) -> None:
    """Bars are rounded up to an eighth: q2's one loss next to bins of many still shows."""
    histogram = delta_histogram(seed_comparison(seed_dir), "rr")
    crowded = histogram.bins[PER_SIDE + 5]
    many = tuple(f"x{i}" for i in range(1000))
    from dataclasses import replace

    histogram = replace(
        histogram,
        bins=(*histogram.bins[: PER_SIDE + 5], replace(crowded, queries=many), *histogram.bins[PER_SIDE + 6 :]),
    )
    bars = chart_text(histogram, height=3)[2][LEFT:]
    assert bars[2 * (PER_SIDE - 5)] != " "


def test_the_interval_is_drawn_over_the_bins_it_spans(seed_dir: Path) -> None:
    histogram = delta_histogram(seed_comparison(seed_dir), "rr").with_interval(
        Fraction(-1, 2), Fraction(1), Fraction(95, 100)
    )
    lines = chart_text(histogram, height=3)
    axis = lines[3][LEFT : LEFT + (2 * PER_SIDE + 1) * 2]
    ci = [i // 2 for i, char in enumerate(axis) if char in "━╋◆"]
    assert min(ci) == PER_SIDE - 5 and max(ci) == 2 * PER_SIDE
    assert "━ 95% CI [-0.5000, +1.0000]" in lines[3]


def test_deltas_worked_out_per_row_land_in_their_own_bins(tmp_path: Path) -> None:
    """Rows without ``compare``'s shared deltas (``known`` empty) give a fresh Fraction at each
    ``delta`` call, freed right after: the bin memo must hold each delta it keyed by identity,
    else a later delta reusing the freed object's id would be put in that one's bin."""
    from dataclasses import replace

    from tests.tui.big_protocol import write_big_protocol

    directory = write_big_protocol(tmp_path / "mid", queries=500)
    protocol = load_protocol(directory)
    base, cand = (evaluate(protocol, load_run(directory / "runs" / f"{n}.json")) for n in ("bm25", "dense"))
    shared = compare(base, cand)
    fresh = replace(shared, rows=tuple(replace(row, known={}) for row in shared.rows))
    for metric in ("recall", "rr"):
        expected = delta_histogram(shared, metric)
        got = delta_histogram(fresh, metric)
        assert [b.queries for b in got.bins] == [b.queries for b in expected.bins]
        for b in got.bins:  # and by each bin's own rule, not only equal to the shared path
            assert all(b.contains(row.delta(metric)) for row in fresh.rows if row.query in b.queries)
