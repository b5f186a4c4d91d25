"""Pairs a person is asked to judge, against the pairs that can change a score (issue 29).

    python benchmarks/bench_pools.py                       # 2,000 documents, 100 queries, two 100-deep runs
    python benchmarks/bench_pools.py --documents 500 --queries 20 --depths 10 20

On generated files shaped like users' data (``benchmarks/bench_init.make_files``: a BEIR corpus
with ``msmarco_v2.1_doc_00_N`` IDs, ``q:1001`` queries, two TREC runs, labels for bm25's top 10),
``init`` is planned in memory (nothing written) for each way of making a protocol, and its pairs
to judge (the holes ``judge`` asks) are counted against:

- **can change a score**: the union over the runs of each query's top k, minus the pairs already
  labelled (a pair below every top k changes no metric at k except through Recall's denominator);
- a **per-query top-D pool** of the same runs (what TREC judges), for each depth D.

A ratio of 1.0 means every pair asked can change a score. The pooled kind at D = k asks exactly
those pairs; the exhaustive kind asks every query x every document (or x the union of the pools).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_init import make_files  # noqa: E402
from rankeval_tui.core.files.importers import read_labels  # noqa: E402
from rankeval_tui.core.files.pooled_init import plan  # noqa: E402
from rankeval_tui.core.files.protocol_init import InitRequest  # noqa: E402
from rankeval_tui.core.files.runs import load_run  # noqa: E402


def top_pairs(runs: list, depth: int) -> set[tuple[str, str]]:
    return {(q, d) for run in runs for q, ranking in run.rankings.items() for d in ranking[:depth]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--depth", type=int, default=100, help="run depth")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--depths", type=int, nargs="+", default=[10, 20, 50], help="pool depths D")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        files = make_files(Path(tmp), args.documents, args.queries, args.depth)
        runs = [load_run(files[name]) for name in ("bm25.trec", "dense.trec")]
        labelled = {(q, d) for q, row in read_labels(files["qrels.trec"], None, None).labels.items() for d in row}
        useful = len(top_pairs(runs, args.k) - labelled)
        base = {
            "directory": Path(tmp) / "never-written",
            "queries": files["queries.tsv"],
            "k": args.k,
            "qrels": files["qrels.trec"],
            "runs": [(None, files["bm25.trec"]), (None, files["dense.trec"])],
        }
        rows = [
            ("exhaustive: every query x every document", None, plan(InitRequest(corpus=files["corpus.jsonl"], **base)))
        ]
        for depth in args.depths:
            for union in (True, False):
                request = InitRequest(corpus=files["corpus.jsonl"], pool_depth=depth, union_pool=union, **base)
                kind = (
                    f"--union-pool-depth {depth} (exhaustive over the union)"
                    if union
                    else f"--pool-depth {depth} (pooled)"
                )
                rows.append((kind, depth, plan(request)))
        print(
            f"{args.queries} queries, {args.documents} documents, two {args.depth}-deep runs, k {args.k}, "
            f"{len(labelled)} labels given"
        )
        print(f"pairs that can change a score (union of the runs' top {args.k} per query, not yet labelled): {useful}")
        for depth in args.depths:
            print(f"per-query top-{depth} pool of the runs, not yet labelled: {len(top_pairs(runs, depth) - labelled)}")
        print()
        pool_size = {depth: len(top_pairs(runs, depth) - labelled) for depth in args.depths}
        width = max(len(name) for name, _, _ in rows)
        print(
            f"{'init (judge asks the same pairs)':<{width}}  {'pairs asked':>11}  {'/ can change a score':>20}  {'/ top-D pool':>12}"
        )
        for name, depth, planned in rows:
            asked = planned.hole_count
            per_pool = "" if depth is None else f"{asked / pool_size[depth]:.1f}x"
            print(f"{name:<{width}}  {asked:>11}  {asked / useful:>19.1f}x  {per_pool:>12}".rstrip())


if __name__ == "__main__":
    main()
