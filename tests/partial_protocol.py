"""A small help-docs protocol with realistic IDs and *imported partial labels*, for the tests of
holes, hole ordering, imported marks and growth.

Three documents, three queries (9 pairs); 4 labels imported from a TREC file, 5 holes.
"""

from __future__ import annotations

import json
from pathlib import Path

import tomli_w

DOCUMENTS = {
    "docs/export.md": "Export a report: open Reports, choose Export, pick CSV or PDF.",
    "docs/login.md": "Sign in with your work e-mail; use SSO if your company set it up.",
    "msmarco_v2.1_doc_00_12345": "Billing FAQ: invoices are issued on the first day of each month.",
}
QUERIES = {
    "q:1001": {"text": "how do I export a report as csv", "split": "test"},
    "q:1002": {"text": "sso sign in", "split": "test"},
    "q:1003": {"text": "when is the invoice sent", "split": "test"},
}
IMPORTED = {
    "q:1001": {"docs/export.md": 1, "docs/login.md": 0},
    "q:1002": {"docs/login.md": 1},
    "q:1003": {"msmarco_v2.1_doc_00_12345": 1},
}
HOLES = {
    ("q:1001", "msmarco_v2.1_doc_00_12345"),
    ("q:1002", "docs/export.md"),
    ("q:1002", "msmarco_v2.1_doc_00_12345"),
    ("q:1003", "docs/export.md"),
    ("q:1003", "docs/login.md"),
}
TRUTH = {  # the labels an annotator gives the holes
    ("q:1001", "msmarco_v2.1_doc_00_12345"): 0,
    ("q:1002", "docs/export.md"): 0,
    ("q:1002", "msmarco_v2.1_doc_00_12345"): 0,
    ("q:1003", "docs/export.md"): 0,
    ("q:1003", "docs/login.md"): 0,
}
IMPORT_SOURCE = "imports/help-qrels.trec"
# A run whose top 2 holds two holes: q:1002's billing doc (rank 1) and q:1003's login doc (rank 2).
RUN = {
    "q:1001": ["docs/export.md", "docs/login.md"],
    "q:1002": ["msmarco_v2.1_doc_00_12345", "docs/login.md", "docs/export.md"],
    "q:1003": ["msmarco_v2.1_doc_00_12345", "docs/login.md"],
}


def write_partial_protocol(directory: Path, *, labels: dict | None = None, with_run: bool = True) -> Path:
    directory.mkdir(parents=True)
    protocol = {
        "protocol": {"name": "help-docs", "k": 2, "split": "test", "relevance": "1 if the page answers the query"},
        "documents": {doc: {"text": text} for doc, text in DOCUMENTS.items()},
        "queries": QUERIES,
    }
    (directory / "protocol.toml").write_text("# help docs, imported labels\n" + tomli_w.dumps(protocol))
    qrels = {
        "provenance": {"imported_from": IMPORT_SOURCE, "imported_labels": 4},
        "qrels": IMPORTED if labels is None else labels,
    }
    (directory / "qrels.toml").write_text(tomli_w.dumps(qrels))
    if with_run:
        (directory / "runs").mkdir()
        (directory / "runs" / "bm25.json").write_text(json.dumps(RUN))
    return directory
