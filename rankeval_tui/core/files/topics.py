"""TREC topic files (``<top> <num> Number: 301 <title> ... <desc> ... <narr> ... </top>``) as queries.

The title is the query text (what a retriever is given); description and narrative, where the
topic has them, become the information need the judging screen shows. Tags are SGML-like and
unclosed except ``</top>``; a topic without ``<num>`` or ``<title>``, or a number given twice,
is refused with its line.
"""

from __future__ import annotations

import re
from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.protocol import Query
from rankeval_tui.core.files.ids import check_id

TAG = re.compile(r"<(/?top|num|title|desc|narr)>", re.IGNORECASE)
LABELS = {"num": "Number:", "desc": "Description:", "narr": "Narrative:", "title": "Topic:"}


def is_trec_topics(text: str) -> bool:
    return text.lstrip().lower().startswith("<top>")


def read_trec_topics(text: str, path: Path, split: str) -> dict[str, Query]:
    queries: dict[str, Query] = {}
    fields: dict[str, str] = {}
    tag: str | None = None
    start_line = 0
    position = 0

    def finish(end_line: int) -> None:
        where = f"topic at line {start_line}"
        for required in ("num", "title"):
            if not fields.get(required, "").strip():
                raise ContractError(f"TREC topic without <{required}>", file=path, where=where)
        number = fields["num"].strip().removeprefix(LABELS["num"]).strip()
        check_id("query", number, file=path, where=where)
        if number in queries:
            raise ContractError(f"topic {quote(number)} given twice", file=path, where=where)
        title = " ".join(fields["title"].split()).removeprefix(LABELS["title"]).strip()
        parts = [
            " ".join(fields[name].split()).removeprefix(LABELS[name]).strip()
            for name in ("desc", "narr")
            if name in fields
        ]
        need = "\n\n".join(part for part in parts if part) or None
        queries[number] = Query(text=title, split=split, need=need)

    inside = False
    for match in TAG.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        if tag is not None:
            fields[tag] = fields.get(tag, "") + text[position : match.start()]
        name = match.group(1).lower()
        if name == "top":
            if inside:
                raise ContractError("<top> inside a topic: a </top> is missing", file=path, where=f"line {line}")
            inside, fields, tag, start_line = True, {}, None, line
        elif name == "/top":
            if not inside:
                raise ContractError("</top> without <top>", file=path, where=f"line {line}")
            finish(line)
            inside, tag = False, None
        else:
            if not inside:
                raise ContractError(f"<{name}> outside a topic", file=path, where=f"line {line}")
            tag = name
        position = match.end()
    if inside:
        raise ContractError("the last topic has no </top>", file=path, where=f"topic at line {start_line}")
    if not queries:
        raise ContractError("no TREC topics", file=path)
    return queries
