"""The comparison's chart: the distribution of the chosen metric's per-query deltas.

Drawing only: the bins, which query is in which, and every character come from
``core.evaluation.histogram`` (the same picture ``score`` prints); this widget picks the size
for the terminal, colours the segments by kind (losses red, wins green, the CI cyan, the mean
bold: the sign is also in the position left or right of the ``┼`` zero and in ``▼``/``▲``), marks
the selected bin, and turns a click into the bin under it.

Drawn by hand with block characters rather than through textual-plotext, measured side by side by
``benchmarks/bench_delta_chart.py`` (docs/benchmarks.md): a redraw here takes a fraction of the time
of plotext's bar chart of the same bins, plotext's imports would add far more to start-up than
this module does, and both first frames are within the noise. And plotext would be a dependency, bins floats itself (no bin for the ties alone), and cannot give
``score``'s Markdown the same picture or map a click to a bin.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from rankeval_tui.core.evaluation.histogram import (
    GAP,
    ChartPicture,
    DeltaHistogram,
    Kind,
    chart_width,
    legend_lines,
    picture,
)
from rankeval_tui.tui.score.cells import STYLE_LOSS, STYLE_WIN

STYLES: dict[Kind, str] = {
    "loss": STYLE_LOSS,
    "win": STYLE_WIN,
    "tie": "bold",
    "axis": "dim",
    "zero": "bold",
    "mean": "bold yellow",
    "ci": "cyan",
    "text": "",
    "empty": "",
}
SELECTED = "reverse"

SHORT_BARS, TALL_BARS = 3, 8
"""Lines of bars: 3 on a 24-line terminal (the table keeps 10 rows), up to 8 on a taller one."""
LINES_BESIDE = 21
"""Lines of a 24-line screen that are not the chart's bars (header, runs, title, the table's
header, 10 rows and scrollbar, the summary's least box, the footer)."""
BIN_WIDTHS = (4, 3, 2)
"""Cells per bin, the widest that fits beside the legend first."""


def bars_for(height: int) -> int:
    """Lines of bars for a terminal ``height`` lines tall."""
    return max(SHORT_BARS, min(TALL_BARS, height - LINES_BESIDE))


def bin_width_for(width: int, histogram: DeltaHistogram) -> int:
    legend = max(len(text) for text, _ in legend_lines(histogram, pending=True))
    for cells in BIN_WIDTHS:
        if chart_width(cells) + GAP + legend <= width:
            return cells
    return BIN_WIDTHS[-1]


class DeltaChart(Widget):
    """The histogram of the per-query deltas, with the selected bin (``[``/``]``, a click) marked."""

    DEFAULT_CSS = "DeltaChart { height: auto; padding: 0 1; }"

    class BinClicked(Message):
        """A bin was clicked: the screen selects it (the table then shows its queries)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.histogram: DeltaHistogram | None = None
        self.selected: int | None = None
        self.pending = False
        self._picture: ChartPicture | None = None

    def show(self, histogram: DeltaHistogram | None, selected: int | None, pending: bool) -> None:
        """Draw ``histogram`` (None: hidden), ``selected`` bin marked; ``pending``: CI on its way."""
        self.histogram, self.selected, self.pending = histogram, selected, pending
        self.display = histogram is not None
        self.refresh(layout=True)

    def current_picture(self) -> ChartPicture | None:
        if self.histogram is None:
            return None
        width = self.content_size.width or self.app.size.width
        return picture(
            self.histogram, bars_for(self.app.size.height), bin_width_for(width, self.histogram), pending=self.pending
        )

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 0 if self.histogram is None else bars_for(self.app.size.height) + 1

    def render(self) -> Text:
        shown = self._picture = self.current_picture()
        text = Text(no_wrap=True, overflow="crop")
        if shown is None:
            return text
        for number, line in enumerate(shown.lines):
            if number:
                text.append("\n")
            for part, kind, index in line:
                style = STYLES[kind]
                if index is not None and index == self.selected and kind not in ("ci", "mean", "zero"):
                    style = f"{style} {SELECTED}".strip()
                text.append(part, style=style)
        return text

    def on_click(self, event: events.Click) -> None:
        shown = self._picture
        if shown is None:
            return
        index = shown.bin_at(event.x - self.styles.padding.left)
        if index is not None:
            self.post_message(self.BinClicked(index))
