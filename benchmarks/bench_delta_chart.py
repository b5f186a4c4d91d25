"""The comparison's delta chart drawn by hand (core.evaluation.histogram + tui/score/delta_histogram)
against textual-plotext, the charting widget made for Textual (issue 33: measure it, then choose).

    python benchmarks/bench_delta_chart.py            # needs textual-plotext (pip install ".[bench]")
    python benchmarks/bench_delta_chart.py --repeat 3

Side by side in one run, on the 500-query protocol of tests/tui/big_protocol.py (bm25 vs dense,
RR@10: 467 deltas in 21 bins), for the size of the chart at 80x24 and at 140x40:

- import: a fresh interpreter imports textual's app and widgets and what the scoring screen
  imports anyway (the session, the cells), then the chart's module (``textual_plotext`` /
  ``rankeval_tui.tui.score.delta_histogram``): what the chart adds to start-up, best of the repeats;
- first frame: from app start (an App holding only the chart, headless) to the first frame
  painted, minus the same for an empty App (what the chart adds to opening);
- render: one ``render()`` of the chart widget with its data set, the picture built again (a
  redraw: a k change, a new metric, the statistics arriving), best of 50.

Both draw the same 21 bin counts; plotext as a bar chart (its histogram bins floats by itself and
cannot hold the tie bin alone), coloured by sign.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual.app import App, ComposeResult  # noqa: E402
from textual.widget import Widget  # noqa: E402

from rankeval_tui.core.evaluation.histogram import DeltaHistogram, delta_histogram  # noqa: E402
from rankeval_tui.core.session import ScoringSession  # noqa: E402
from rankeval_tui.tui.score.delta_histogram import DeltaChart  # noqa: E402
from tests.tui.big_protocol import write_big_protocol  # noqa: E402

SIZES = ((80, 24), (140, 40))
NO_PLOTEXT = "textual-plotext not installed (pip install '.[bench]')"


def import_time(module: str, repeat: int) -> float:
    code = (
        "import time, textual.app, textual.widgets, rankeval_tui.tui.score.cells, rankeval_tui.core.session; "
        f"t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(repeat)
    ]
    return min(runs)


def plotext_widget(histogram: DeltaHistogram, height: int) -> Widget:
    from textual_plotext import PlotextPlot

    class Chart(PlotextPlot):
        DEFAULT_CSS = f"Chart {{ height: {height}; }}"

        def on_mount(self) -> None:
            counts = [len(b.queries) for b in histogram.bins]
            labels = [f"{float(b.high):+.1f}" for b in histogram.bins]
            colors = ["red" if b.side == "loss" else "green" if b.side == "win" else "white" for b in histogram.bins]
            self.plt.bar(labels, counts, color=colors)
            self.plt.title(f"Δ RR@10 of {histogram.queries} queries")

    return Chart()


def own_widget(histogram: DeltaHistogram, height: int) -> Widget:
    chart = DeltaChart()
    chart.show(histogram, None, pending=False)
    return chart


class ChartApp(App[None]):
    def __init__(self, make: object, histogram: DeltaHistogram | None, height: int) -> None:
        super().__init__()
        self.make, self.histogram, self.height = make, histogram, height
        self.painted = asyncio.Event()

    def compose(self) -> ComposeResult:
        if self.histogram is not None:
            yield self.make(self.histogram, self.height)  # type: ignore[operator]

    def _display(self, screen, renderable) -> None:  # noqa: ANN001  # the first frame written
        super()._display(screen, renderable)
        self.painted.set()


async def first_frame(make: object, histogram: DeltaHistogram | None, size: tuple[int, int]) -> tuple[float, float]:
    """Seconds from start to the first frame, and one ``render()`` of the chart (best of 50)."""
    app = ChartApp(make, histogram, 4 if size[1] < 30 else 9)
    start = time.perf_counter()
    async with app.run_test(size=size) as pilot:
        await app.painted.wait()
        opened = time.perf_counter() - start
        await pilot.pause()
        render = 0.0
        if histogram is not None:
            widget = app.screen.children[0]
            best = []
            for _ in range(50):
                t = time.perf_counter()
                text = widget.render()  # what a repaint asks for: the picture built again
                best.append(time.perf_counter() - t)
                assert str(text).strip()
            render = min(best)
    return opened, render


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = write_big_protocol(Path(tmp) / "mid", queries=500)
        session = ScoringSession.load(directory, ())
        histogram = delta_histogram(session.comparison("bm25", "dense"), "rr")
    print(f"{histogram.queries} deltas, {len(histogram.bins)} bins; best of {args.repeat}")
    plotext = importlib.util.find_spec("textual_plotext") is not None
    own = f"hand-drawn {import_time('rankeval_tui.tui.score.delta_histogram', args.repeat):.4f} s"
    other = f"textual-plotext {import_time('textual_plotext', args.repeat):.4f} s" if plotext else NO_PLOTEXT
    print(f"import, what the chart adds: {own},  {other}")
    for size in SIZES:
        rows = {}
        makers = [("empty app", None), ("hand-drawn", own_widget)]
        if plotext:
            makers.append(("textual-plotext", plotext_widget))
        for name, make in makers:
            runs = [
                asyncio.run(first_frame(make, None if make is None else histogram, size)) for _ in range(args.repeat)
            ]
            rows[name] = (min(r[0] for r in runs), min(r[1] for r in runs))
        empty = rows.pop("empty app")[0]
        for name, (opened, render) in rows.items():
            print(
                f"{size[0]}x{size[1]} {name:<16} first frame {opened:.4f} s (+{opened - empty:.4f} over an empty app)"
                f"  render {render * 1000:.2f} ms"
            )


if __name__ == "__main__":
    main()
