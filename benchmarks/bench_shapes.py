"""``score`` end to end on every shape of protocol, beside pytrec_eval and the C trec_eval.

    python benchmarks/bench_shapes.py                              # the five shapes, 5 rounds
    python benchmarks/bench_shapes.py --shapes square pooled --trec-eval /path/to/trec_eval
    python benchmarks/bench_shapes.py --scale 0.1 --rounds 3       # a quick look (a tenth of each)
    python benchmarks/bench_shapes.py --before REV                 # that commit's code beside this one

The shapes (every ID as real collections spell them: ``q:1001``, ``msmarco_v2.1_doc_00_12345``):

- **square**: 1,000 queries x 1,000 documents, exhaustive (1M judged pairs), runs 100 deep;
- **tall**: 100,000 queries x 10 documents, exhaustive (1M pairs), runs 10 deep;
- **wide**: 10 queries x 100,000 documents, exhaustive (1M pairs), runs 1,000 deep;
- **pooled**: 10,000 queries, each with its own pool of 100 judged documents drawn from a
  1M-document collection (1M labels, TREC qrels), the run ranking each query's pool; the protocol
  is made as a user makes it: ``rankeval-tui init DIR --qrels qrels.txt --run A.run --k 10``;
- **msmarco**: MS MARCO's dev set as it comes: 7,000 queries (numeric IDs), qrels listing only the
  relevant documents (one, sometimes two a query), a run 1,000 deep (7M lines, MS MARCO v2.1
  document IDs); made with ``init ... --unlisted-as-zero``, as trec_eval reads such qrels.

Each round runs every command once, in turn (order rotated every round, so a burst of load on the
shared machine hits them alike), each a whole process from start to exit: ours is
``rankeval-tui score DIR --run runs/A.json --format json`` (Recall@10 and RR@10); pytrec_eval
reads the same judgments and run as TREC files with its own parser and evaluates ``recall.10`` and
``recip_rank`` (benchmarks/bench_evaluator.py's end-to-end worker); the C trec_eval runs
``trec_eval -q -c -m recall.10 -m recip_rank qrels run`` (``-c``: a query missing from
the run scores 0, as here) on every shape but tall (where ``-q`` is
quadratic in the queries: 223 s) when ``--trec-eval PATH`` names a binary, and is
skipped with a notice when not. Printed: best / median wall seconds, the median over rounds of the
ratio ours / peer (< 1: we are faster), the median CPU seconds (user + system, a process's
children it waited for included)
and their median ratio, peak RSS of the largest process (the shapes are generated in a child
process, so no command inherits the generator's memory as its floor). Every peer's means must agree
with ours to 1e-9 after adjusting conventions (benchmarks/peers.py; the C trec_eval to 1e-4, the
precision it prints), or the script exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import peers  # noqa: E402
from benchmarks.sidebyside import Sample, best_median, code_env, compared_trees, run_process  # noqa: E402
from benchmarks.synth import SynthSpec, make_data, trec_qrels, trec_run, write_protocol  # noqa: E402

K = 10
SHAPES = ("square", "tall", "wide", "pooled", "msmarco")
C_SHAPES = ("square", "wide", "pooled", "msmarco")
"""Where the C trec_eval is timed; tall (100,000 queries) is quadratic for it."""


@dataclass(frozen=True)
class Shape:
    directory: Path
    """The protocol directory ``score`` reads."""
    trec: Path
    """A directory holding ``trec/qrels.txt`` and ``trec/A.run`` for the peers."""
    selected: list[str]
    eligible: set[str]
    present: set[str]
    description: str


def exhaustive(name: str, queries: int, documents: int, depth: int, scale: float, tmp: Path) -> Shape:
    queries, documents = max(2, round(queries * scale)) if queries > 10 else queries, max(10, round(documents * scale))
    depth = min(depth, documents)
    data = make_data(SynthSpec(queries, documents, depth, k=K, layout="realistic"))
    directory = tmp / name
    write_protocol(directory, data)
    eligible = {q for q, row in data.qrels.items() if 1 in row.values()}
    return Shape(
        directory,
        directory,
        data.selected,
        eligible,
        set(data.runs["A"]),
        f"{queries:,} queries x {documents:,} documents, exhaustive ({queries * documents:,} pairs), runs {depth} deep",
    )


def pooled(queries: int, pool: int, scale: float, tmp: Path) -> Shape:
    """TREC files as a user has them (labels for each query's pool, a run over it), then ``init``."""
    queries = max(2, round(queries * scale))
    rng = random.Random(0)
    collection = 1_000_000
    qrels: dict[str, dict[str, int]] = {}
    rankings: dict[str, list[str]] = {}
    for i in range(queries):
        q = f"q:{1001 + i}"
        docs = [f"msmarco_v2.1_doc_{n // 100_000:02d}_{n % 100_000:05d}" for n in rng.sample(range(collection), pool)]
        relevant = 0 if rng.random() < 0.05 else rng.randint(1, 8)
        qrels[q] = {d: int(j < relevant) for j, d in enumerate(docs)}
        if rng.random() >= 0.05:  # some queries missing from the run (0 here, dropped by trec_eval)
            ranking = docs[:]
            rng.shuffle(ranking)
            rankings[q] = ranking
    trec = tmp / "pooled-trec"
    (trec / "trec").mkdir(parents=True)
    (trec / "trec" / "qrels.txt").write_text(trec_qrels(qrels), encoding="utf-8")
    (trec / "trec" / "A.run").write_text(trec_run(rankings, "A"), encoding="utf-8")
    directory = tmp / "pooled"
    init = [sys.executable, "-m", "rankeval_tui", "init", str(directory)]
    init += ["--qrels", str(trec / "trec" / "qrels.txt"), "--run", f"A={trec / 'trec' / 'A.run'}", "--k", str(K)]
    run_process(init, code_env(ROOT, tmp / "pycache-init"))
    eligible = {q for q, row in qrels.items() if 1 in row.values()}
    return Shape(
        directory,
        trec,
        sorted(qrels),
        eligible,
        set(rankings),
        f"{queries:,} queries, pools of {pool} ({queries * pool:,} labels), run {pool} deep, made by init",
    )


def msmarco(queries: int, depth: int, scale: float, tmp: Path) -> Shape:
    """MS MARCO dev-like TREC files (only the relevant pairs listed, a deep run), then ``init
    --unlisted-as-zero``."""
    queries = max(2, round(queries * scale))
    rng = random.Random(0)
    qids = [str(q) for q in rng.sample(range(1, 1_102_400), queries)]

    def document() -> str:
        return f"msmarco_v2.1_doc_{rng.randrange(59):02d}_{rng.randrange(2_000_000_000)}"

    qrels: dict[str, dict[str, int]] = {}
    rankings: dict[str, list[str]] = {}
    for q in qids:
        relevant = [document() for _ in range(1 if rng.random() < 0.93 else 2)]
        qrels[q] = dict.fromkeys(relevant, 1)
        ranking = list(dict.fromkeys(document() for _ in range(depth)))
        for doc in relevant:
            if rng.random() < 0.8:  # retrieved somewhere in the 1,000
                ranking[rng.randrange(len(ranking))] = doc
        rankings[q] = list(dict.fromkeys(ranking))
    trec = tmp / "msmarco-trec"
    (trec / "trec").mkdir(parents=True)
    (trec / "trec" / "qrels.txt").write_text(trec_qrels(qrels), encoding="utf-8")
    (trec / "trec" / "A.run").write_text(trec_run(rankings, "A"), encoding="utf-8")
    directory = tmp / "msmarco"
    init = [sys.executable, "-m", "rankeval_tui", "init", str(directory), "--unlisted-as-zero"]
    init += ["--qrels", str(trec / "trec" / "qrels.txt"), "--run", f"A={trec / 'trec' / 'A.run'}", "--k", str(K)]
    run_process(init, code_env(ROOT, tmp / "pycache-init"))
    return Shape(
        directory,
        trec,
        sorted(qrels),
        set(qrels),
        set(rankings),
        f"{queries:,} queries, {sum(map(len, qrels.values())):,} relevant pairs listed, run {depth} deep, "
        "made by init --unlisted-as-zero",
    )


def make_shape(name: str, scale: float, tmp: Path) -> Shape:
    if name == "square":
        return exhaustive(name, 1000, 1000, 100, scale, tmp)
    if name == "tall":
        return exhaustive(name, 100_000, 10, 10, scale, tmp)
    if name == "wide":
        return exhaustive(name, 10, 100_000, 1000, scale, tmp)
    if name == "msmarco":
        return msmarco(7_000, 1_000, scale, tmp)
    return pooled(10_000, 100, scale, tmp)


def made_apart(name: str, scale: float, tmp: Path) -> Shape:
    """``make_shape`` in a child process: the generated data never lives in this one, whose size
    every child it starts would otherwise inherit as its peak RSS (fork copies it before exec)."""
    meta = tmp / f"{name}.json"
    argv = [sys.executable, str(Path(__file__).resolve()), "--make", name, str(scale), str(tmp), str(meta)]
    run_process(argv, code_env(ROOT, tmp / "pycache-make"))
    fields = json.loads(meta.read_text(encoding="utf-8"))
    return Shape(
        Path(fields["directory"]),
        Path(fields["trec"]),
        fields["selected"],
        set(fields["eligible"]),
        set(fields["present"]),
        fields["description"],
    )


def make_worker(name: str, scale: float, tmp: Path, meta: Path) -> None:
    shape = make_shape(name, scale, tmp)
    fields = {
        "directory": str(shape.directory),
        "trec": str(shape.trec),
        "selected": shape.selected,
        "eligible": sorted(shape.eligible),
        "present": sorted(shape.present),
        "description": shape.description,
    }
    meta.write_text(json.dumps(fields), encoding="utf-8")


def our_run(directory: Path) -> Path:
    runs = sorted((directory / "runs").iterdir())
    return runs[0]


OURS_HEAD = 1 << 23
"""The bytes of our JSON report kept (8 MiB): the means come after the protocol (1.7 MB at 100,000
queries) and before the rows (``Report.to_json``)."""


def means_ours(sample: Sample) -> tuple[float, float]:
    """The run's two means, read from the head of the report (never the whole report: see
    ``sidebyside.run_process`` on why this process stays small)."""
    head = sample.stdout.decode("utf-8", "replace")
    recall = re.search(r'"recall_at_k": "([^"]*)"', head)
    rr = re.search(r'"mrr_at_k": "([^"]*)"', head)
    assert recall is not None and rr is not None, "no means in the head of the report"
    return float(Fraction(recall.group(1))), float(Fraction(rr.group(1)))


def means_worker(sample: Sample) -> tuple[float, float]:
    result = json.loads(sample.stdout)
    return result["recall"], result["rr"]


def means_c(sample: Sample, shape: Shape) -> tuple[float, float]:
    """trec_eval -q's per-query lines, adjusted to this project's conventions like pytrec_eval's."""
    per_query: dict[str, list[float]] = {}
    for line in sample.stdout.decode().splitlines():
        measure, query, value = line.split()
        if query != "all":
            per_query.setdefault(query, [0.0, 0.0])[0 if measure == f"recall_{K}" else 1] = float(value)
    adjusted = {q: (r, peers.adjust_rr_cutoff(rr, K)) for q, (r, rr) in per_query.items()}
    _, recall, rr = peers.adjust(adjusted, shape.selected, shape.eligible, shape.present)
    return recall, rr  # type: ignore[return-value]


def commands(shape_name: str, shape: Shape, roots: dict[str, Path], trec_eval: Path | None) -> dict[str, list[str]]:
    python = sys.executable
    table = {
        f"ours ({label})": [
            python,
            "-m",
            "rankeval_tui",
            "score",
            str(shape.directory),
            "--run",
            str(our_run(shape.directory)),
            "--format",
            "json",
        ]
        for label in roots
    }
    table["pytrec_eval"] = [python, str(ROOT / "benchmarks" / "bench_evaluator.py")]
    table["pytrec_eval"] += ["--worker", "e2e", "pytrec_eval", str(shape.trec), str(K)]
    if trec_eval is not None and shape_name in C_SHAPES:
        table["trec_eval (C)"] = [str(trec_eval), "-q", "-c", "-m", f"recall.{K}", "-m", "recip_rank"]
        table["trec_eval (C)"] += [str(shape.trec / "trec" / "qrels.txt"), str(shape.trec / "trec" / "A.run")]
    return table


def measure(shape_name: str, shape: Shape, roots: dict[str, Path], args: argparse.Namespace, pyc: Path) -> bool:
    table = commands(shape_name, shape, roots, args.trec_eval)
    envs = {
        name: code_env(next((r for label, r in roots.items() if f"({label})" in name), ROOT), pyc / str(i))
        for i, name in enumerate(table)
    }
    cwd = {name: next((r for label, r in roots.items() if f"({label})" in name), ROOT) for name in table}
    names = list(table)
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    limit = {name: OURS_HEAD if name.startswith("ours") else -1 for name in names}
    for name in names:  # warm-up: bytecode written, files in the page cache
        run_process(table[name], envs[name], cwd=cwd[name], stdout_limit=limit[name])
    for round_ in range(args.rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            samples[name].append(run_process(table[name], envs[name], cwd=cwd[name], stdout_limit=limit[name]))
    first = names[0]
    ours = means_ours(samples[first][0])
    print(
        f"{'command':22} {'wall s (best / median)':>24} {'ours/this':>10} {'CPU s (median)':>15} {'ours/this':>10} "
        f"{'peak MB':>8}  agree"
    )
    ok = True
    for name in names:
        got = samples[name]
        ratio = statistics.median(a.wall / b.wall for a, b in zip(samples[first], got))
        cpu_ratio = statistics.median(a.cpu / b.cpu for a, b in zip(samples[first], got))
        if name.startswith("ours"):
            means = means_ours(got[0])
        elif name == "pytrec_eval":
            means = means_worker(got[0])
        else:
            means = means_c(got[0], shape)
        tolerance = 1e-4 if name == "trec_eval (C)" else 1e-9  # trec_eval prints 4 decimals a query
        same = all(abs(a - b) <= tolerance for a, b in zip(ours, means))
        ok &= same
        print(
            f"{name:22} {best_median([s.wall for s in got]):>24} {ratio:>9.2f}x "
            f"{statistics.median(s.cpu for s in got):>13.3f} s {cpu_ratio:>9.2f}x {max(s.peak_mb for s in got):8.0f}  "
            f"{'yes' if same else f'NO: {means} vs {ours}'}"
        )
    if shape_name in C_SHAPES and args.trec_eval is None:
        print(
            "   trec_eval (C): skipped, no binary given (--trec-eval PATH to a trec_eval built from usnistgov/trec_eval)"
        )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the big dimension of each shape")
    parser.add_argument("--trec-eval", type=Path, default=None, metavar="PATH", help="a trec_eval binary")
    parser.add_argument("--before", metavar="REV", default=None, help="also run this commit's score, side by side")
    parser.add_argument("--keep", type=Path, default=None, help="write the protocols here and keep them")
    parser.add_argument("--make", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make:
        name, scale, tmp, meta = args.make
        make_worker(name, float(scale), Path(tmp), Path(meta))
        return 0
    import platform

    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus; load average "
        f"{os.getloadavg()[0]:.1f}; {args.rounds} rounds, each command once a round (order rotated)"
    )
    with tempfile.TemporaryDirectory(prefix="rankeval-shapes-") as scratch:
        tmp = args.keep or Path(scratch)
        pyc = Path(scratch) / "pycache"
        ok = True
        for name in args.shapes:
            start = time.perf_counter()
            shape = made_apart(name, args.scale, tmp)
            print(f"\n== {name}: {shape.description} (made in {time.perf_counter() - start:.1f} s)")
            with compared_trees(args.before) as trees:
                ok &= measure(name, shape, trees, args, pyc)
    print("\nevery tool agrees with ours after adjusting conventions" if ok else "\nDISAGREEMENT: see above")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
