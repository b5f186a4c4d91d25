"""The seed fixture as core objects, read from the repo's protocol files (not from the seed's code)."""

from __future__ import annotations

import copy
from pathlib import Path

from rankeval_tui.core.evaluation.evaluate import Report, Run, evaluate
from rankeval_tui.core.evaluation.metrics import PRIMARY
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition, Query
from rankeval_tui.core.files import load_chunk_map, load_protocol, load_run

SEED_DIR = Path(__file__).resolve().parents[2] / "protocols" / "help-docs-zh"
PROTOCOL = load_protocol(SEED_DIR)
DEFINITION = PROTOCOL.definition
QRELS = {q: dict(row) for q, row in PROTOCOL.qrels.items()}
RUNS = {
    name: dict(load_run(SEED_DIR / "runs" / f"{name}.json").rankings)
    for name in ("fixture_A", "fixture_B", "all_empty")
}
CHUNK_TO_DOC = load_chunk_map(SEED_DIR / "chunks" / "chunk_map.toml")
CHUNK_RUN = dict(load_run(SEED_DIR / "chunks" / "chunk_run.json").rankings)
CORPUS = dict(DEFINITION.documents)
QUERIES = {q: meta.canonical() for q, meta in DEFINITION.queries.items()}


def protocol_with(qrels=None, queries=None, k=None, split=None, documents=None) -> Protocol:
    """The seed protocol with parts replaced; construction validates, as loading would."""
    definition = ProtocolDefinition(
        name=DEFINITION.name,
        k=DEFINITION.k if k is None else k,
        split=DEFINITION.split if split is None else split,
        relevance=DEFINITION.relevance,
        documents=CORPUS if documents is None else documents,
        queries=DEFINITION.queries if queries is None else {q: Query(**m) for q, m in queries.items()},
    )
    return Protocol(definition, copy.deepcopy(QRELS) if qrels is None else qrels)


def score(run=None, metrics=PRIMARY, **kw) -> Report:
    """The seed's ``score`` helper: fixture_A unless a run is given; ``metrics`` as ``evaluate``'s."""
    return evaluate(protocol_with(**kw), Run("run", RUNS["fixture_A"] if run is None else run), metrics)
