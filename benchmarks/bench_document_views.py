"""A key that shows another long document, on every screen that shows document text: the
adjudication screen's next disagreement (``→``), and the scoring drill-down's next document
(``↓``) and next run (Tab). Prints numbers, asserts nothing.

Why: these screens drew the whole document in a Static (a 9,541-line page took the adjudication
pane 4-8.6 s, the drill-down 3.8-9.1 s, Tab 0.3-1.3 s); now they draw it with the judging screen's
line-based ``DocumentView``. Target: p90 under 100 ms at 10,000 lines.

Measured: the key pressed -> the first frame (the app's ``post_display_hook``) in which the
document view has painted the new document (its ``drawn_key``); headless driver, so the
terminal's own drawing is not included; the first key is a warm-up. Between keys the script
waits ``--read`` seconds (the neighbouring disagreements are prepared meanwhile, on the UI
thread; the drill-down's next documents in a worker thread). Beside the wall-clock percentiles: the process's CPU time (user +
system) over all timed keys, per key.

    /work/venv/bin/python benchmarks/bench_document_views.py [--lines 1000,10000] [--keys 15]
        [--size 80x24] [--read 0.1] [--before REV [--rounds 2]]

``--before REV``: the same measurement of commit REV's code (``git archive``) and this
checkout's, in turn, ``--rounds`` times, each a process of its own (``sidebyside``), with its CPU
time (user + system) beside its table.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import tomli_w

from benchmarks.bench_judging_latency import percentile, write_protocol
from benchmarks.sidebyside import code_env, compared_trees, run_process
from rankeval_tui.core.annotation.adjudication import AdjudicationSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.tomllib_compat import tomllib
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.judge.document_view import DocumentView


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class PaintClock:
    """Stamps every frame with the time and the key of the document the screen's view painted."""

    def __init__(self, app: RankevalApp) -> None:
        self.frames: list[tuple[float, object]] = []
        original = app.post_display_hook

        def stamp() -> None:
            views = list(app.screen.query(DocumentView))
            self.frames.append((time.perf_counter(), views[0].drawn_key if views else None))
            original()

        app.post_display_hook = stamp  # type: ignore[method-assign]

    async def painted_after(self, t0: float, before: object) -> float:
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline:
            for when, key in self.frames:
                if when >= t0 and key is not None and key != before:
                    return when - t0
            await asyncio.sleep(0.001)
        raise AssertionError("no frame painted another document")


async def timed_keys(
    app: RankevalApp, pilot, clock: PaintClock, keys: list[str], read: float
) -> tuple[list[float], float]:
    """Wall seconds per key (after the first) and CPU seconds per timed key."""
    samples: list[float] = []
    cpu = 0.0
    for i, key in enumerate(keys):
        view = app.screen.query_one(DocumentView)
        before = view.drawn_key
        c0, t0 = cpu_seconds(), time.perf_counter()
        await pilot.press(key)
        latency = await clock.painted_after(t0, before)
        if i:
            samples.append(latency)
            cpu += cpu_seconds() - c0
        await pilot.pause()
        await asyncio.sleep(read)
    return samples, cpu / max(1, len(samples))


def labels_file(path: Path, annotator: str, qrels: dict) -> Path:
    path.write_text(tomli_w.dumps({"provenance": {"annotators": [annotator]}, "qrels": qrels}), encoding="utf-8")
    return path


async def adjudication(directory: Path, keys: int, size: tuple[int, int], read: float) -> tuple[list[float], float]:
    definition = load_definition(directory)
    alice = {q: dict.fromkeys(definition.documents, 1) for q in definition.queries}
    bob = copy.deepcopy(alice)
    for row in bob.values():
        for doc in row:
            row[doc] = 0  # every pair disputed
    a, b = labels_file(directory / "alice.toml", "alice", alice), labels_file(directory / "bob.toml", "bob", bob)
    session = AdjudicationSession.open(definition, a, b, directory / "adjudicated.toml", adjudicator="bench")
    app = RankevalApp(directory, start="adjudicate", adjudication_session=session)
    clock = PaintClock(app)
    try:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return await timed_keys(app, pilot, clock, ["right"] * (keys + 1), read)
    finally:
        session.close()


def write_runs(directory: Path) -> None:
    """Two runs ranking every document in opposite orders, and labels for every pair."""
    protocol = directory / "protocol.toml"
    protocol.write_text(protocol.read_text(encoding="utf-8").replace("k = 10\n", "k = 100\n", 1), encoding="utf-8")
    data = tomllib.loads(protocol.read_text(encoding="utf-8"))  # k over every document: no cutoff row to cross
    docs, queries = list(data["documents"]), list(data["queries"])
    (directory / "runs").mkdir()
    for name, order in (("forward", docs), ("backward", docs[::-1])):
        lines = [f"{q} Q0 {d} {rank} {100 - rank} {name}" for q in queries for rank, d in enumerate(order, 1)]
        (directory / "runs" / f"{name}.trec").write_text("\n".join(lines) + "\n", encoding="utf-8")
    qrels = {q: {d: int(i % 3 == 0) for i, d in enumerate(docs)} for q in queries}
    (directory / "qrels.toml").write_text(tomli_w.dumps({"qrels": qrels}), encoding="utf-8")


async def drill_down(
    directory: Path, keys: int, size: tuple[int, int], read: float, key: str
) -> tuple[list[float], float]:
    app = RankevalApp(directory)
    clock = PaintClock(app)
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause(0.5)
        await pilot.press("enter")  # the first query's drill-down
        await pilot.pause(0.5)
        keys_pressed = ["down" if key == "down" else ("tab" if i % 2 == 0 else "shift+tab") for i in range(keys + 1)]
        if key == "tab":  # each Tab lands on the other run, whose cursor is on another document
            await pilot.press("down")
            await pilot.pause()
        return await timed_keys(app, pilot, clock, keys_pressed, read)


def side_by_side(args: argparse.Namespace) -> int:
    """This script without ``--before``, for REV's tree and this checkout's in turn."""
    own = ["--lines", args.lines, "--keys", str(args.keys), "--size", args.size, "--read", str(args.read)]
    with compared_trees(args.before) as trees, tempfile.TemporaryDirectory(prefix="pycache-") as pycache:
        for round_number in range(1, args.rounds + 1):
            for label, tree in reversed(list(trees.items())):  # the old code first
                load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
                sample = run_process(
                    [sys.executable, str(Path(__file__).resolve()), *own], code_env(tree, Path(pycache) / label)
                )
                print(f"== {label}, round {round_number}, load average {load}: process CPU {sample.cpu:.1f} s")
                print(sample.stdout.decode().rstrip())
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", default="1000,10000", help="document lengths, comma-separated")
    parser.add_argument("--keys", type=int, default=15, help="keys timed per case (after one warm-up key)")
    parser.add_argument("--size", default="80x24", help="terminal size, COLSxROWS")
    parser.add_argument("--read", type=float, default=0.1, help="seconds between a frame and the next key")
    parser.add_argument("--before", metavar="REV", help="also time commit REV's code, in turn with this checkout's")
    parser.add_argument("--rounds", type=int, default=2, help="with --before: rounds of the two in turn")
    args = parser.parse_args()
    if args.before is not None:
        return side_by_side(args)
    size = tuple(int(n) for n in args.size.split("x"))
    root = Path(tempfile.mkdtemp(prefix="bench-document-views-"))
    cases: dict[str, Callable] = {
        "adjudication →": lambda d: adjudication(d, args.keys, size, args.read),
        "drill-down ↓": lambda d: drill_down(d, args.keys, size, args.read, "down"),
        "drill-down Tab": lambda d: drill_down(d, args.keys, size, args.read, "tab"),
    }
    try:
        print(f"terminal {args.size}; {args.keys} keys per case, {args.read} s between keys (p90 target 100 ms)")
        print(f"{'case':<16} {'lines':>7} {'p50 ms':>8} {'p90 ms':>8} {'max ms':>8} {'CPU ms/key':>11}")
        for lines in (int(n) for n in args.lines.split(",")):
            for name, run in cases.items():
                directory = root / f"{name.split()[0]}-{name.split()[1]}-{lines}"
                write_protocol(directory, lines, docs=args.keys + 3)
                if not name.startswith("adjudication"):
                    write_runs(directory)
                samples, cpu = asyncio.run(run(directory))
                ms = [s * 1000 for s in samples]
                print(
                    f"{name:<16} {lines:>7} {statistics.median(ms):>8.1f} {percentile(ms, 0.9):>8.1f} "
                    f"{max(ms):>8.1f} {cpu * 1000:>11.1f}"
                )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
