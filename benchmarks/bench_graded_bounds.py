"""Bounds on the change on a graded collection: how many queries graded nDCG's exact enumeration
can bound, what one query costs, and what the binary measures cost beside it. Prints numbers,
asserts nothing.

Cystic Fibrosis (raw, from a public GitHub repository; see benchmarks/bench_decide.py) with its
graded judgments: each grade the sum of the four judges' scores (0-2 each), so 0-8, relevant
from 1 (as tests/data/collections/cf). Runs: bench_decide's four (rank-bm25 at two settings,
BM25+, TF-IDF). For every ordered run pair and seed, ``--queries`` queries with a relevant
document are sampled; the pools are the baseline's top k, judged with the true grades; the
candidate's top-k pairs outside them are unjudged. Per query, ``delta_bounds.query_delta`` is
timed for nDCG@k alone (enumerated over ``candidate_grades``) and for Recall@k and RR@k (the
0/1 families at relevant_from), CPU (user+system of this process, ``time.process_time``) and
wall side by side; a query whose enumeration is over the limit is counted as refused. The
same queries are also counted with every judged grade a candidate (no k-th highest floor), to
show what the floor buys.

    /work/venv/bin/python benchmarks/bench_graded_bounds.py [--collections /work/collections] [--seeds 3]
        [--queries 30] [--k 10]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from benchmarks import bench_decide
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.delta_bounds import (
    MAX_GRADED_ENUMERATED,
    JudgedGrades,
    QueryCase,
    candidate_grades,
    query_delta,
)
from rankeval_tui.core.evaluation.metrics import MetricId

TOP_GRADE, RELEVANT_FROM = 8, 1


def cf_grades(directory: Path) -> dict[str, dict[str, int]]:
    """Per query, each listed document's grade: the sum of the four judges' digits."""
    grades: dict[str, dict[str, int]] = {}
    for record in bench_decide.tagged_records((directory / "cfquery").read_text(errors="replace")):
        query = str(int(record["QN"].split()[0]))
        scores = record.get("RD", "").split()
        grades[query] = {str(int(doc)): sum(map(int, score)) for doc, score in zip(scores[::2], scores[1::2])}
    return grades


def timed(case: QueryCase, k: int, metrics: tuple[MetricId, ...]) -> tuple[float, float]:
    """``query_delta``'s CPU and wall seconds."""
    cpu, wall = time.process_time(), time.perf_counter()
    query_delta(case, k, metrics)
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    bench_decide.STOP = frozenset(ENGLISH_STOP_WORDS)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--collections", type=Path, default=Path("/work/collections"))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    k = args.k
    collection = bench_decide.cystic_fibrosis(args.collections / "cf")
    truth = cf_grades(args.collections / "cf")
    runs = bench_decide.make_runs(collection, k)
    with_relevant = sorted((q for q in collection[1] if collection[2].get(q)), key=int)
    print(f"CF: {len(collection[0])} documents, {len(with_relevant)} queries with a relevant document, grades 0-8")
    bounded = refused = bounded_without_floor = 0
    ndcg_cpu, ndcg_wall, binary_cpu, binary_wall, choices, unjudged = [], [], [], [], [], []
    for seed in range(args.seeds):
        sample = random.Random(seed).sample(with_relevant, min(args.queries, len(with_relevant)))
        for baseline in runs:
            for candidate in runs:
                if baseline is candidate:
                    continue
                for query in sample:
                    top_b, top_c = baseline.rankings[query][:k], candidate.rankings[query][:k]
                    judged = {doc: truth[query].get(doc, 0) for doc in top_b}
                    top = tuple(doc for doc in dict.fromkeys((*top_b, *top_c)) if doc not in judged)
                    gains = {doc: grade for doc, grade in judged.items() if grade}
                    grades = JudgedGrades(gains, TOP_GRADE, RELEVANT_FROM)
                    relevant = frozenset(doc for doc, grade in judged.items() if grade >= RELEVANT_FROM)
                    case = QueryCase(query, top_b, top_c, relevant, top, grades=grades)
                    every_judged = {0, RELEVANT_FROM - 1, RELEVANT_FROM, TOP_GRADE} | set(gains.values())
                    bounded_without_floor += len(every_judged) ** len(top) <= MAX_GRADED_ENUMERATED
                    choices.append(len(candidate_grades(grades, k)))
                    unjudged.append(len(top))
                    cpu, wall = timed(case, k, ("recall", "rr"))
                    binary_cpu.append(cpu)
                    binary_wall.append(wall)
                    try:
                        cpu, wall = timed(case, k, ("ndcg",))
                    except ContractError:
                        refused += 1
                        continue
                    bounded += 1
                    ndcg_cpu.append(cpu)
                    ndcg_wall.append(wall)
    total = bounded + refused
    print(f"{total} query cases (run pairs x seeds x queries), k {k}, limit {MAX_GRADED_ENUMERATED} labellings")
    print(f"  unjudged top-{k} documents per query: median {statistics.median(unjudged)}, max {max(unjudged)}")
    print(f"  candidate grades per unjudged document: median {statistics.median(choices)}, max {max(choices)}")
    print(
        f"  graded nDCG@{k} bounded exactly: {bounded} of {total} ({bounded / total:.0%}); refused {refused}; "
        f"with every judged grade a candidate: {bounded_without_floor} ({bounded_without_floor / total:.0%})"
    )

    def ms(values: list[float]) -> str:
        ordered = sorted(values)
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        return f"median {statistics.median(values) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms, max {max(values) * 1000:.1f} ms"

    print(f"  per query, nDCG@{k} (bounded ones) CPU: {ms(ndcg_cpu)}; wall: {ms(ndcg_wall)}")
    print(f"  per query, Recall@{k} and RR@{k} CPU: {ms(binary_cpu)}; wall: {ms(binary_wall)}")


if __name__ == "__main__":
    main()
