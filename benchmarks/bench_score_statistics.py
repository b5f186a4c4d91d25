"""Paired statistics on the scoring screen: how long they take, and that keys do not wait for them.

    python benchmarks/bench_score_statistics.py                    # 2000 queries x 200 documents, 3 runs of depth 100
    python benchmarks/bench_score_statistics.py --queries 200 --repeat 1

The same seeded synthetic protocol as bench_scoring.py. Steps, each repeated:

- core: ``ScoringSession.statistics`` for one baseline and two candidates (sign-flip
  Monte-Carlo and bootstrap, 10000 draws each, both metrics, Holm): what the worker computes;
- app: from ``v`` to the comparison table filled (statistics not included: they are a worker)
  and from ``v`` to the statistics on screen;
- key latency: ``s`` (re-sort 2000 rows by the exact delta) pressed when idle and pressed
  while the statistics worker runs, each until the table shows the new order. The ratio
  busy/idle is the cost of sharing the GIL with the worker thread.

Prints best and median seconds and ratios. Timings on a shared machine are noisy.

    python benchmarks/bench_score_statistics.py --cli --queries 10000   # the headless command

``--cli`` instead times ``rankeval-tui score`` as processes, best of ``--repeat`` each (runs
interleaved): without statistics, ``--baseline A --test sign-flip`` and ``--test bootstrap``,
with their ratios to the command without statistics (issue 13: at most 2x at 10,000 queries),
and beside them ranx.compare (Fisher randomization, 10,000 permutations, the same runs, read
from the same TREC files) in its own process. ``--code DIR`` runs the command from another
checkout (the before column of a change).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual.widgets import DataTable  # noqa: E402

from benchmarks.bench_scoring import wait_until  # noqa: E402
from benchmarks.synth import SynthSpec, make_data, write_protocol  # noqa: E402
from rankeval_tui.core.session import ScoringSession  # noqa: E402
from rankeval_tui.tui.app import RankevalApp  # noqa: E402
from rankeval_tui.tui.score.compare_summary import CompareSummary  # noqa: E402
from rankeval_tui.tui.score.score_screen import ScoreScreen  # noqa: E402


async def press_sort(pilot, screen: ScoreScreen, table: DataTable) -> float:
    """Seconds from pressing ``s`` until the sort mode changed and the table order follows it."""
    before_mode = screen.state.sort_mode
    first = table.ordered_rows[0].key.value
    start = time.perf_counter()
    await pilot.press("s")
    await wait_until(pilot, lambda: screen.state.sort_mode != before_mode)
    await pilot.pause()
    elapsed = time.perf_counter() - start
    del first
    return elapsed


async def measure_app(directory: Path, runs: list[Path], queries: int) -> dict[str, float]:
    app = RankevalApp(directory, run_specs=[(None, p) for p in runs])
    times: dict[str, float] = {}
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ScoreScreen) and app.screen.session is not None)
        screen = app.screen
        table = screen.query_one("#score-compare-table", DataTable)
        start = time.perf_counter()
        await pilot.press("v")
        await wait_until(pilot, lambda: table.row_count == queries and screen.state.view == "compare")
        await pilot.pause()
        times["v -> comparison table (no statistics)"] = time.perf_counter() - start
        busy = []
        while screen.query_one(CompareSummary).current_statistics() is None and len(busy) < 5:
            busy.append(await press_sort(pilot, screen, table))
        await wait_until(pilot, lambda: screen.query_one(CompareSummary).current_statistics() is not None, timeout=300)
        times["v -> statistics on screen"] = time.perf_counter() - start
        idle = [await press_sort(pilot, screen, table) for _ in range(5)]
        times["key 's' idle (median of 5)"] = statistics.median(idle)
        if busy:
            times[f"key 's' while computing (median of {len(busy)})"] = statistics.median(busy)
    return times


RANX_COMPARE = """
import json, sys, time
start = time.perf_counter()
from ranx import Qrels, Run, compare
qrels = Qrels.from_file(sys.argv[1], kind="trec")
runs = [Run.from_file(path, kind="trec", name=path.rsplit("/", 1)[-1][:-4]) for path in sys.argv[2:]]
tiny = Qrels({"q": {"d": 1}})
compare(tiny, [Run({"q": {"d": 1.0}}, name="a"), Run({"q": {"d": 1.0}}, name="b")], ["mrr@10"], n_permutations=10)
warm = time.perf_counter()
report = compare(qrels, runs, ["recall@10", "mrr@10"], stat_test="fisher", n_permutations=10000, max_p=0.05,
                 make_comparable=True)
done = time.perf_counter()
print(json.dumps({"compare": done - warm, "process": done - start}))
"""


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return time.perf_counter() - start, proc.stdout


def bench_cli(directory: Path, runs: list[Path], trec_runs: list[Path], repeat: int, code: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(code)}
    base = [sys.executable, "-m", "rankeval_tui", "score", str(directory), "--format", "json"]
    for run in runs:
        base += ["--run", str(run)]
    commands = {
        "score (no statistics)": base,
        "score --baseline A --test sign-flip": [*base, "--baseline", "A", "--test", "sign-flip"],
        "score --baseline A --test bootstrap": [*base, "--baseline", "A", "--test", "bootstrap"],
    }
    best: dict[str, float] = {}
    for _ in range(repeat):
        for label, argv in commands.items():
            best[label] = min(best.get(label, float("inf")), timed(argv, env)[0])
    qrels = str(directory / "trec" / "qrels.txt")  # ranx once: minutes per run, a reference not a target
    _, out = timed([sys.executable, "-c", RANX_COMPARE, qrels, *map(str, trec_runs)], dict(os.environ))
    ranx = json.loads(out)
    plain = best["score (no statistics)"]
    print(f"code: {code}; best of {repeat}")
    print(f"{'command':<40} {'wall s':>7} {'vs no statistics':>17}")
    for label, seconds in best.items():
        print(f"{label:<40} {seconds:>7.2f} {seconds / plain:>16.2f}x")
    print(
        f"{'ranx.compare (fisher, 10,000 perm.)':<40} {ranx['compare']:>7.2f}   (one run, numba warmed; process "
        f"{ranx['process']:.2f} s with reading the TREC files)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cli", action="store_true", help="time the score command instead of the screen")
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose rankeval_tui --cli runs")
    args = parser.parse_args()

    spec = SynthSpec(args.queries, args.documents, args.depth, k=args.k, runs=("A", "B", "C"))
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_protocol(Path(tmp) / "proto", make_data(spec))
        runs = list(paths.json_runs.values())
        if args.cli:
            print(
                f"protocol: {args.queries} queries x {args.documents} documents, 3 runs of depth {args.depth}, "
                f"k {args.k}; baseline A, candidates B and C, 10000 draws, seed 0"
            )
            bench_cli(paths.directory, runs, list(paths.trec_runs.values()), args.repeat, args.code.resolve())
            return 0
        print(
            f"protocol: {args.queries} queries x {args.documents} documents, 3 runs of depth {args.depth}, "
            f"k {args.k}; statistics: baseline A, candidates B and C, 10000 draws, seed 0; "
            f"{args.repeat} repeats"
        )
        session = ScoringSession.load(paths.directory, [(None, p) for p in runs])
        for _ in range(args.repeat):
            start = time.perf_counter()
            family = session.statistics("A")
            results.setdefault("core statistics (2 candidates x 2 metrics)", []).append(time.perf_counter() - start)
            for label, seconds in asyncio.run(measure_app(paths.directory, runs, args.queries)).items():
                results.setdefault(label, []).append(seconds)
        rr = family.get("B").metrics["rr"]
        print(f"n = {rr.n}; sign-flip {rr.sign_flip.method}; B vs A MRR p = {float(rr.p_value):.4f}")
    width = max(map(len, results))
    print(f"{'step'.ljust(width)}  best s   median s")
    for label, values in results.items():
        print(f"{label.ljust(width)}  {min(values):7.3f}  {statistics.median(values):8.3f}")
    idle = statistics.median(results["key 's' idle (median of 5)"])
    busy_key = next((k for k in results if k.startswith("key 's' while")), None)
    if busy_key:
        print(f"key latency while computing / idle: {statistics.median(results[busy_key]) / idle:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
