"""The distribution of one metric's per-query deltas: exact bins, and the picture drawn from them.

Why in core: the scoring screen's chart and ``score``'s table and Markdown output (the CI step
summary) show the same picture. Which query falls in which bin (exact Fractions, never floats)
and which character goes where are decided once here; the screen only colours the segments by
their kind and the CLI prints their text. Nothing here imports textual or rich.

Bins are fixed, not fitted to the data, so a bin means the same range at every terminal width,
in the CLI and after a k change (a selected bin stays meaningful): ``PER_SIDE`` bins of width
1/``PER_SIDE`` on each side of zero (deltas of every metric lie in [-1, 1]) and one bin holding
exactly the ties. A loss bin ``i`` (1 = nearest zero) holds the deltas in [-i/n, -(i-1)/n), a
win bin ``i`` those in ((i-1)/n, i/n].
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

from rankeval_tui.core.evaluation.compare import Comparison, Metric
from rankeval_tui.core.evaluation.metrics import label

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

PER_SIDE = 10
"""Bins on each side of the tie bin: deltas in steps of 0.1, edges a reader can name."""

Side: TypeAlias = "Literal['loss', 'tie', 'win']"
Interval = tuple[Fraction, Fraction, Fraction]
"""A bootstrap CI of the mean delta: low, high, confidence."""
Kind: TypeAlias = "Literal['loss', 'tie', 'win', 'axis', 'zero', 'mean', 'ci', 'text', 'empty']"
"""What a segment of the picture shows; the screen styles by it (losses red, wins green)."""

BLOCKS = " ▁▂▃▄▅▆▇█"
"""A bar's top cell by eighths of a line."""

LEFT = 4
"""Cells left of the bars: the count scale on the top line, ``-1`` on the axis line."""
RIGHT = 3
"""Cells right of the bars: `` +1`` on the axis line."""
GAP = 2
"""Cells between the chart and its legend."""


@dataclass(frozen=True)
class DeltaBin:
    """One bin: its side of zero, its range and the queries in it (protocol order)."""

    side: Side
    low: Fraction
    high: Fraction
    queries: tuple[str, ...]

    def contains(self, delta: Fraction) -> bool:
        """The bin's rule (ties alone in theirs; losses closed below, wins closed above)."""
        if self.side == "tie":
            return delta == 0
        if self.side == "loss":
            return self.low <= delta < self.high
        return self.low < delta <= self.high

    def range_text(self) -> str:
        """``Δ in [-0.2, -0.1)``, ``Δ in (+0.1, +0.2]``, ``Δ = 0``: the bin's rule in words."""
        if self.side == "tie":
            return "Δ = 0"
        low, high = _edge(self.low), _edge(self.high)
        return f"Δ in [{low}, {high})" if self.side == "loss" else f"Δ in ({low}, {high}]"


def _edge(value: Fraction) -> str:
    if not value:
        return "0"
    return f"{float(value):+.{2 if value.denominator > PER_SIDE else 1}f}"


@dataclass(frozen=True)
class DeltaHistogram:
    """The per-query deltas of ``metric`` (candidate minus baseline) over the eligible queries."""

    metric: Metric
    k: int
    bins: tuple[DeltaBin, ...]
    """Losses from -1 up, the tie bin, wins up to +1: ``2 * PER_SIDE + 1`` bins."""
    mean: Fraction | None
    """The comparison's mean delta (the means' difference, as the summary shows it)."""
    interval: tuple[Fraction, Fraction] | None = None
    """The bootstrap CI of the mean delta, when the statistics have it."""
    confidence: Fraction | None = None

    @property
    def counts(self) -> dict[Side, int]:
        totals: dict[Side, int] = {"loss": 0, "tie": 0, "win": 0}
        for b in self.bins:
            totals[b.side] += len(b.queries)
        return totals

    @property
    def queries(self) -> int:
        return sum(len(b.queries) for b in self.bins)

    def bin_of(self, delta: Fraction) -> int:
        """The index of the bin ``delta`` falls in (a delta outside [-1, 1] cannot occur)."""
        if not -1 <= delta <= 1:
            raise ValueError(f"delta {delta} outside [-1, 1]")
        if delta == 0:
            return PER_SIDE
        step = -((-abs(delta) * PER_SIDE) // 1)  # ceil(|delta| * n), exactly
        return PER_SIDE - int(step) if delta < 0 else PER_SIDE + int(step)

    def with_interval(self, low: Fraction, high: Fraction, confidence: Fraction) -> DeltaHistogram:
        return replace(self, interval=(low, high), confidence=confidence)


def delta_histogram(comparison: Comparison, metric: Metric) -> DeltaHistogram:
    """Every eligible query's delta of ``metric`` in its bin; queries without a delta (no
    relevant document) are in none, as in win/tie/loss."""
    n = PER_SIDE
    edges = [(Fraction(-i, n), Fraction(-i + 1, n)) for i in range(n, 0, -1)]
    shells = [("loss", low, high) for low, high in edges]
    shells.append(("tie", Fraction(0), Fraction(0)))
    shells += [("win", Fraction(i - 1, n), Fraction(i, n)) for i in range(1, n + 1)]
    members: list[list[str]] = [[] for _ in shells]
    empty = DeltaHistogram(metric, comparison.baseline.k, (), comparison.mean_delta(metric))
    # Binned once per distinct delta object: ``compare`` shares one per pair of values (a few
    # hundred among 10,000 queries); the exact arithmetic of ``bin_of`` for every query was a
    # k change's largest single cost on the screen. The memo holds each delta, so no id is
    # reused by another while it lives.
    bin_by_delta: dict[int, tuple[Fraction, int]] = {}
    for row in comparison.rows:
        delta = row.delta(metric)
        if delta is not None:
            known = bin_by_delta.get(id(delta))
            if known is None:
                known = bin_by_delta[id(delta)] = (delta, empty.bin_of(delta))
            members[known[1]].append(row.query)
    bins = tuple(
        DeltaBin(side, low, high, tuple(queries))  # type: ignore[arg-type]  # side is a Side literal
        for (side, low, high), queries in zip(shells, members)
    )
    return replace(empty, bins=bins)


# ---------------------------------------------------------------- the picture

Segment = tuple[str, Kind, int | None]
"""Text, what it shows, and the bin it belongs to (None: not a bin's)."""


@dataclass(frozen=True)
class ChartPicture:
    """Lines of segments; ``bin_at`` maps a column back to its bin (a click on the screen)."""

    lines: tuple[tuple[Segment, ...], ...]
    bin_width: int

    def text(self) -> list[str]:
        """The lines as plain text, trailing blanks trimmed (the CLI's output)."""
        return ["".join(part for part, _, _ in line).rstrip() for line in self.lines]

    def bin_at(self, column: int) -> int | None:
        index, rest = divmod(column - LEFT, self.bin_width)
        return index if column >= LEFT and 0 <= index < 2 * PER_SIDE + 1 and rest >= 0 else None


def chart_width(bin_width: int) -> int:
    """Cells the chart needs without its legend."""
    return LEFT + (2 * PER_SIDE + 1) * bin_width + RIGHT


def _signed(value: Fraction | None) -> str:
    return "n/a" if value is None else "0" if not value else f"{float(value):+.4f}"


def legend_lines(
    histogram: DeltaHistogram, pending: bool = False, no_ci: str = "not computed"
) -> list[tuple[str, Kind]]:
    """What the picture shows, in words: the metric and queries, the counts by sign, the mean and
    its interval (or that it is being computed, or ``no_ci``: why there is none)."""
    counts = histogram.counts
    title = f"Δ {label(histogram.metric, histogram.k)} of {histogram.queries} queries"
    if histogram.interval is not None and histogram.confidence is not None:
        low, high = histogram.interval
        ci = f"━ {float(histogram.confidence * 100):g}% CI [{_signed(low)}, {_signed(high)}]"
    else:
        ci = "━ CI: computing…" if pending else f"━ CI: {no_ci}"
    return [
        (title, "text"),
        (f"▼ {counts['loss']}  = {counts['tie']}  ▲ {counts['win']}", "text"),
        (f"◆ mean Δ {_signed(histogram.mean)}", "mean"),
        (ci, "ci"),
    ]


def picture(
    histogram: DeltaHistogram,
    height: int,
    bin_width: int = 2,
    legend: bool = True,
    pending: bool = False,
    no_ci: str = "not computed",
) -> ChartPicture:
    """``height`` lines of bars (eighths of a line, scaled to the fullest bin; a bin with any
    query shows at least an eighth, so one lost query is never drawn as none), then the axis:
    ``┼`` at zero, ``━`` over the bins the CI spans, ``◆`` in the bin of the mean, ``-1`` and
    ``+1`` at the ends. The legend (``legend_lines``) stands to the right, bottom-aligned."""
    height = max(1, height)
    sizes = [len(b.queries) for b in histogram.bins]
    most = max(sizes, default=0)
    eighths = [0 if not size else max(1, -((-size * height * 8) // most)) for size in sizes]
    lines: list[list[Segment]] = []
    for line in range(height):
        floor = (height - 1 - line) * 8
        scale = f"{most:>{LEFT - 1}} " if line == 0 and most else " " * LEFT
        segments: list[Segment] = [(scale, "axis", None)]
        for index, (b, level) in enumerate(zip(histogram.bins, eighths)):
            cell = BLOCKS[min(8, max(0, level - floor))]
            segments.append((cell * bin_width, b.side if cell != " " else "empty", index))
        segments.append((" " * RIGHT, "empty", None))
        lines.append(segments)
    lines.append(_axis(histogram, bin_width))
    if legend:
        words = legend_lines(histogram, pending, no_ci)
        pad = len(lines) - len(words)
        for offset, (text, kind) in enumerate(words):
            row = pad + offset
            if row >= 0:
                lines[row] = [*lines[row], (" " * GAP + text, kind, None)]
    return ChartPicture(tuple(tuple(line) for line in lines), bin_width)


def _axis(histogram: DeltaHistogram, bin_width: int) -> list[Segment]:
    """The axis line under the bars: zero, the CI's bins, the mean's bin, the scale's ends."""
    cells: list[tuple[str, Kind]] = [("─", "axis")] * ((2 * PER_SIDE + 1) * bin_width)
    zero = PER_SIDE * bin_width + bin_width // 2
    cells[zero] = ("┼", "zero")
    if histogram.interval is not None:
        low, high = (histogram.bin_of(bound) for bound in histogram.interval)
        for cell in range(low * bin_width, (high + 1) * bin_width):
            cells[cell] = ("━" if cell != zero else "╋", "ci")
    if histogram.mean is not None:
        cells[histogram.bin_of(histogram.mean) * bin_width + (bin_width - 1) // 2] = ("◆", "mean")
    segments: list[Segment] = [(f"{'-1':>{LEFT - 1}} ", "axis", None)]
    for index, (char, kind) in enumerate(cells):
        segments.append((char, kind, index // bin_width))
    segments.append((" +1", "axis", None))
    return segments


CLI_BARS = 4
"""Lines of bars in ``score``'s text and Markdown: with the axis, five lines per metric."""


def chart_text(
    histogram: DeltaHistogram, height: int = CLI_BARS, bin_width: int = 2, no_ci: str = "not computed"
) -> list[str]:
    """The picture as plain lines (78 columns at ``bin_width`` 2), for ``score``'s table and
    Markdown output."""
    return picture(histogram, height, bin_width, no_ci=no_ci).text()


def comparison_charts(comparison: Comparison, intervals: Mapping[Metric, Interval], no_ci: str) -> list[str]:
    """Every compared metric's picture, one after the other (a blank line between), with the
    bootstrap CI where ``intervals`` has it: ``score``'s text and Markdown output."""
    lines: list[str] = []
    for metric in comparison.metrics:
        histogram = delta_histogram(comparison, metric)
        if metric in intervals:
            histogram = histogram.with_interval(*intervals[metric])
        lines += [*([""] if lines else []), *chart_text(histogram, no_ci=no_ci)]
    return lines
