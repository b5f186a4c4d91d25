"""Seeded synthetic protocols for benchmarks and cross-checks.

One generator, so every benchmark (evaluator, loading, scoring, judging) and the cross-check
test measure the same kind of data: Q queries, D documents, exhaustive 0/1 qrels, runs of
depth R, some queries missing from each run and some queries with no relevant document (the two
places where this project's protocol and the field's tools disagree on purpose).

Importable (``from benchmarks.synth import make_data, write_protocol``) and runnable::

    python benchmarks/synth.py OUT_DIR --queries 1000 --documents 1000 --depth 100

``make_data`` builds everything in memory; ``write_protocol`` writes a real protocol directory
(protocol.toml, qrels.toml, runs/NAME.json) plus ``trec/`` (qrels.txt and NAME.run in TREC
format) for the peers. TREC scores strictly decrease with rank, so trec_eval's score order and
our rank order agree and no order warning is expected.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

SPLIT = "test"
LAYOUTS = ("bare", "quoted", "realistic")
"""How qrels.toml and protocol.toml spell their keys: ``bare`` (``[qrels.q0001]``, ``d0001 = 0``, as
tomli-w writes simple IDs), ``quoted`` (the same IDs quoted: ``[qrels."q0001"]``, ``"d0001" = 0``, as
other tools or people write them) and ``realistic`` (``q:1001`` and ``msmarco_v2.1_doc_00_12345``,
which tomli-w itself must quote)."""
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class SynthSpec:
    """What to generate. Fractions are of the queries; everything is drawn from ``seed``."""

    queries: int
    documents: int
    depth: int
    k: int = 10
    seed: int = 0
    runs: tuple[str, ...] = ("A",)
    missing: float = 0.05
    """Fraction of queries absent from each run (scored 0 here; dropped by trec_eval)."""
    no_relevant: float = 0.05
    """Fraction of queries with no relevant document (null and excluded here; 0 for peers)."""
    max_relevant: int = 5
    dev: int = 0
    """Extra queries in split "dev": judged (so in the hash) but outside the scored split."""
    layout: str = "bare"
    """One of ``LAYOUTS``: the IDs (``realistic``) and how the TOML files quote keys."""

    def __post_init__(self) -> None:
        if not 1 <= self.depth <= self.documents:
            raise ValueError("depth must be between 1 and the number of documents")
        if self.queries < 1 or self.k < 1:
            raise ValueError("queries and k must be positive")
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}")


@dataclass
class SynthData:
    """A generated protocol in memory, in the shapes the project's files hold."""

    spec: SynthSpec
    documents: dict[str, str]
    queries: dict[str, dict[str, str]]
    qrels: dict[str, dict[str, int]]
    runs: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    @property
    def selected(self) -> list[str]:
        return [q for q, meta in self.queries.items() if meta["split"] == SPLIT]


def ids(prefix: str, count: int) -> list[str]:
    width = len(str(count))
    return [f"{prefix}{i:0{width}d}" for i in range(1, count + 1)]


def realistic_ids(spec: SynthSpec) -> tuple[list[str], list[str]]:
    """Document and query IDs as real collections spell them (MS MARCO v2.1 segments, ``q:`` IDs)."""
    docs = [f"msmarco_v2.1_doc_{i // 100_000:02d}_{i % 100_000:05d}" for i in range(12_345, 12_345 + spec.documents)]
    return docs, [f"q:{i}" for i in range(1001, 1001 + spec.queries)]


def make_data(spec: SynthSpec) -> SynthData:
    """Everything in memory, deterministic for a given spec (the layout changes IDs, not draws)."""
    rng = random.Random(spec.seed)
    docs, test = (
        realistic_ids(spec) if spec.layout == "realistic" else (ids("d", spec.documents), ids("q", spec.queries))
    )
    dev = [f"dev{i}" for i in range(1, spec.dev + 1)]
    queries = {q: {"text": f"synthetic query {q}", "split": SPLIT} for q in test}
    queries.update({q: {"text": f"synthetic query {q}", "split": "dev"} for q in dev})
    qrels: dict[str, dict[str, int]] = {}
    relevant: dict[str, list[str]] = {}
    for q in queries:
        count = 0 if rng.random() < spec.no_relevant else rng.randint(1, min(spec.max_relevant, spec.documents))
        chosen = rng.sample(docs, count)
        relevant[q] = chosen
        row = dict.fromkeys(docs, 0)
        for d in chosen:
            row[d] = 1
        qrels[q] = row
    data = SynthData(spec, {d: f"synthetic document {d}" for d in docs}, queries, qrels)
    window = min(spec.depth, 2 * spec.k)
    for name in spec.runs:
        rankings: dict[str, list[str]] = {}
        for q in test:
            if rng.random() < spec.missing:
                continue
            ranking = rng.sample(docs, spec.depth)
            present = set(ranking)
            protected: set[int] = set()
            for d in relevant[q]:
                # Relevant documents land early often enough that hits and RR are not all 0.
                if d in present or rng.random() < 0.4:
                    continue
                slot = rng.randrange(window) if rng.random() < 0.6 else rng.randrange(spec.depth)
                if slot in protected:
                    continue
                present.discard(ranking[slot])
                ranking[slot] = d
                present.add(d)
                protected.add(slot)
            rankings[q] = ranking
        data.runs[name] = rankings
    return data


def toml_key(key: str, quote_all: bool = False) -> str:
    """A key as tomli-w writes it (bare when it can be), or always quoted (``quote_all``).
    The synthetic IDs contain no character a basic string would have to escape."""
    return key if _BARE_KEY.fullmatch(key) and not quote_all else f'"{key}"'


def qrels_toml(qrels: dict[str, dict[str, int]], quote_all: bool = False) -> str:
    """The text tomli-w writes for ``{"qrels": qrels}`` (checked in the cross-check test), or the
    same with every key quoted, built directly because tomli-w takes minutes on millions of pairs."""
    parts = []
    for q, row in qrels.items():
        parts.append(
            f"[qrels.{toml_key(q, quote_all)}]\n" + "".join(f"{toml_key(d, quote_all)} = {v}\n" for d, v in row.items())
        )
    return "\n".join(parts)


def protocol_toml(data: SynthData) -> str:
    s = data.spec
    quote_all = s.layout == "quoted"
    lines = [
        "[protocol]",
        f'name = "synth-q{s.queries}-d{s.documents}-r{s.depth}-s{s.seed}"',
        f"k = {s.k}",
        f'split = "{SPLIT}"',
        'relevance = "synthetic: 1 if drawn relevant"',
        "",
    ]
    for d, text in data.documents.items():
        lines += [f"[documents.{toml_key(d, quote_all)}]", f'text = "{text}"', ""]
    for q, meta in data.queries.items():
        lines += [f"[queries.{toml_key(q, quote_all)}]", f'text = "{meta["text"]}"', f'split = "{meta["split"]}"', ""]
    return "\n".join(lines)


def trec_run(rankings: dict[str, list[str]], tag: str) -> str:
    """``qid Q0 docid rank score tag`` with strictly decreasing scores (rank order = score order)."""
    return "".join(
        f"{q} Q0 {d} {rank} {1000 - rank} {tag}\n"
        for q, ranking in rankings.items()
        for rank, d in enumerate(ranking, 1)
    )


def trec_qrels(qrels: dict[str, dict[str, int]]) -> str:
    """Every judged pair, zeros included: the peers see the same exhaustive judgments."""
    return "".join(f"{q} 0 {d} {v}\n" for q, row in qrels.items() for d, v in row.items())


@dataclass(frozen=True)
class SynthPaths:
    directory: Path
    qrels_toml: Path
    json_runs: dict[str, Path]
    trec_qrels: Path
    trec_runs: dict[str, Path]


def write_protocol(directory: str | Path, data: SynthData) -> SynthPaths:
    """A real protocol directory the CLI can score, plus TREC copies for the peers."""
    directory = Path(directory)
    (directory / "runs").mkdir(parents=True, exist_ok=True)
    (directory / "trec").mkdir(exist_ok=True)
    (directory / "protocol.toml").write_text(protocol_toml(data), encoding="utf-8")
    (directory / "qrels.toml").write_text(qrels_toml(data.qrels, data.spec.layout == "quoted"), encoding="utf-8")
    (directory / "trec" / "qrels.txt").write_text(trec_qrels(data.qrels), encoding="utf-8")
    json_runs, trec_runs = {}, {}
    for name, rankings in data.runs.items():
        json_runs[name] = directory / "runs" / f"{name}.json"
        json_runs[name].write_text(json.dumps(rankings, separators=(",", ":")), encoding="utf-8")
        trec_runs[name] = directory / "trec" / f"{name}.run"
        trec_runs[name].write_text(trec_run(rankings, name), encoding="utf-8")
    return SynthPaths(directory, directory / "qrels.toml", json_runs, directory / "trec" / "qrels.txt", trec_runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", default="A", help="comma-separated run names")
    parser.add_argument("--layout", choices=LAYOUTS, default="bare")
    args = parser.parse_args()
    spec = SynthSpec(
        args.queries,
        args.documents,
        args.depth,
        k=args.k,
        seed=args.seed,
        runs=tuple(args.runs.split(",")),
        layout=args.layout,
    )
    paths = write_protocol(args.out, make_data(spec))
    print(paths.directory)


if __name__ == "__main__":
    main()
