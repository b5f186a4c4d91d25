"""Judging at scale: 200 queries x 500 documents (100,000 pairs). Prints numbers, asserts nothing.

Measured (targets from issue 3: keystroke < 50 ms, start-up < 2 s, qrels write < 1 s):
- start-up: protocol.toml parsed + session opened (lock, journal) + app mounted with the judging
  screen drawn, fresh and when resuming a journal of 99,700 judgments (replay);
- keystroke: ``1``/``0`` pressed -> journal line written and fdatasync'd -> the first frame drawn
  after it (the app's ``post_display_hook``, stamped with the journal size, so the frame counted
  is one drawn after the line was on disk; headless driver: the terminal emulator's own drawing is
  not included), and the core part alone (``session.label``: JSON line + write + fdatasync);
- overview: ``o`` pressed -> 200 x 500 matrix drawn (only the visible cells are rendered);
- qrels write: snapshot + ``core.files.write_qrels`` (check, tomli-w, temp file, fsync, rename).

    /work/venv/bin/python benchmarks/bench_judging.py [--queries 200 --docs 500 --keys 300]

The journal of the resume case is generated as JSON lines in the journal's own format (writing
99,700 entries through fsync would time the disk, not the code). The temporary protocol lives
in a temp dir and is removed afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import tomli_w

from rankeval_tui.core.annotation.judging import JudgingSession, journal_header
from rankeval_tui.core.files import load_definition
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.judge.label_matrix import LabelMatrix

SIZE = (120, 36)


def generate_protocol(directory: Path, queries: int, docs: int, seed: int = 3) -> None:
    rng = random.Random(seed)
    words = ["export", "sync", "download", "theme", "account", "retry", "folder", "format", "manual", "settings"]
    data = {
        "protocol": {
            "name": f"bench-{queries}x{docs}",
            "k": 10,
            "split": "test",
            "relevance": "1 if the document answers the query; otherwise 0",
        },
        "documents": {f"d{i}": {"text": " ".join(rng.choice(words) for _ in range(40))} for i in range(docs)},
        "queries": {
            f"q{i}": {
                "text": " ".join(rng.choice(words) for _ in range(6)),
                "split": "test" if i % 5 else "dev",
                "need": "what the user wants to do",
            }
            for i in range(queries)
        },
    }
    directory.mkdir(parents=True)
    (directory / "protocol.toml").write_text(tomli_w.dumps(data), encoding="utf-8")


def write_journal(directory: Path, judged: int) -> None:
    """A journal with ``judged`` label entries in corpus order, as ``JudgingSession`` writes them."""
    definition = load_definition(directory)
    header = journal_header(definition, "corpus", None, "bench")  # as JudgingSession starts one
    lines = [json.dumps(header)]
    rng = random.Random(5)
    for query in definition.queries:
        for doc in definition.documents:
            if len(lines) > judged:
                break
            lines.append(
                json.dumps({"op": "label", "q": query, "d": doc, "v": int(rng.random() < 0.05)}, separators=(",", ":"))
            )
    (directory / "qrels.toml.journal").write_text("\n".join(lines) + "\n", encoding="utf-8")


def summary(name: str, samples: list[float], target_ms: float | None = None) -> None:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    line = (
        f"{name:<44} n={len(ms):<5} median {statistics.median(ms):8.2f} ms   p95 {p95:8.2f} ms   max {ms[-1]:8.2f} ms"
    )
    if target_ms is not None:
        line += f"   target {target_ms:g} ms: p95/target = {p95 / target_ms:.2f}"
    print(line)


async def run_app(directory: Path, keys: int, *, resume: bool) -> dict[str, object]:
    result: dict[str, object] = {}
    start = time.perf_counter()
    definition = load_definition(directory)
    parsed = time.perf_counter()
    session = JudgingSession.open(definition, directory / "qrels.toml", annotator=None if resume else "bench")
    opened = time.perf_counter()
    app = RankevalApp(directory, qrels_path=directory / "qrels.toml", start="judge", judge_session=session)
    # Every frame the app writes to the (headless) terminal is stamped with the time and the
    # journal's size then: a key's latency is press -> the first frame drawn after its line is on disk.
    frames: list[tuple[float, int]] = []
    original_hook = app.post_display_hook

    def stamp() -> None:
        frames.append((time.perf_counter(), session.journal.path.stat().st_size if session.journal else -1))
        original_hook()

    app.post_display_hook = stamp  # type: ignore[method-assign]

    async def latency(t0: float, journal_before: int | None) -> float:
        """Seconds from t0 to the first qualifying frame (waiting for it: Pilot may return first)."""
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            for when, size in frames:
                if when >= t0 and (journal_before is None or size > journal_before):
                    return when - t0
            await asyncio.sleep(0.002)
        raise AssertionError("no frame was drawn after the key")

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        ready = frames[0][0] if frames else time.perf_counter()
        result["parse"], result["open"], result["mount"] = parsed - start, opened - parsed, ready - opened
        assert frames, "the headless driver drew no frame"
        result["startup"] = ready - start
        presses: list[float] = []
        for i in range(keys):
            before_size = session.journal.path.stat().st_size
            t0 = time.perf_counter()
            await pilot.press("1" if i % 7 == 0 else "0")
            await pilot.pause()
            assert session.journal.path.stat().st_size > before_size  # it was journaled
            presses.append(await latency(t0, before_size))
        result["presses"] = presses
        if resume:
            await app.workers.wait_for_complete()
        t0 = time.perf_counter()
        await pilot.press("o")
        await pilot.pause()
        result["overview"] = await latency(t0, None)
        moves = []
        matrix = app.screen.query_one(LabelMatrix)  # start mid-matrix so no move is clamped at an edge
        matrix.cursor = (len(session.cursor.query_ids) // 2, len(session.definition.documents) // 2)
        await pilot.pause()
        for key in ["down", "right", "up", "left"] * 25:  # every key moves the cursor, so every key draws
            t0 = time.perf_counter()
            await pilot.press(key)
            await pilot.pause()
            moves.append(await latency(t0, None))
        result["moves"] = moves
        await pilot.press("escape")
        result["complete"] = session.marks.complete
        if session.marks.complete:
            t0 = time.perf_counter()
            snapshot = session.snapshot()
            session.write_qrels(snapshot)
            result["write"] = time.perf_counter() - t0
            result["qrels_bytes"] = (directory / "qrels.toml").stat().st_size
    session.close()
    return result


def core_label_latency(directory: Path, n: int) -> list[float]:
    session = JudgingSession.open(load_definition(directory), directory / "qrels.toml", annotator="bench")
    samples = []
    try:
        for i in range(n):
            t0 = time.perf_counter()
            session.label(i % 2)
            samples.append(time.perf_counter() - t0)
    finally:
        session.close()
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--keys", type=int, default=300)
    args = parser.parse_args()
    pairs = args.queries * args.docs
    root = Path(tempfile.mkdtemp(prefix="bench-judging-"))
    try:
        print(f"protocol: {args.queries} queries x {args.docs} documents = {pairs} pairs; terminal {SIZE[0]}x{SIZE[1]}")
        fresh = root / "fresh"
        generate_protocol(fresh, args.queries, args.docs)
        print(f"protocol.toml: {(fresh / 'protocol.toml').stat().st_size / 1e6:.2f} MB")

        core_dir = root / "core"
        shutil.copytree(fresh, core_dir)
        summary("core: session.label (JSON + write + fdatasync)", core_label_latency(core_dir, 1000), 50)

        a = asyncio.run(run_app(fresh, args.keys, resume=False))
        print(
            f"start-up, fresh session: {a['startup']:.3f} s (parse {a['parse']:.3f} + open {a['open']:.3f} + "
            f"mount {a['mount']:.3f}); target 2 s: ratio {a['startup'] / 2:.2f}"
        )
        summary("keystroke -> fsynced + screen updated (fresh)", a["presses"], 50)  # type: ignore[arg-type]
        print(f"overview open (fresh): {a['overview'] * 1000:.1f} ms")
        summary("overview cursor move", a["moves"], 50)  # type: ignore[arg-type]

        resume = root / "resume"
        generate_protocol(resume, args.queries, args.docs)
        remaining = min(args.keys, pairs)
        write_journal(resume, pairs - remaining)
        print(
            f"journal to replay: {pairs - remaining} entries, "
            f"{(resume / 'qrels.toml.journal').stat().st_size / 1e6:.2f} MB"
        )
        b = asyncio.run(run_app(resume, remaining, resume=True))
        print(
            f"start-up, resuming {pairs - remaining} judgments: {b['startup']:.3f} s (parse {b['parse']:.3f} + "
            f"open/replay {b['open']:.3f} + mount {b['mount']:.3f}); target 2 s: ratio {b['startup'] / 2:.2f}"
        )
        summary("keystroke -> fsynced + screen updated (resume)", b["presses"], 50)  # type: ignore[arg-type]
        print(f"overview open (complete, {pairs} pairs): {b['overview'] * 1000:.1f} ms")
        assert b["complete"], "the resume run should have judged every remaining pair"
        print(
            f"qrels write ({pairs} pairs, {b['qrels_bytes'] / 1e6:.2f} MB): {b['write']:.3f} s; "
            f"target 1 s: ratio {b['write']:.2f}"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
