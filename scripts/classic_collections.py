"""Classic test collections as TREC files: qrels, BM25 runs and trec_eval's expected numbers.

Reads the raw collections (fetched from public GitHub repositories: CACM from
atcherepanov/Stemming-Algorithm, Cystic Fibrosis from rolandr36/ri_project) and writes, per
collection, into ``OUT/<name>/``. (CISI is not among them: the CISI.REL of the copy at hand,
from h1den96/Information_Retrieval_Project, is not CISI's relevance file but 60,605 lines
``qid docid 0|1|2 score``, about 1,000 per query, a ranked list rather than judgments.)

- ``qrels.trec``: ``qid 0 docid rel``, IDs as integers without leading zeros (CACM's qrels say
  ``01`` where its queries say ``1``). CACM lists the relevant documents only (rel 1);
  Cystic Fibrosis's four judges each score a document 0-2 (``139 1222``: 1, 2, 2, 2), and its
  grade is their sum, 0-8 (a listed document always has a sum of at least 1).
- ``bm25.run``: a TREC run, the top 100 of rank_bm25's ``BM25Okapi`` (default k1 1.5, b 0.75)
  per query over lower-cased alphanumeric tokens of the title and text (CF: title, abstract or
  extract, and the subject headings), scores printed to 4 decimals, ranked by score then document
  ID ascending: ties in the printed score are ranked otherwise than trec_eval, which orders them
  by document ID descending (protocols of these runs declare ``tie_order = "score"``).
- with ``--trec-eval PATH``: ``trec_eval.txt``, the output of
  ``trec_eval -q -m P.5,10,20,100 -m recall.5,10,20,100 -m success.5,10,20,100
  -m map_cut.5,10,20,100 -m ndcg_cut.5,10,20,100 -m recip_rank qrels.trec bm25.run``.

Usage: python scripts/classic_collections.py /work/collections tests/data/collections
[--trec-eval /work/tools/trec_eval/trec_eval]. Needs ``pip install rank-bm25``; the files it
writes are committed, so tests and CI never need the package or the raw collections.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

CUTOFFS = "5,10,20,100"
TREC_EVAL_MEASURES = (
    f"-m P.{CUTOFFS} -m recall.{CUTOFFS} -m success.{CUTOFFS} -m map_cut.{CUTOFFS} -m ndcg_cut.{CUTOFFS} -m recip_rank"
).split()
DEPTH = 100
TOKEN = re.compile(r"[a-z0-9]+")


def smart_records(text: str) -> Iterator[tuple[str, dict[str, str]]]:
    """SMART files (``.I id`` then ``.X`` fields): each record's ID and its fields' text."""
    for block in re.split(r"^\.I\s+", text, flags=re.M)[1:]:
        head, _, body = block.partition("\n")
        fields: dict[str, str] = {}
        pieces = re.split(r"^\.([A-Z])[ \t]*\n?", body, flags=re.M)
        for key, value in zip(pieces[1::2], pieces[2::2]):
            fields[key] = fields.get(key, "") + " " + value
        yield str(int(head.strip())), fields


def cacm(root: Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    docs = {i: f.get("T", "") + " " + f.get("W", "") for i, f in smart_records((root / "cacm.all").read_text())}
    queries = {i: f.get("W", "") for i, f in smart_records((root / "query.text").read_text())}
    qrels: dict[str, dict[str, int]] = {}
    for line in (root / "qrels.text").read_text().splitlines():
        if line.strip():
            query, doc = line.split()[:2]
            qrels.setdefault(str(int(query)), {})[str(int(doc))] = 1
    return docs, queries, qrels


def tagged_fields(text: str) -> Iterator[dict[str, str]]:
    """CF's records: two-letter tags at the line start, continued by indented lines; a blank
    line between records."""
    record: dict[str, str] = {}
    tag = ""
    for line in text.splitlines():
        if not line.strip():
            continue
        if line[:2].strip() and line[2:3] == " " and line[:2].isupper():
            tag = line[:2]
            if tag in ("PN", "QN") and record:
                yield record
                record = {}
            record[tag] = record.get(tag, "") + " " + line[3:]
        else:
            record[tag] = record.get(tag, "") + " " + line
    if record:
        yield record


def cystic_fibrosis(root: Path) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    docs: dict[str, str] = {}
    for name in ("cf74", "cf75", "cf76", "cf77", "cf78", "cf79"):
        for record in tagged_fields((root / name).read_text(errors="replace")):
            if "RN" in record:
                body = " ".join(record.get(tag, "") for tag in ("TI", "AB", "EX", "MJ", "MN"))
                docs[str(int(record["RN"].split()[0]))] = body
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    for record in tagged_fields((root / "cfquery").read_text(errors="replace")):
        query = str(int(record["QN"].split()[0]))
        queries[query] = record.get("QU", "")
        scores = record.get("RD", "").split()
        for doc, judges in zip(scores[::2], scores[1::2]):
            qrels.setdefault(query, {})[str(int(doc))] = sum(map(int, judges))  # four judges, 0-2 each
    return docs, queries, qrels


def bm25_run(docs: dict[str, str], queries: dict[str, str], tag: str) -> str:
    from rank_bm25 import BM25Okapi

    ids = list(docs)
    index = BM25Okapi([TOKEN.findall(docs[doc].lower()) for doc in ids])
    lines = []
    for query, text in queries.items():
        scores = index.get_scores(TOKEN.findall(text.lower()))
        printed = [(f"{score:.4f}", doc) for score, doc in zip(scores, ids)]
        ranked = sorted(printed, key=lambda pair: (-float(pair[0]), int(pair[1])))[:DEPTH]
        lines += [f"{query} Q0 {doc} {rank} {score} {tag}" for rank, (score, doc) in enumerate(ranked, 1)]
    return "\n".join(lines) + "\n"


COLLECTIONS = {"cacm": cacm, "cf": cystic_fibrosis}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("raw", type=Path, help="the raw collections' directory (cacm/, cf/)")
    parser.add_argument("out", type=Path, help="where to write <name>/qrels.trec, bm25.run, trec_eval.txt")
    parser.add_argument("--trec-eval", type=Path, default=None, help="the C trec_eval, for trec_eval.txt")
    args = parser.parse_args()
    for name, read in COLLECTIONS.items():
        docs, queries, qrels = read(args.raw / name)
        target = args.out / name
        target.mkdir(parents=True, exist_ok=True)
        judged = {q: row for q, row in qrels.items() if q in queries}
        (target / "qrels.trec").write_text(
            "".join(f"{q} 0 {d} {rel}\n" for q, row in judged.items() for d, rel in row.items())
        )
        (target / "bm25.run").write_text(bm25_run(docs, {q: queries[q] for q in judged}, "bm25"))
        if args.trec_eval is not None:
            output = subprocess.run(
                [str(args.trec_eval), "-q", *TREC_EVAL_MEASURES, "qrels.trec", "bm25.run"],
                cwd=target,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            (target / "trec_eval.txt").write_text(output)
        print(f"{name}: {len(docs)} documents, {len(judged)} judged queries, {sum(map(len, judged.values()))} pairs")


if __name__ == "__main__":
    main()
