"""A 2,000-query protocol with real-looking IDs, for snapshots and Pilot tests at scale.

The screens must fit 80x24 with this much data (issue 14): 2,000 query rows, about 7% of the
queries with no relevant document and about 5% missing from each run (so the ID lists the footer
once printed in full run to hundreds), long ``need`` texts and multi-sentence documents. Seeded,
so every machine draws the same picture. Built on ``benchmarks.synth`` (the one generator).

    write_big_protocol(tmp_path / "big")               -> protocol dir with qrels and runs/
    write_big_protocol(tmp_path / "big", qrels=False)  -> the same protocol left to judge
    write_big_protocol(tmp_path / "mid", queries=500)  -> the same kind of protocol, 500 queries
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import tomli_w

from benchmarks.synth import SynthSpec, make_data

QUERIES = 2000
DOCUMENTS = 40
SPEC = SynthSpec(
    queries=QUERIES,
    documents=DOCUMENTS,
    depth=20,
    k=10,
    seed=14,
    runs=("bm25", "dense"),
    missing=0.05,
    no_relevant=0.07,
    layout="realistic",
)
WORDS = (
    "export settings download retry sync theme archive folder account password invoice report "
    "schedule backup restore permission share link quota storage device mobile desktop browser"
).split()


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def write_big_protocol(directory: Path, *, qrels: bool = True, queries: int = QUERIES) -> Path:
    """Write the protocol (and, by default, its exhaustive qrels) into ``directory``; return it.

    Runs: ``bm25``, ``dense`` and ``all_empty`` (an empty list for every query, which must never
    be the default baseline although it sorts first)."""
    spec = replace(SPEC, queries=queries)
    data = make_data(spec)
    rng = random.Random(SPEC.seed)
    directory.mkdir(parents=True)
    (directory / "runs").mkdir()
    documents = {
        doc: {"title": f"Help article {i + 1}", "text": " ".join(_sentence(rng, 9) for _ in range(12))}
        for i, doc in enumerate(data.documents)
    }
    queries = {}
    for i, (query, meta) in enumerate(data.queries.items()):
        entry = {"text": _sentence(rng, 6), "split": meta["split"]}
        if i % 3 == 0:  # every third query has a long need, several lines at 80 columns
            entry["need"] = " ".join(_sentence(rng, 14) for _ in range(6))
        queries[query] = entry
    protocol = {
        "protocol": {
            "name": f"big-{spec.queries}",
            "k": SPEC.k,
            "split": "test",
            "relevance": "1 if the article answers the question or one of its sub-needs; otherwise 0",
        },
        "documents": documents,
        "queries": queries,
    }
    (directory / "protocol.toml").write_text(tomli_w.dumps(protocol), encoding="utf-8")
    if qrels:
        provenance = {"annotators": ["synth"], "note": "drawn by benchmarks.synth, seed 14"}
        (directory / "qrels.toml").write_text(
            tomli_w.dumps({"provenance": provenance, "qrels": data.qrels}), encoding="utf-8"
        )
    for name, rankings in data.runs.items():
        (directory / "runs" / f"{name}.json").write_text(json.dumps(rankings), encoding="utf-8")
    empty = {query: [] for query, meta in queries.items() if meta["split"] == "test"}
    (directory / "runs" / "all_empty.json").write_text(json.dumps(empty), encoding="utf-8")
    return directory
