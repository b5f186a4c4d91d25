"""Opening the scoring screen against `rankeval-tui score` on the same protocol (issue 33 item 4).

    python benchmarks/bench_score_opening.py                      # 500, 2,000 and 10,000 queries
    python benchmarks/bench_score_opening.py --queries 500 --repeat 1

Protocols shaped like users' (``benchmarks.synth``, realistic layout): IDs ``q:1001`` and
``msmarco_v2.1_doc_00_12345``, 200 documents of which a third run over 1,000 lines (the others
20-200 lines), exhaustive qrels, three JSON runs of depth 100, k 10. Each measured from the
process's start (the parent's clock before it spawns the process), best of the repeats:

- score: ``rankeval-tui score DIR`` (table to /dev/null), to its exit;
- minimal app: a Textual app holding one ``Static``, to its first frame (headless, as below):
  what any Textual screen costs before it shows anything;
- screen: ``rankeval-tui DIR`` (``cli.inspect``'s path: protocol read and validated before the
  app, runs read by a forked child meanwhile), to the single-run table's visible rows painted
  (headless 120x36, the compositor's calls to the table's ``render_line`` watched).

Prints per size the three and the ratio screen / (score + minimal app); the target is <= 1.3.
Also the CPU seconds each process used (with its children): on a shared machine the wall times
stretch with the load, the CPU much less.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.3
LONG_SHARE = 3
"""One document in this many runs over 1,000 lines."""


def write_protocol(directory: Path, queries: int) -> Path:
    sys.path.insert(0, str(ROOT))
    from benchmarks.synth import SynthSpec, make_data
    from benchmarks.synth import write_protocol as write

    data = make_data(SynthSpec(queries, 200, 100, k=10, seed=33, runs=("bm25", "dense", "hybrid"), layout="realistic"))
    rng = random.Random(33)
    words = "export settings download retry sync theme archive folder account password invoice report".split()
    for index, doc in enumerate(data.documents):
        lines = rng.randint(1000, 1500) if index % LONG_SHARE == 0 else rng.randint(20, 200)
        data.documents[doc] = "\\n".join(" ".join(rng.choices(words, k=9)) for _ in range(lines))
    write(directory, data)
    return directory


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds to the exit of ``command``, and the CPU seconds it (and its children) used."""
    start, used = time.time(), cpu()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    return time.time() - start, cpu() - used


def reported(command: list[str]) -> tuple[float, float]:
    """Seconds from before spawning ``command`` to the wall-clock time it prints (its event), and
    the CPU seconds the process used in all (it exits right after the event)."""
    start, used = time.time(), cpu()
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return float(out.split()[-1]) - start, cpu() - used


def minimal_app() -> None:
    """A Textual app with one Static: print the wall-clock time of its first frame."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Minimal(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("rows")

        def _display(self, screen, renderable) -> None:  # noqa: ANN001  # a frame written
            super()._display(screen, renderable)
            if not hasattr(self, "shown"):
                self.shown = time.time()
                self.exit()

    async def run() -> None:
        app = Minimal()
        async with app.run_test(size=(120, 36)) as pilot:
            while not hasattr(app, "shown"):
                await pilot.pause(0.001)
        print(app.shown)

    import asyncio

    asyncio.run(run())


def screen_rows(directory: Path) -> None:
    """``rankeval-tui DIR`` until the single-run table's visible rows are painted: print the time."""
    import asyncio

    from rankeval_tui.cli import build_parser
    from rankeval_tui.cli.inspect import preread_files, scoring_app
    from rankeval_tui.tui.score.score_screen import ScoreScreen

    painted = asyncio.Event()
    shown: list[float] = []
    original = ScoreScreen.set_session

    def set_session(self: ScoreScreen, session) -> None:  # noqa: ANN001
        table = self.query_one("#score-run-table")
        render_line, lines = table.render_line, set()
        queries = len(session.protocol.selected_queries)

        def spy(y: int):  # noqa: ANN202  # the compositor asks for each line it paints
            line = render_line(y)
            if not shown and table.row_count == queries and table.virtual_size.height > queries:
                lines.add(y)
                if len(lines) >= table.size.height:
                    shown.append(time.time())
                    painted.set()
            return line

        table.render_line = spy
        original(self, session)

    ScoreScreen.set_session = set_session  # type: ignore[method-assign]

    async def run() -> None:
        args = build_parser().parse_args(["inspect", str(directory)])
        app = scoring_app(args, preread_files(args))
        async with app.run_test(size=(120, 36)):
            await asyncio.wait_for(painted.wait(), 300)

    asyncio.run(run())
    print(shown[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[500, 2000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", choices=("minimal", "screen"), help=argparse.SUPPRESS)
    parser.add_argument("directory", type=Path, nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "minimal":
        minimal_app()
        return 0
    if args.child == "screen":
        sys.path.insert(0, str(ROOT))
        screen_rows(args.directory)
        return 0
    me = [sys.executable, str(Path(__file__).resolve())]
    print(
        f"best (median) of {args.repeat}, seconds from process start (wall, then CPU of the process and its "
        f"children: the machine's load inflates wall times); target: screen <= {TARGET}x (score + minimal app)"
    )
    print(f"{'queries':>8}  {'':4}  {'score':>14}  {'minimal app':>14}  {'screen rows':>14}  ratio")
    for queries in args.queries:
        with tempfile.TemporaryDirectory() as tmp:
            directory = write_protocol(Path(tmp) / f"q{queries}", queries)
            runs: dict[str, list[tuple[float, float]]] = {"score": [], "app": [], "screen": []}
            for _ in range(args.repeat):  # interleaved, so load on the machine hits all three alike
                runs["score"].append(timed([sys.executable, "-m", "rankeval_tui", "score", str(directory)]))
                runs["app"].append(reported([*me, "--child", "minimal"]))
                runs["screen"].append(reported([*me, "--child", "screen", str(directory)]))
        for column, kind in ((0, "wall"), (1, "cpu")):
            times = {name: [run[column] for run in values] for name, values in runs.items()}
            best = {name: min(values) for name, values in times.items()}
            cells = [f"{best[n]:6.3f} ({statistics.median(times[n]):6.3f})" for n in ("score", "app", "screen")]
            ratio = best["screen"] / (best["score"] + best["app"])
            print(f"{queries if column == 0 else '':>8}  {kind:4}  {'  '.join(cells)}  {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
