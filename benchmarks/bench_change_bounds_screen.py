"""The scoring screen's comparison on a gap at 1,000 unjudged pairs: what its worker computes, and
that the screen answers meanwhile. Prints numbers, asserts nothing.

Protocol (synthetic, made by ``init`` from TREC files): ``--queries`` queries, the old run's top
10 judged (2 relevant each), the new run ranking ``--new`` documents outside the pools first,
then the old run's in reverse: ``min(new, 10)`` unjudged top-10 pairs per query (1,000 at the
defaults).

Measured, in one process, each ``--repeats`` times:

- ``ScoringSession.change_bounds`` (``compare_bounds``: the worker's whole job): CPU time
  (user+system of this process, ``time.process_time``) and wall time;
- on the real screen (Pilot, 80x24): the wall time from ``v`` until the comparison first shows
  (saying the bounds are being computed, or already with them), then until the bounds are on screen.

    /work/venv/bin/python benchmarks/bench_change_bounds_screen.py [--queries 100] [--new 10] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def make_protocol(root: Path, queries: int, new: int) -> Path:
    qrels, old, fresh = [], [], []
    for q in range(queries):
        judged = [f"q{q}d{d}" for d in range(10)]
        qrels += [f"q{q} 0 {doc} {int(i < 2)}" for i, doc in enumerate(judged)]
        old += [f"q{q} Q0 {doc} {i + 1} {10 - i} old" for i, doc in enumerate(judged)]
        unjudged = [f"q{q}n{d}" for d in range(new)]
        mixed = unjudged + judged[::-1]
        fresh += [f"q{q} Q0 {doc} {i + 1} {10 - i} new" for i, doc in enumerate(mixed)]
    (root / "qrels.trec").write_text("\n".join(qrels) + "\n")
    (root / "old.trec").write_text("\n".join(old) + "\n")
    directory = root / "p"
    subprocess.run(
        [sys.executable, "-m", "rankeval_tui", "init", str(directory), "--qrels", str(root / "qrels.trec"),
         "--run", str(root / "old.trec"), "--k", "10"],
        check=True, capture_output=True,
    )  # fmt: skip
    (directory / "runs" / "new.trec").write_text("\n".join(fresh) + "\n")
    return directory


def compute(directory: Path, repeats: int) -> None:
    from rankeval_tui.core.session import ScoringSession

    session = ScoringSession.load(directory)
    pairs = next(s.gap_pairs for s in session.scored if s.name == "new")
    cpu, wall = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        session.change_bounds("old", "new")
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    print(f"change_bounds at {pairs} unjudged pairs: CPU median {statistics.median(cpu) * 1000:.0f} ms "
          f"(max {max(cpu) * 1000:.0f}), wall median {statistics.median(wall) * 1000:.0f} ms")  # fmt: skip


async def on_screen(directory: Path) -> tuple[float, float]:
    from rankeval_tui.tui.app import RankevalApp
    from rankeval_tui.tui.score.score_screen import ScoreScreen

    app = RankevalApp(directory)
    async with app.run_test(size=(80, 24)) as pilot:
        while not isinstance(app.screen, ScoreScreen) or app.screen.session is None:
            await pilot.pause(0.01)
        await app.workers.wait_for_complete()
        title = app.screen.query_one("#score-compare-title")
        start = time.perf_counter()
        await pilot.press("v")
        while " vs " not in str(title.render()):  # the comparison shown: computing, or already the bounds
            await pilot.pause(0)
        shown = time.perf_counter() - start
        while "on bounds:" not in str(title.render()):
            await pilot.pause(0.001)
        done = time.perf_counter() - start
        await pilot.press("q")
    return shown, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--new", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = make_protocol(Path(tmp), args.queries, args.new)
        compute(directory, args.repeats)
        runs = [asyncio.run(on_screen(directory)) for _ in range(args.repeats)]
        for label, index in (("v to the comparison shown", 0), ("v to the bounds on screen", 1)):
            values = [run[index] * 1000 for run in runs]
            print(f"{label}: wall median {statistics.median(values):.0f} ms (max {max(values):.0f})")


if __name__ == "__main__":
    main()
