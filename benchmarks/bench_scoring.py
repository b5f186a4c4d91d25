"""How fast the scoring screen opens a big comparison, re-scores after a k change, and shows statistics.

    python benchmarks/bench_scoring.py          # 2,000 and 10,000 queries (x 200 documents), 3 runs of depth 100
    python benchmarks/bench_scoring.py --queries 200 --repeat 1   # a quick look
    python benchmarks/bench_scoring.py --queries 10000 --repeat 5 --before 08d7edb   # side by side with that commit

A seeded synthetic protocol (benchmarks/synth.py) is written to a temp directory once; then each
repeat runs, for each code tree in turn (this checkout, and with ``--before REV`` that commit's
tree; the order alternates between repeats, so both see the same machine), a fresh interpreter
that times every step below in a headless app of 120x36 (as the snapshot tests). Each figure is
wall seconds and, where this process does the work, CPU seconds (its threads and the children it
has reaped: the machine is shared, and the CPU figure moves less with the load); the 1-minute
load average after each repeat is printed as a row of its own. The steps:

- load: protocol + qrels + runs read and every run scored (``ScoringSession.load``, the same
  call the screen's worker makes), timed on its own in this process;
- open comparison: from app start to the comparison table holding every query (load included,
  so this is what a user waits for after ``rankeval-tui DIR``), and the part of it that is the
  screen (open minus load); the wait ends with Textual's ``pilot.pause()``, which also waits
  for the whole process to go idle (less than 1 ms of CPU in 20 ms), so work still running
  after the paint (the statistics worker starting its child process) counts here;
- comparison first drawn: from app start until the compositor has painted every visible line
  of the comparison table holding every query with its columns sized: when a user sees it;
- single-run rows drawn, no harness polling (a separate app start): app start until the table
  the screen opens on (one run's per-query rows) has painted every visible line with all rows:
  issue 13's "open to rows shown";
- rankeval-tui DIR: rows drawn (the command's path): ``cli.inspect``'s path from parsed
  arguments to the single-run rows painted (protocol read before the app, runs read by a
  forked child meanwhile), in a fresh interpreter each time (``command_line_in_fresh_process``);
- comparison drawn, no harness polling (the same app start, then ``v``): the comparison's paint, but the script
  sleeps on events instead of polling with ``pilot`` (see ``measure_unpolled``);
- statistics, v 1 s after open (a separate app start): ``v`` posted a second after the session
  is adopted (the rows read first; the statistics child started ahead is ready), then until
  the statistics are on screen and complete, with no harness polling;
- k change: ``+`` pressed on the comparison view until every report is re-scored at k+1 and the
  cells are updated in place (the rows are not rebuilt), then the same for ``-``;
- statistics after open / after k change: from ``v`` (and from ``-``) until the statistics
  (a child process: keys never wait for it) are on screen for the session shown: first the
  sign-flip p, Holm and verdict (the child sends them before it draws the bootstrap), then
  with the bootstrap CI ("complete").

Prints, per size and tree side by side, best and median seconds per step (issue 13's targets
at 10,000 queries: rows shown within 1.5 s of start, a k change within 0.5 s, statistics within
2 s). Timings on a shared machine are noisy: quote best and median with the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = Path(os.environ.get("BENCH_SCORING_CODE", ROOT))
"""The tree whose package is timed: this checkout, or the ``--before`` commit's (set for the child)."""
sys.path[:0] = [str(CODE), str(ROOT)]  # the timed package first; benchmarks.synth from here

from textual import events  # noqa: E402
from textual.widgets import DataTable  # noqa: E402

from benchmarks.synth import SynthSpec, make_data, write_protocol  # noqa: E402
from rankeval_tui.core.session import ScoringSession  # noqa: E402
from rankeval_tui.tui.app import RankevalApp  # noqa: E402
from rankeval_tui.tui.score.compare_summary import CompareSummary  # noqa: E402
from rankeval_tui.tui.score.score_screen import ScoreScreen  # noqa: E402

Moment = tuple[float, float]
"""Wall seconds and CPU seconds (``cpu_now``) at one instant."""


def cpu_now() -> float:
    """CPU seconds of this process (every thread) and of its children reaped so far (the
    command path's run-reading child is reaped before the rows are drawn)."""
    times = os.times()
    return time.process_time() + times.children_user + times.children_system


def moment() -> Moment:
    return time.perf_counter(), cpu_now()


def since(start: Moment, end: Moment | None = None) -> Moment:
    """Wall and CPU seconds from ``start`` to ``end`` (now by default)."""
    end = end or moment()
    return end[0] - start[0], end[1] - start[1]


def complete(summary: CompareSummary) -> bool:
    """The statistics on screen include the bootstrap (the child's second, full result)."""
    result = summary.current_statistics()
    if result is None or result.statistics is None:
        return False
    return all(m.bootstrap is not None for c in result.statistics.candidates for m in c.metrics.values())


async def wait_until(pilot, condition, timeout: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the screen did not reach the expected state")
        await pilot.pause(0.001)


def watch_paint(
    screen: ScoreScreen, queries: int, done: Callable[[], None] = lambda: None, view: str = "compare"
) -> list[Moment]:
    """The time the compositor has painted every visible line of the ``view``'s table (the
    comparison, or the single run) holding every query with its columns sized, appended to
    the returned list (then ``done()``)."""
    table = screen.query_one(f"#score-{view}-table", DataTable)
    drawn: list[Moment] = []
    painted: set[int] = set()
    render_line = table.render_line

    def spy(y: int):  # the compositor asks the table for each line when it paints it
        line = render_line(y)
        if (
            not drawn
            and screen.state.view == view
            and table.row_count == queries
            and table.virtual_size.height > queries
        ):  # rows sized (header + one line each)
            painted.add(y)
            if len(painted) >= table.size.height:
                drawn.append(moment())
                del table.render_line
                done()
        return line

    table.render_line = spy  # type: ignore[method-assign]
    return drawn


async def measure_unpolled(directory: Path, runs: list[Path], queries: int) -> tuple[Moment, Moment]:
    """App start to the single-run rows painted (the screen opens on them), then to the
    comparison painted, with no test harness polling in between.

    ``wait_until`` wakes every millisecond and each ``pilot.pause``/``press`` waits for the whole
    process to go idle, and ``pilot.pause`` forces a repaint: this checks whether that harness
    moves the figure either way. The script sleeps on events instead: one set when the screen
    adopts the loaded session, one when the table is painted; ``v`` is posted as a key event."""
    adopted, painted, rows_painted = asyncio.Event(), asyncio.Event(), asyncio.Event()
    original = ScoreScreen.set_session
    rows_drawn: list[list[Moment]] = []  # the run table's watch, set up at the first adoption

    def set_session(self: ScoreScreen, session) -> None:
        if not adopted.is_set():  # before the table is filled: its first paint is the one timed
            rows_drawn.append(watch_paint(self, queries, rows_painted.set, view="run"))
        original(self, session)
        adopted.set()

    ScoreScreen.set_session = set_session  # type: ignore[method-assign]
    try:
        start = moment()
        app = RankevalApp(directory, run_specs=[(None, path) for path in runs])
        async with app.run_test(size=(120, 36)):
            await adopted.wait()
            await asyncio.wait_for(rows_painted.wait(), 120)
            drawn = watch_paint(app.screen, queries, painted.set)  # type: ignore[arg-type]
            app.post_message(events.Key("v", "v"))
            await asyncio.wait_for(painted.wait(), 120)
            return since(start, rows_drawn[0][0]), since(start, drawn[0])
    finally:
        ScoreScreen.set_session = original  # type: ignore[method-assign]


async def measure_statistics_after_reading(
    directory: Path, runs: list[Path], pause: float = 1.0
) -> tuple[float, float]:
    """``v`` posted ``pause`` seconds after the screen adopted the session (a user reads the
    rows first), then the seconds until the statistics are on screen and until they are
    complete, looked at every 10 ms with ``asyncio.sleep`` (no harness polling)."""
    adopted = asyncio.Event()
    original = ScoreScreen.set_session

    def set_session(self: ScoreScreen, session) -> None:
        original(self, session)
        adopted.set()

    ScoreScreen.set_session = set_session  # type: ignore[method-assign]
    try:
        app = RankevalApp(directory, run_specs=[(None, path) for path in runs])
        async with app.run_test(size=(120, 36)):
            await adopted.wait()
            await asyncio.sleep(pause)
            summary = app.screen.query_one(CompareSummary)
            pressed = time.perf_counter()
            app.post_message(events.Key("v", "v"))
            shown: float | None = None
            while not complete(summary):
                await asyncio.sleep(0.01)
                if shown is None and summary.current_statistics() is not None:
                    shown = time.perf_counter() - pressed
            return shown if shown is not None else time.perf_counter() - pressed, time.perf_counter() - pressed
    finally:
        ScoreScreen.set_session = original  # type: ignore[method-assign]


async def measure_command_line(directory: Path, runs: list[Path], queries: int) -> Moment:
    """``rankeval-tui DIR --run ...`` from its parsed arguments to the single-run rows painted,
    as the command does it (``cli.inspect``: the protocol validated before the app, handed on to
    it, the runs read by a forked child meanwhile), with no harness polling. Starts while this
    process runs no other thread, as the command does (else the runs are read in-process)."""
    from rankeval_tui.cli import build_parser
    from rankeval_tui.cli.inspect import preread_files, scoring_app

    adopted, rows_painted = asyncio.Event(), asyncio.Event()
    original = ScoreScreen.set_session
    rows_drawn: list[list[Moment]] = []

    def set_session(self: ScoreScreen, session) -> None:
        if not adopted.is_set():
            rows_drawn.append(watch_paint(self, queries, rows_painted.set, view="run"))
        original(self, session)
        adopted.set()

    ScoreScreen.set_session = set_session  # type: ignore[method-assign]
    try:
        args = build_parser().parse_args(["inspect", str(directory), *[f"--run={path}" for path in runs]])
        start = moment()
        app = scoring_app(args, preread_files(args))
        async with app.run_test(size=(120, 36)):
            await adopted.wait()
            await asyncio.wait_for(rows_painted.wait(), 120)
            return since(start, rows_drawn[0][0])
    finally:
        ScoreScreen.set_session = original  # type: ignore[method-assign]


def command_line_in_fresh_process(directory: Path, runs: list[Path], queries: int) -> tuple[Moment, int]:
    """``measure_command_line`` in a new interpreter, as a user's command starts: no fork server
    or statistics child left warm by the apps measured before it (in this process the first
    statistics child, which starts the fork server, took ~10 ms instead of ~0.5 s), nothing
    loaded. Returns the wall and CPU seconds and the threads running when it started."""
    output = subprocess.run(
        [sys.executable, __file__, *map(str, runs), "--command-path", str(directory), "--queries", str(queries)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return (float(output[0]), float(output[1])), int(output[2])


Sample = tuple[float, float | None]
"""Wall seconds, and CPU seconds where this process does the work (None: a child's statistics)."""


async def measure_app(directory: Path, runs: list[Path], queries: int) -> dict[str, Sample]:
    specs = [(None, path) for path in runs]
    start = moment()
    app = RankevalApp(directory, run_specs=specs)
    times: dict[str, Sample] = {}
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ScoreScreen) and app.screen.session is not None)
        screen = app.screen
        table = screen.query_one("#score-compare-table", DataTable)
        drawn = watch_paint(screen, queries)
        summary = screen.query_one(CompareSummary)
        pressed = time.perf_counter()
        await pilot.press("v")
        await wait_until(pilot, lambda: table.row_count == queries and screen.state.view == "compare")
        await pilot.pause()  # one refresh: the table is drawn
        times["open comparison (incl. load)"] = since(start)
        await wait_until(pilot, lambda: bool(drawn))
        times["comparison first drawn (incl. load)"] = since(start, drawn[0])
        await wait_until(pilot, lambda: summary.current_statistics() is not None, timeout=300)
        times["statistics on screen after v"] = (time.perf_counter() - pressed, None)
        await wait_until(pilot, lambda: complete(summary), timeout=300)
        times["statistics complete (bootstrap) after v"] = (time.perf_counter() - pressed, None)
        k = screen.session.protocol.k
        for key, new_k, label in (("+", k + 1, "k change +1"), ("-", k, "k change -1")):
            before = moment()
            await pilot.press(key)
            await wait_until(pilot, lambda new_k=new_k: screen.session.protocol.k == new_k)
            await pilot.pause()
            times[label] = since(before)
            assert table.row_count == queries
        await wait_until(pilot, lambda: summary.current_statistics() is not None, timeout=300)
        times["statistics on screen after k change"] = (since(before)[0], None)
        await wait_until(pilot, lambda: complete(summary), timeout=300)
        times["statistics complete after k change"] = (since(before)[0], None)
    return times


def one_repeat(directory: Path, queries: int, k: int) -> dict[str, Sample]:
    """Every step once on the protocol in ``directory``, in this process (the code of ``CODE``)."""
    runs = sorted((directory / "runs").glob("*.json"))
    results: dict[str, Sample] = {}
    before = moment()
    session = ScoringSession.load(directory, [(None, p) for p in runs])
    results["load (files -> scored session)"] = since(before)
    assert len(session.accepted) == 3, [s.error for s in session.rejected]
    before = moment()
    session.with_k(k + 1)
    results["re-score only (3 runs, core)"] = since(before)
    del session  # the apps below start with nothing loaded, as ``rankeval-tui DIR`` does
    gc.unfreeze()
    gc.collect()
    results.update(asyncio.run(measure_app(directory, runs, queries)))
    gc.unfreeze()  # what that app's load froze is garbage now
    gc.collect()
    command_line, threads = command_line_in_fresh_process(directory, runs, queries)
    results["rankeval-tui DIR: rows drawn (the command's path)"] = command_line
    results["  threads running at its start (1: runs read by a child)"] = (threads, None)
    rows, comparison = asyncio.run(measure_unpolled(directory, runs, queries))
    results["single-run rows drawn, no harness polling"] = rows
    results["comparison drawn, no harness polling"] = comparison
    gc.unfreeze()
    gc.collect()
    shown, done = asyncio.run(measure_statistics_after_reading(directory, runs))
    results["statistics on screen, v 1 s after open, no polling"] = (shown, None)
    results["statistics complete, v 1 s after open, no polling"] = (done, None)
    opened, loaded = results["open comparison (incl. load)"], results["load (files -> scored session)"]
    results["screen part of open (open - load)"] = (opened[0] - loaded[0], None)
    return results


def repeat_in_child(tree: Path, directory: Path, queries: int, k: int) -> tuple[dict[str, Sample], float]:
    """``one_repeat`` in a fresh interpreter running ``tree``'s package; with the 1-minute load
    average when it ended (the machine is shared: the figure to read each time beside)."""
    env = {**os.environ, "BENCH_SCORING_CODE": str(tree)}
    argv = [sys.executable, __file__, "--one-repeat", str(directory), "--queries", str(queries), "--k", str(k)]
    # cwd: the statistics child comes from a fork server started with ``python -c``, whose first
    # import path is the working directory (3.11 does not pass it sys.path): run it in ``tree``,
    # or it imports the package of the checkout the script was started from.
    output = subprocess.run(argv, check=True, capture_output=True, text=True, env=env, cwd=tree).stdout
    return {label: (wall, cpu) for label, (wall, cpu) in json.loads(output).items()}, os.getloadavg()[0]


def measure_size(queries: int, args: argparse.Namespace, trees: dict[str, Path]) -> dict[str, dict[str, list[Sample]]]:
    """Per tree, per step, every repeat's sample; the trees take turns within each repeat (the
    order alternating), so both see the same machine."""
    spec = SynthSpec(queries, args.documents, args.depth, k=args.k, runs=("A", "B", "C"))
    results: dict[str, dict[str, list[Sample]]] = {name: {} for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_protocol(Path(tmp) / "proto", make_data(spec))
        for repeat in range(args.repeat):
            order = list(trees.items()) if repeat % 2 == 0 else list(reversed(trees.items()))
            for name, tree in order:
                samples, load = repeat_in_child(tree, paths.directory, queries, args.k)
                samples["load average (1 min) at the end"] = (load, None)
                for label, sample in samples.items():
                    results[name].setdefault(label, []).append(sample)
    return results


def best_median(samples: list[Sample]) -> str:
    """``wall best (median)``, then ``cpu best (median)`` where there is one."""
    walls = [wall for wall, _ in samples]
    cpus = [cpu for _, cpu in samples if cpu is not None]
    text = f"{min(walls):.3f} ({statistics.median(walls):.3f})"
    return text + (f"  cpu {min(cpus):.3f} ({statistics.median(cpus):.3f})" if cpus else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument(
        "--documents", type=int, default=200, help="corpus size; exhaustive qrels are queries x documents pairs in TOML"
    )
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", metavar="REV", help="also time commit REV's code, side by side, repeat by repeat")
    parser.add_argument("--command-path", type=Path, help=argparse.SUPPRESS)  # command_line_in_fresh_process
    parser.add_argument("--one-repeat", type=Path, help=argparse.SUPPRESS)  # repeat_in_child
    parser.add_argument("runs", type=Path, nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.command_path is not None:
        threads = threading.active_count()
        wall, cpu = asyncio.run(measure_command_line(args.command_path, args.runs, args.queries[0]))
        print(wall, cpu, threads)
        return 0
    if args.one_repeat is not None:
        print(json.dumps(one_repeat(args.one_repeat, args.queries[0], args.k)))
        return 0
    from benchmarks.sidebyside import compared_trees

    print(
        f"protocol: {' and '.join(map(str, args.queries))} queries x {args.documents} documents (exhaustive "
        f"qrels), 3 runs of depth {args.depth}, k {args.k}; app 120x36 headless; {os.cpu_count()} cpus, load "
        f"average {os.getloadavg()[0]:.1f} at the start; best (median) of {args.repeat}, wall seconds then CPU "
        "seconds (this process's threads and its reaped children)"
    )
    with compared_trees(args.before) as trees:
        for tree in trees.values():  # bytecode written once, not timed in the first fresh interpreter
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "rankeval_tui")], check=True)
        by_size = {queries: measure_size(queries, args, trees) for queries in args.queries}
    columns = [(queries, name) for queries in by_size for name in trees]
    labels = list(by_size[args.queries[0]][next(iter(trees))])
    width = max(map(len, labels))
    cells = {column: [best_median(by_size[column[0]][column[1]][label]) for label in labels] for column in columns}
    widths = {column: max(len(f"Q={column[0]:,} {column[1]}"), *map(len, cells[column])) for column in columns}
    print("step".ljust(width) + "".join(f"  {f'Q={q:,} {n}':>{widths[(q, n)]}}" for q, n in columns))
    for index, label in enumerate(labels):
        print(label.ljust(width) + "".join(f"  {cells[column][index]:>{widths[column]}}" for column in columns))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
