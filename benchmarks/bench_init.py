"""``rankeval-tui init`` from a user's own files, and validating the result, beside the field's
readers of the same files, and init at 4x the corpus (nothing may be quadratic in it).

    python benchmarks/bench_init.py                          # 10,000 docs, 200 queries, 2 runs x 100
    python benchmarks/bench_init.py --documents 2000 --repeat 1   # quick

One process, best of --repeat, on seeded synthetic files (realistic IDs: ``msmarco_v2.1_doc_00_N``,
``q:N``): a BEIR corpus.jsonl, a queries TSV, a partial TREC qrels (10 labels per query) and two
100-deep TREC runs. Timed:

- init: ``plan_protocol`` + ``write_protocol`` (read and check corpus, queries, qrels, runs;
  write protocol.toml, qrels.toml, runs/ through a staging directory);
- validate of the result: ``validate_directory`` (what ``rankeval-tui validate DIR`` runs):
  protocol.toml, the partial qrels.toml and its holes per query, both runs from runs/ checked;
- the same qrels and runs read by pytrec_eval (``parse_qrel``, ``parse_run``) and ir_measures
  (``read_trec_qrels``, ``read_trec_run``): they read only those two kinds of file and check
  nothing, so the ratio says what the corpus, the checks and the writing cost on top;
- the project's own reading of the two runs (``load_run``), beside the same peers' run readers;
- init at --scale times the documents (same queries and runs): time per document must stay flat.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rankeval_tui.core.files import load_run, run_files  # noqa: E402
from rankeval_tui.core.files.protocol_init import InitRequest, plan_protocol, write_protocol  # noqa: E402
from rankeval_tui.core.files.validation import validate_directory  # noqa: E402


def doc_id(i: int) -> str:
    return f"msmarco_v2.1_doc_00_{i}"


def make_files(directory: Path, documents: int, queries: int, depth: int, seed: int = 1) -> dict[str, Path]:
    rng = random.Random(seed)
    words = ["export", "sync", "csv", "theme", "download", "retry", "account", "folder", "settings", "share"]
    paths = {
        name: directory / name for name in ("corpus.jsonl", "queries.tsv", "qrels.trec", "bm25.trec", "dense.trec")
    }
    with paths["corpus.jsonl"].open("w", encoding="utf-8") as out:
        for i in range(documents):
            text = " ".join(rng.choice(words) for _ in range(30))
            out.write(json.dumps({"_id": doc_id(i), "title": f"Article {i}", "text": text}) + "\n")
    query_ids = [f"q:{1000 + i}" for i in range(queries)]
    paths["queries.tsv"].write_text(
        "".join(f"{q}\thow do I {rng.choice(words)}\n" for q in query_ids), encoding="utf-8"
    )
    pool = min(documents, 1000)  # the runs retrieve from the first 1,000 documents at every corpus size
    rankings = {name: {q: rng.sample(range(pool), depth) for q in query_ids} for name in ("bm25", "dense")}
    for name, ranking in rankings.items():
        lines = [
            f"{q} Q0 {doc_id(d)} {r} {depth - r + 1} {name}"
            for q, docs in ranking.items()
            for r, d in enumerate(docs, 1)
        ]
        paths[f"{name}.trec"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    labels = [f"{q} 0 {doc_id(d)} {int(r < 3)}" for q in query_ids for r, d in enumerate(rankings["bm25"][q][:10])]
    paths["qrels.trec"].write_text("\n".join(labels) + "\n", encoding="utf-8")
    return paths


def best(repeat: int, action: Callable[[], object], setup: Callable[[], object] = lambda: None) -> float:
    times = []
    for _ in range(repeat):
        setup()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def init_once(files: dict[str, Path], target: Path) -> None:
    request = InitRequest(
        directory=target,
        corpus=files["corpus.jsonl"],
        queries=files["queries.tsv"],
        k=10,
        qrels=files["qrels.trec"],
        runs=[(None, files["bm25.trec"]), (None, files["dense.trec"])],
    )
    write_protocol(plan_protocol(request))


def validate_once(target: Path) -> None:
    """What ``rankeval-tui validate DIR`` computes (core ``validate_directory``), printing aside."""
    result = validate_directory(target, None, [(None, path) for path in run_files(target)])
    assert not result.problems and result.hole_count > 0, result.problems


def pytrec_eval_read(files: dict[str, Path]) -> None:
    import pytrec_eval

    with files["qrels.trec"].open() as handle:
        pytrec_eval.parse_qrel(handle)
    for name in ("bm25.trec", "dense.trec"):
        with files[name].open() as handle:
            pytrec_eval.parse_run(handle)


def ir_measures_read(files: dict[str, Path], runs_only: bool = False) -> None:
    import ir_measures

    if not runs_only:
        list(ir_measures.read_trec_qrels(str(files["qrels.trec"])))
    for name in ("bm25.trec", "dense.trec"):
        list(ir_measures.read_trec_run(str(files[name])))


def pytrec_eval_runs(files: dict[str, Path]) -> None:
    import pytrec_eval

    for name in ("bm25.trec", "dense.trec"):
        with files[name].open() as handle:
            pytrec_eval.parse_run(handle)


def measure_init(work: Path, documents: int, args: argparse.Namespace) -> tuple[dict[str, Path], Path, float]:
    source = work / f"src-{documents}"
    source.mkdir()
    files = make_files(source, documents, args.queries, args.depth)
    target = work / f"protocol-{documents}"
    seconds = best(args.repeat, lambda: init_once(files, target), lambda: shutil.rmtree(target, ignore_errors=True))
    return files, target, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--scale", type=int, default=4, help="the second corpus is this many times larger")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        files, target, init_s = measure_init(work, args.documents, args)
        validate_s = best(args.repeat, lambda: validate_once(target))
        ours_runs_s = best(args.repeat, lambda: [load_run(files[n]) for n in ("bm25.trec", "dense.trec")])
        pytrec_s = best(args.repeat, lambda: pytrec_eval_read(files))
        irm_s = best(args.repeat, lambda: ir_measures_read(files))
        pytrec_runs_s = best(args.repeat, lambda: pytrec_eval_runs(files))
        irm_runs_s = best(args.repeat, lambda: ir_measures_read(files, runs_only=True))
        _, _, big_init_s = measure_init(work, args.documents * args.scale, args)
    entries = 2 * args.queries * args.depth
    print(
        f"corpus {args.documents:,} documents (BEIR JSONL), {args.queries} queries, 2 TREC runs x {args.depth} "
        f"= {entries:,} entries, {args.queries * 10:,} imported labels; best of {args.repeat}"
    )
    rows = [
        ("rankeval-tui init (read, check, write)", init_s),
        ("rankeval-tui validate of the result", validate_s),
        ("pytrec_eval parse_qrel + parse_run x2", pytrec_s),
        ("ir_measures read_trec_qrels + read_trec_run x2", irm_s),
    ]
    for name, seconds in rows:
        print(f"  {name:<48} {seconds * 1000:9.1f} ms")
    print(
        f"  init / pytrec_eval read      {init_s / pytrec_s:6.2f}x    init / ir_measures read      {init_s / irm_s:6.2f}x"
    )
    print(
        f"  validate / pytrec_eval read  {validate_s / pytrec_s:6.2f}x    validate / ir_measures read  {validate_s / irm_s:6.2f}x"
    )
    print(
        f"  runs only: load_run x2 {ours_runs_s * 1000:.1f} ms; / pytrec_eval parse_run {ours_runs_s / pytrec_runs_s:.2f}x, "
        f"/ ir_measures read_trec_run {ours_runs_s / irm_runs_s:.2f}x"
    )
    big = args.documents * args.scale
    print(
        f"  init at {big:,} documents: {big_init_s * 1000:.1f} ms = {big_init_s / init_s:.2f}x the time for "
        f"{args.scale}x the documents ({init_s / args.documents * 1e6:.1f} vs {big_init_s / big * 1e6:.1f} us per document)"
    )


if __name__ == "__main__":
    main()
