"""Judgments to a decided verdict: ``judge --decide`` order against today's top-k order, on real
collections, and the cost of a key press at 1,000 unjudged pairs. Prints numbers, asserts nothing.

Collections (raw, SMART-like, fetched from public GitHub repositories; see docs/benchmarks.md):
CACM (``cacm.all``, ``query.text``, ``qrels.text``) and Cystic Fibrosis (``cf74``..``cf79``,
``cfquery``: a document is relevant when any of the four judges scored it above 0). Each is
converted here, so this script depends on no other branch's test data.

Runs: BM25 from rank-bm25 (``pip install rank-bm25``) with two parameter settings, BM25+ and
TF-IDF cosine (scikit-learn), over lower-cased alphanumeric tokens without English stop words.

The replay, for every ordered pair (baseline A, new run B) and seed: the seed samples
``--queries`` queries with a relevant document; the pools are A's top k, judged with the true
labels; B's top-k pairs outside them are the gap, added as holes (as ``grow --gap`` does) with
their labels hidden. The true labels are then revealed one by one in each order:

- decide: ``DecideQueue`` (``judge --decide A B``), recomputed after each label;
- top-k: today's ``--holes-first top-k`` order (``hole_order.top_k_pairs``): queries in protocol
  order, best rank first;
- random: a seeded shuffle of the holes, for reference.

Counted: labels revealed until the mean change of every metric (Recall@k and RR@k) is decided
(better, worse or no change for every labelling of the remaining holes), the same exact bounds
for every order. Reported: the median over run pairs and seeds, and the gap's size.

Key press: a protocol whose gap has about 1,000 holes (CF, every query, deeper k for B); per key,
one label set, ``next_hole`` (recompute and choose) and ``status`` (the status line): CPU time
(user+system, ``time.process_time``; no child processes) and wall time, median, p90 and max.

    /work/venv/bin/python benchmarks/bench_decide.py [--collections /work/collections] [--seeds 5]
        [--queries 30] [--k 10] [--keys 200]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rankeval_tui.core.annotation.decide_order import DecideQueue
from rankeval_tui.core.annotation.hole_order import top_k_pairs
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId, resolve_metrics
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, Query

Collection = tuple[dict[str, str], dict[str, str], dict[str, set[str]]]
"""documents (id -> text), queries (id -> text), relevant documents per query."""


# ---------------------------------------------------------------- converters


def smart_records(text: str) -> list[dict[str, str]]:
    """``.I n`` records with ``.X`` fields (SMART format) as {field letter: text, "I": id}."""
    records: list[dict[str, str]] = []
    field = None
    for line in text.splitlines():
        if line.startswith(".I "):
            records.append({"I": line[3:].strip()})
            field = None
        elif re.fullmatch(r"\.[A-Z]\s*", line):
            field = line[1]
            records[-1].setdefault(field, "")
        elif field is not None and records:
            records[-1][field] += line + "\n"
    return records


def cacm(directory: Path) -> Collection:
    docs = {
        r["I"]: r.get("T", "") + " " + r.get("W", "")
        for r in smart_records((directory / "cacm.all").read_text(errors="replace"))
    }
    queries = {r["I"]: r.get("W", "") for r in smart_records((directory / "query.text").read_text(errors="replace"))}
    relevant: dict[str, set[str]] = {}
    for line in (directory / "qrels.text").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2:
            relevant.setdefault(str(int(parts[0])), set()).add(str(int(parts[1])))
    return docs, queries, relevant


def tagged_records(text: str) -> list[dict[str, str]]:
    """Records of two-letter tags (``PN``, ``RN``, ``TI``, ...), continuation lines indented."""
    records: list[dict[str, str]] = []
    current: dict[str, str] = {}
    tag = None
    for line in text.splitlines():
        if not line.strip():
            continue
        match = re.match(r"^([A-Z]{2}) (.*)$", line)
        if match:
            tag = match.group(1)
            if tag in ("PN", "QN") and current:
                records.append(current)
                current = {}
            current[tag] = current.get(tag, "") + match.group(2) + "\n"
        elif tag is not None:
            current[tag] = current.get(tag, "") + line + "\n"
    if current:
        records.append(current)
    return records


def cystic_fibrosis(directory: Path) -> Collection:
    docs = {}
    for name in ("cf74", "cf75", "cf76", "cf77", "cf78", "cf79"):
        for record in tagged_records((directory / name).read_text(errors="replace")):
            if "RN" in record:
                text = " ".join(record.get(tag, "") for tag in ("TI", "MJ", "MN", "AB", "EX"))
                docs[str(int(record["RN"].split()[0]))] = text
    queries, relevant = {}, {}
    for record in tagged_records((directory / "cfquery").read_text(errors="replace")):
        query = str(int(record["QN"].split()[0]))
        queries[query] = record.get("QU", "")
        scores = record.get("RD", "").split()
        relevant[query] = {str(int(doc)) for doc, score in zip(scores[::2], scores[1::2]) if score.strip("0")}
    return docs, queries, relevant


# ---------------------------------------------------------------- runs

STOP: frozenset[str] = frozenset()
METRICS: tuple[MetricId, ...] = PRIMARY


def tokens(text: str) -> list[str]:
    return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOP]


def make_runs(collection: Collection, depth: int) -> list[Run]:
    from rank_bm25 import BM25Okapi, BM25Plus
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import linear_kernel

    docs, queries, relevant = collection
    ids = list(docs)
    corpus = [tokens(docs[d]) for d in ids]
    scorers: dict[str, Callable[[list[str]], Sequence[float]]] = {
        "bm25": BM25Okapi(corpus, k1=1.2, b=0.75).get_scores,
        "bm25-flat": BM25Okapi(corpus, k1=0.6, b=0.3).get_scores,
        "bm25plus": BM25Plus(corpus).get_scores,
    }
    vectorizer = TfidfVectorizer(tokenizer=tokens, lowercase=False, token_pattern=None, sublinear_tf=True)
    matrix = vectorizer.fit_transform(docs[d] for d in ids)
    scorers["tfidf"] = lambda query: linear_kernel(vectorizer.transform([" ".join(query)]), matrix)[0]
    runs = []
    for name, scorer in scorers.items():
        rankings = {}
        for query in (q for q in queries if relevant.get(q)):
            scores = scorer(tokens(queries[query]))
            order = sorted(range(len(ids)), key=lambda i: (-scores[i], ids[i]))[:depth]
            rankings[query] = [ids[i] for i in order]
        runs.append(Run(name, rankings))
    return runs


# ---------------------------------------------------------------- the replay


def grown_protocol(
    queries: Sequence[str], baseline: Run, candidate: Run, k: int, relevant: dict[str, set[str]]
) -> tuple[ProtocolDefinition, dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """Pools: the baseline's top k, judged; then the candidate's gap added as holes. Returns the
    definition, the labels known, and the true labels of the holes."""
    pools, known, hidden = {}, {}, {}
    for query in queries:
        pool = list(baseline.rankings[query][:k])
        gap = [d for d in candidate.rankings[query][:k] if d not in pool]
        pools[query] = tuple(pool + gap)
        known[query] = {d: int(d in relevant[query]) for d in pool}
        hidden[query] = {d: int(d in relevant[query]) for d in gap}
    definition = ProtocolDefinition(
        name="bench",
        k=k,
        split="test",
        relevance="r",
        documents={},
        queries={q: Query(text=None, split="test") for q in queries},
        pools=pools,
    )
    return definition, known, hidden


def to_decision(
    definition: ProtocolDefinition,
    baseline: Run,
    candidate: Run,
    known: dict[str, dict[str, int]],
    hidden: dict[str, dict[str, int]],
    order: str,
    seed: int,
) -> int:
    labels = {q: dict(row) for q, row in known.items()}
    queue = DecideQueue(definition, baseline, candidate, labels, METRICS)
    holes = [(q, d) for q, row in hidden.items() for d in row]
    if order == "top-k":
        sequence = [p for p in top_k_pairs(definition, [candidate.rankings], definition.k) if p[1] in hidden[p[0]]]
    elif order == "random":
        sequence = holes[:]
        random.Random(seed).shuffle(sequence)
    revealed = 0
    while True:
        pair = queue.next_hole(labels) if order == "decide" else None
        queue.sync(labels)
        if queue.decided_after is not None:
            return revealed
        if order != "decide":
            pair = sequence[revealed]
        assert pair is not None
        labels[pair[0]][pair[1]] = hidden[pair[0]][pair[1]]
        revealed += 1


def replay(name: str, collection: Collection, args: argparse.Namespace) -> None:
    runs = make_runs(collection, args.k)
    with_relevant = sorted((q for q in collection[1] if collection[2].get(q)), key=int)
    print(f"\n{name}: {len(collection[0])} documents, {len(with_relevant)} queries with a relevant document")
    orders = ("decide", "top-k", "random")
    results: dict[str, list[int]] = {o: [] for o in orders}
    gaps: list[int] = []
    for seed in range(args.seeds):
        sample = sorted(random.Random(seed).sample(with_relevant, min(args.queries, len(with_relevant))), key=int)
        for baseline in runs:
            for candidate in runs:
                if baseline is candidate:
                    continue
                definition, known, hidden = grown_protocol(sample, baseline, candidate, args.k, collection[2])
                gaps.append(sum(map(len, hidden.values())))
                counts = {o: to_decision(definition, baseline, candidate, known, hidden, o, seed) for o in orders}
                for o in orders:
                    results[o].append(counts[o])
                print(
                    f"  seed {seed} {candidate.name:>9} vs {baseline.name:<9} gap {gaps[-1]:4d}  "
                    + "  ".join(f"{o} {counts[o]:4d}" for o in orders)
                )
    print(
        f"{name} summary over {len(gaps)} cases (run pairs x seeds), k {args.k}, {args.queries} queries each, "
        f"metrics {args.metrics}:"
    )
    print(f"  gap (unjudged top-{args.k} pairs): median {statistics.median(gaps)}")
    for o in orders:
        fraction = statistics.median(c / g for c, g in zip(results[o], gaps) if g)
        print(
            f"  {o:>6}: judgments to a decided verdict: median {statistics.median(results[o])}, "
            f"mean {statistics.fmean(results[o]):.1f}; median share of the gap {fraction:.2f}"
        )
    wins = sum(d < t for d, t in zip(results["decide"], results["top-k"]))
    ties = sum(d == t for d, t in zip(results["decide"], results["top-k"]))
    print(f"  decide fewer than top-k in {wins} cases, as many in {ties}, more in {len(gaps) - wins - ties}")


def key_press(collection: Collection, args: argparse.Namespace) -> None:
    """About 1,000 holes: baseline pools at k 10, the candidate's gap at a deeper k."""
    runs = make_runs(collection, 60)
    baseline, candidate = runs[1], runs[3]  # bm25-flat and tfidf: the most different top k
    queries = sorted((q for q in collection[1] if collection[2].get(q)), key=int)
    for k in range(15, 61, 5):
        definition, known, hidden = grown_protocol(queries, baseline, candidate, k, collection[2])
        if sum(map(len, hidden.values())) >= 1000:
            break
    holes = sum(map(len, hidden.values()))
    labels = {q: dict(row) for q, row in known.items()}
    cpu, wall = time.process_time(), time.perf_counter()
    queue = DecideQueue(definition, baseline, candidate, labels)
    pair = queue.next_hole(labels)
    print(
        f"\nkey press: {holes} unjudged pairs in {len(queries)} queries, k {k}: first order "
        f"{time.process_time() - cpu:.3f} s CPU, {time.perf_counter() - wall:.3f} s wall"
    )
    cpus, walls = [], []
    for _ in range(min(args.keys, holes - 1)):
        assert pair is not None
        cpu, wall = time.process_time(), time.perf_counter()
        labels[pair[0]][pair[1]] = hidden[pair[0]][pair[1]]
        pair = queue.next_hole(labels)
        queue.status(labels)
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    for name, values in (("CPU", cpus), ("wall", walls)):
        ordered = sorted(values)
        print(
            f"  per key ({len(values)} keys) {name}: median {statistics.median(values) * 1000:.1f} ms, "
            f"p90 {ordered[int(0.9 * len(ordered))] * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms"
        )


def main() -> None:
    global STOP, METRICS
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    STOP = frozenset(ENGLISH_STOP_WORDS)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--collections", type=Path, default=Path("/work/collections"))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--only", choices=("replay", "keys"), default=None)
    parser.add_argument("--metrics", default="R,RR", help="the metrics whose mean change must be decided")
    args = parser.parse_args()
    METRICS = tuple(resolve_metrics(args.metrics.split(","), args.k))
    collections = {
        "CACM": cacm(args.collections / "cacm"),
        "CF": cystic_fibrosis(args.collections / "cf"),
    }
    for name, collection in collections.items():
        docs, queries, relevant = collection
        print(
            f"{name}: {len(docs)} documents, {len(queries)} queries, {sum(map(len, relevant.values()))} relevant pairs"
        )
    if args.only != "keys":
        for name, collection in collections.items():
            replay(name, collection, args)
    if args.only != "replay":
        key_press(collections["CF"], args)


if __name__ == "__main__":
    main()
