"""Resuming a judging journal and writing the qrels, against the journal's own JSON decode.

    python benchmarks/bench_resume.py [--sizes 1000x100 1000x1000] [--runs 5] [--before REV]

For each size QxD (queries x documents, realistic IDs ``q:1001`` / ``msmarco_v2.1_doc_00_N``) a
protocol and a complete journal are generated: every pair labeled in corpus order (5% relevant),
a note every 997 entries, an undo and a redo every 4,999, each entry with the ``at`` timestamp
the judging screen writes. Each run is a fresh process (one per version, in turn) timing:

- decode: ``json.loads`` of every journal line (the floor: any resume reads them);
- read: ``Journal.read`` (the lines decoded and checked);
- resume: ``JudgingSession.open`` (lock, read, binding check, replay: the state the judging
  screen opens on), what ``rankeval-tui judge`` does before drawing;
- write: ``snapshot()`` + ``write_qrels`` of the complete labels (check, TOML, temp file, fsync,
  rename), what the end of judging does.

Printed: best / median of --runs, wall and CPU seconds, for each version; each stage's CPU over
the decode's in the same process (median over runs: on a shared machine the two clocks of one
process move together; issue 32 item 3 asks resume at most 2x decode, and the write of 1M labels
within 0.5 s); and now / before on the CPU medians. The qrels files the two versions write must
be byte-identical.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sidebyside import best_median, code_env, compared_trees, run_process  # noqa: E402

STAGES = ("decode", "read", "resume", "write")


def make_protocol(directory: Path, queries: int, documents: int) -> None:
    """protocol.toml and qrels.toml.journal (complete) for ``queries`` x ``documents`` pairs."""
    from rankeval_tui.core.annotation.judging import journal_header
    from rankeval_tui.core.files import load_definition
    from rankeval_tui.core.files.tomlio import dump_toml

    rng = random.Random(7)
    words = ["export", "sync", "download", "theme", "account", "retry", "folder", "format"]
    data = {
        "protocol": {"name": f"resume-{queries}x{documents}", "k": 10, "split": "test", "relevance": "answers it"},
        "documents": {
            f"msmarco_v2.1_doc_00_{i}": {"text": " ".join(rng.choice(words) for _ in range(20))}
            for i in range(documents)
        },
        "queries": {f"q:{1001 + i}": {"text": f"how to {rng.choice(words)}", "split": "test"} for i in range(queries)},
    }
    directory.mkdir(parents=True)
    (directory / "protocol.toml").write_text(dump_toml(data), encoding="utf-8")
    definition = load_definition(directory)
    header = journal_header(definition, "corpus", None, "bench")  # as JudgingSession starts one
    at = 1_765_000_000.0
    lines = [json.dumps(header, ensure_ascii=False, separators=(",", ":"))]

    def entry(**fields: object) -> None:
        nonlocal at
        at += 0.731
        lines.append(json.dumps({**fields, "at": round(at, 3)}, ensure_ascii=False, separators=(",", ":")))

    for query in definition.queries:
        for doc in definition.documents:
            entry(op="label", q=query, d=doc, v=int(rng.random() < 0.05))
            if len(lines) % 997 == 0:
                entry(op="note", q=query, d=doc, v='unclear: says "maybe"')
            if len(lines) % 4999 == 0:
                entry(op="undo")
                entry(op="redo")
    (directory / "qrels.toml.journal").write_text("\n".join(lines) + "\n", encoding="utf-8")


def worker(directory: Path) -> None:
    """One measurement of every stage, in this process, printed as JSON (the parent's side)."""
    from rankeval_tui.core.annotation.journal import Journal
    from rankeval_tui.core.annotation.judging import JudgingSession
    from rankeval_tui.core.files import load_definition

    assert Path(sys.modules["rankeval_tui"].__file__ or "").parent.parent == Path.cwd()  # the version asked for
    journal_path = directory / "qrels.toml.journal"
    definition = load_definition(directory)
    times: dict[str, tuple[float, float]] = {}  # stage: (wall, CPU) seconds
    clocks = time.perf_counter, time.process_time
    raw = journal_path.read_bytes()
    start = [clock() for clock in clocks]
    decoded = [json.loads(line) for line in raw.splitlines()]
    times["decode"] = (clocks[0]() - start[0], clocks[1]() - start[1])
    del decoded
    start = [clock() for clock in clocks]
    contents = Journal.read(journal_path)
    times["read"] = (clocks[0]() - start[0], clocks[1]() - start[1])
    del contents
    start = [clock() for clock in clocks]
    session = JudgingSession.open(definition, directory / "qrels.toml")
    times["resume"] = (clocks[0]() - start[0], clocks[1]() - start[1])
    try:
        assert session.marks.complete, "the generated journal labels every pair"
        start = [clock() for clock in clocks]
        session.write_qrels(session.snapshot())
        times["write"] = (clocks[0]() - start[0], clocks[1]() - start[1])
    finally:
        session.close()
    print(json.dumps(times))


def measure(size: str, roots: dict[str, Path], work: Path, runs: int) -> None:
    queries, documents = (int(x) for x in size.split("x"))
    directory = work / size
    make_protocol(directory, queries, documents)
    journal_mb = (directory / "qrels.toml.journal").stat().st_size / 1e6
    print(
        f"\n{queries} queries x {documents} documents: {queries * documents:,} judgments, journal {journal_mb:.0f} MB"
    )
    wall: dict[str, dict[str, list[float]]] = {label: {stage: [] for stage in STAGES} for label in roots}
    cpu: dict[str, dict[str, list[float]]] = {label: {stage: [] for stage in STAGES} for label in roots}
    written: dict[str, bytes] = {}
    envs = {label: code_env(root, work / f"pyc-{label}") for label, root in roots.items()}
    for _ in range(runs):
        for label in roots:
            sample = run_process([sys.executable, __file__, "--worker", str(directory)], envs[label], cwd=roots[label])
            for stage, (wall_seconds, cpu_seconds) in json.loads(sample.stdout).items():
                wall[label][stage].append(wall_seconds)
                cpu[label][stage].append(cpu_seconds)
            written[label] = (directory / "qrels.toml").read_bytes()
    print(f"{'stage':8} {'version':12} {'wall best / median':>20} {'CPU best / median':>20} {'CPU / decode':>13}")
    for stage in STAGES:
        for label in roots:
            per_run = statistics.median(c / d for c, d in zip(cpu[label][stage], cpu[label]["decode"]))
            print(
                f"{stage:8} {label:12} {best_median(wall[label][stage]):>20} {best_median(cpu[label][stage]):>20} "
                f"{per_run:12.2f}x"
            )
    now, *rest = roots
    for label in rest:
        ratios = [
            f"{stage} {statistics.median(cpu[now][stage]) / statistics.median(cpu[label][stage]):.2f}x"
            for stage in STAGES[1:]
        ]
        print(f"now / {label}, CPU medians: " + ", ".join(ratios))
    if len(set(written.values())) > 1:
        raise SystemExit("the versions wrote different qrels files")


def main() -> int:
    if sys.argv[1:2] == ["--worker"]:
        sys.path.remove(str(ROOT))  # the package comes from PYTHONPATH: this checkout or --before's
        worker(Path(sys.argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["1000x100", "1000x1000"], metavar="QxD")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", metavar="REV", default=None, help="also run this commit's code, side by side")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-resume-") as tmp, compared_trees(args.before) as trees:
        for size in args.sizes:
            measure(size, trees, Path(tmp), args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
