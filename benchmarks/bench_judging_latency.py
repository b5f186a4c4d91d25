"""An annotator's key on long documents: from ``1``/``0`` to the next document on screen, per
document length, and the first screen of a 1M-pair protocol. Prints numbers, asserts nothing.

Why apart from ``bench_judging.py``: its documents are 40 words long, so its 8-18 ms say nothing
about the 2-3 s a 6,000-line manual page took (issue 31). Here every document of a run has the
same length (10, 100, 1,000, 5,000, 10,000 lines by default) and is shaped like real
documentation: headings, paragraphs of one to a few long lines (wrapped on screen), lists, code
blocks, IDs like ``docs/api/readline-0003.md``, queries like ``q:1001``.

Measured (targets from issue 31: p90 <= 50 ms at every length; first screen <= 1.5 s):
- key: ``1``/``0`` pressed -> the first frame drawn (the app's ``post_display_hook``) after the
  journal grew and the session moved to the next document; headless driver, so the terminal's
  own drawing is not included. The first key of each run is a warm-up and is not counted.
  Between keys the script waits ``--read`` seconds (an annotator reads for 15-60 s): the screen
  prepares the next document in that time. ``--cold`` turns that off, for the path of a jump
  (overview, ``g``) to a document nobody prepared.
- first screen: ``load_definition`` + ``JudgingSession.open`` + the app's first frame, for
  1,000 queries x 1,000 short documents (1M pairs).

``--assigned QUERIES``: the judge of one assigned annotator (``judge --annotator``), whose labels
file follows each judgment, on QUERIES queries x the documents, every query but the last one
already labelled (her file holds them): a key then also has her whole file rewritten, in a thread.

    /work/venv/bin/python benchmarks/bench_judging_latency.py [--lines 10,100,1000,5000,10000]
        [--keys 20] [--size 120x36] [--read 0.2] [--cold] [--million] [--assigned QUERIES]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import tomli_w

from rankeval_tui.core.annotation.assignment import AnnotatorSession, write_partial_labels
from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import QrelsFile, load_definition
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.judge.screen import JudgeScreen

WORDS = (
    "the interface readline stream input output history completer terminal prompt line event "
    "buffer write close pause resume option default value callback returns string number object "
    "when if is set to a of for with by this that which function method class module export "
    "import settings account sync download folder format retry cursor key signal process"
).split()
TOPICS = ("api", "cli", "guides", "reference", "internals")


def document(rng: random.Random, lines: int) -> str:
    """``lines`` source lines of Markdown-like documentation (some far wider than a terminal)."""
    out: list[str] = []
    while len(out) < lines:
        kind = rng.random()
        if kind < 0.08:
            out += [f"## {' '.join(rng.choice(WORDS) for _ in range(rng.randint(2, 6)))}", ""]
        elif kind < 0.2:
            out += ["```js"] + [
                "  " * rng.randint(0, 3) + f"const {rng.choice(WORDS)} = {rng.choice(WORDS)}.{rng.choice(WORDS)}();"
                for _ in range(rng.randint(2, 8))
            ]
            out += ["```", ""]
        elif kind < 0.35:
            out += [f"* `{rng.choice(WORDS)}` {' '.join(rng.choice(WORDS) for _ in range(rng.randint(4, 20)))}"]
        else:
            out += [" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 60))) for _ in range(rng.randint(1, 3))]
            out.append("")
    return "\n".join(out[:lines])


def write_protocol(directory: Path, lines: int, docs: int, queries: int = 1, seed: int = 31) -> None:
    """``queries`` queries over ``docs`` documents of ``lines`` lines each (realistic IDs)."""
    rng = random.Random(seed)
    data = {
        "protocol": {
            "name": f"latency-{lines}-lines",
            "k": 10,
            "split": "test",
            "relevance": "1 if the document answers the query; otherwise 0",
        },
        "documents": {
            f"docs/{TOPICS[i % len(TOPICS)]}/{rng.choice(WORDS)}-{i:04d}.md": {
                "title": f"{rng.choice(WORDS).title()} {rng.choice(WORDS)}",
                "text": document(rng, lines),
            }
            for i in range(docs)
        },
        "queries": {
            f"q:{1001 + i}": {"text": " ".join(rng.choice(WORDS) for _ in range(4)), "split": "test"}
            for i in range(queries)
        },
    }
    directory.mkdir(parents=True)
    (directory / "protocol.toml").write_text(tomli_w.dumps(data), encoding="utf-8")


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


class FrameClock:
    """Stamps every frame the app draws with the time, the journal's size and the pair on screen."""

    def __init__(self, app: RankevalApp, session: JudgingSession) -> None:
        self.frames: list[tuple[float, int, tuple[str, str]]] = []
        self.judging_frames: list[float] = []
        original = app.post_display_hook

        def stamp() -> None:
            now = time.perf_counter()
            size = session.journal.path.stat().st_size if session.journal else -1
            self.frames.append((now, size, session.cursor.current))
            if isinstance(app.screen, JudgeScreen):  # not Textual's blank default screen under it
                self.judging_frames.append(now)
            original()

        app.post_display_hook = stamp  # type: ignore[method-assign]

    async def first_after(self, t0: float, journal_before: int, pair_before: tuple[str, str]) -> float:
        """Seconds from t0 to the first frame with the key journaled and the next pair shown."""
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline:
            for when, size, pair in self.frames:
                if when >= t0 and size > journal_before and pair != pair_before:
                    return when - t0
            await asyncio.sleep(0.001)
        raise AssertionError("no frame showed the next document")


def assigned_session(directory: Path) -> JudgingSession:
    """An annotator's session whose labels file holds every query but the last one, labelled."""
    definition = load_definition(directory)
    path = directory / "labels" / "bench.toml"
    path.parent.mkdir()
    *done, _ = definition.queries
    labels = {query: {doc: int(i % 7 == 0) for i, doc in enumerate(definition.documents_of(query))} for query in done}
    write_partial_labels(path, QrelsFile(labels=labels), definition, "bench")
    return AnnotatorSession.open(definition, path, annotator="bench")


async def key_latencies(
    directory: Path, keys: int, size: tuple[int, int], read: float, cold: bool, assigned: bool = False
) -> list[float]:
    if assigned:
        session = assigned_session(directory)
    else:
        session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="bench")
    app = RankevalApp(directory, qrels_path=session.qrels_path, start="judge", judge_session=session)
    clock = FrameClock(app, session)
    samples: list[float] = []
    try:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            if cold:  # nothing prepared ahead: every key splits and matches its document then
                app.screen.documents.ahead = False  # type: ignore[attr-defined]
            for i in range(keys + 1):
                assert session.journal is not None
                before, pair = session.journal.path.stat().st_size, session.cursor.current
                t0 = time.perf_counter()
                await pilot.press("1" if i % 5 == 0 else "0")
                latency = await clock.first_after(t0, before, pair)
                if i:  # the first key warms caches (styles, fonts of the first wrapped lines)
                    samples.append(latency)
                await pilot.pause()
                await asyncio.sleep(read)  # the annotator reads (15-60 s in TREC; far less here)
    finally:
        session.close()
    return samples


async def first_screen(directory: Path, size: tuple[int, int]) -> tuple[float, float, float]:
    """(parse, open, first frame) seconds for the protocol in ``directory``."""
    t0 = time.perf_counter()
    definition = load_definition(directory)
    t1 = time.perf_counter()
    session = JudgingSession.open(definition, directory / "qrels.toml", annotator="bench")
    t2 = time.perf_counter()
    app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
    clock = FrameClock(app, session)
    try:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            while not clock.judging_frames:
                await asyncio.sleep(0.001)
            first = clock.judging_frames[0]
    finally:
        session.close()
    return t1 - t0, t2 - t1, first - t2


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", default="10,100,1000,5000,10000", help="document lengths, comma-separated")
    parser.add_argument("--keys", type=int, default=20, help="keys timed per length (after one warm-up key)")
    parser.add_argument("--size", default="120x36", help="terminal size, COLSxROWS")
    parser.add_argument("--read", type=float, default=0.2, help="seconds between a frame and the next key")
    parser.add_argument("--cold", action="store_true", help="no document prepared ahead (a jump, not a label)")
    parser.add_argument("--million", action="store_true", help="also time the first screen of 1,000 x 1,000 pairs")
    parser.add_argument(
        "--assigned", type=int, default=0, metavar="QUERIES", help="an assigned annotator's judge, QUERIES queries"
    )
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.split("x"))
    root = Path(tempfile.mkdtemp(prefix="bench-judging-latency-"))
    try:
        print(
            f"terminal {cols}x{rows}; {args.keys} keys per length, {args.read} s between keys"
            f"{', cold (nothing prepared ahead)' if args.cold else ''} (p90 target 50 ms)"
            + (f"; assigned annotator, {args.assigned} queries labelled but the last" if args.assigned else "")
        )
        print(f"{'lines':>7} {'MB':>6} {'p50 ms':>8} {'p90 ms':>8} {'max ms':>8}  p90/target")
        for lines in (int(n) for n in args.lines.split(",")):
            directory = root / f"lines-{lines}"
            write_protocol(directory, lines, docs=args.keys + 2, queries=max(1, args.assigned))
            megabytes = (directory / "protocol.toml").stat().st_size / 1e6
            latencies = key_latencies(directory, args.keys, (cols, rows), args.read, args.cold, bool(args.assigned))
            ms = [s * 1000 for s in asyncio.run(latencies)]
            p90 = percentile(ms, 0.9)
            print(
                f"{lines:>7} {megabytes:>6.1f} {statistics.median(ms):>8.1f} {p90:>8.1f} {max(ms):>8.1f}  {p90 / 50:.2f}"
            )
        if args.million:
            directory = root / "million"
            write_protocol(directory, 3, docs=1000, queries=1000)
            parse, opened, frame = asyncio.run(first_screen(directory, (cols, rows)))
            total = parse + opened + frame
            print(
                f"first screen, 1,000 x 1,000 = 1M pairs: {total:.3f} s (parse {parse:.3f} + open {opened:.3f} "
                f"+ first frame {frame:.3f}); target 1.5 s: ratio {total / 1.5:.2f}"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
