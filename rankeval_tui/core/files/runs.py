"""Run files and chunk maps -> core objects.

JSON runs ``{"q": ["d", ...]}``, TREC runs ``qid Q0 docid rank score tag`` and MS MARCO runs
``qid<TAB>docid<TAB>rank`` (both ordered by the rank column; which of the two a file is, its
first line says), a protocol's ``runs/`` directory (runs by extension, ``RUN_SUFFIXES``), and
chunk maps (``[chunk_to_doc]``). Every loader validates the whole file and raises
``ContractError`` naming the file, the line and the rule.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.files.json_run import distinct_str_rankings, parse_json_run
from rankeval_tui.core.files.lazy_pattern import on_first_use
from rankeval_tui.core.files.protocol_files import RUN_SUFFIXES, RUNS_DIR, check_id
from rankeval_tui.core.files.safe_read import read_input_bytes
from rankeval_tui.core.files.tomlio import read_toml, read_utf8
from rankeval_tui.core.files.trec_run_fast import agrees_with_score_order, read_well_formed_run
from rankeval_tui.core.wording import json_error

SIDECAR_SUFFIX = ".provenance.json"
"""``adapt -o RUN.json`` writes the adapter hash and evidence to ``RUN.json.provenance.json``:
beside the run, never inside it, so the run stays a plain run and the sidecar is no run."""
adapter_hash = on_first_use(r"[0-9a-f]{64}")  # chunk runs only (lazy_pattern)
BASELINE_FILE = "BASELINE"
"""``runs/BASELINE``: the protocol's default baseline, one run name (``core.files.baseline``)."""


def is_run_file(path: Path) -> bool:
    """A run's name and no directory: a link that loops or leads nowhere, a device or a FIFO named
    like a run is one too, so the read names it and why (``score`` and ``validate`` alike), never
    skipped without a word."""
    return path.suffix in RUN_SUFFIXES and not path.name.endswith(SIDECAR_SUFFIX) and not path.is_dir()


def run_files(directory: str | Path) -> list[Path]:
    """The run files of a protocol's ``runs/`` directory, sorted by name."""
    runs = Path(directory) / RUNS_DIR
    if not runs.is_dir():
        return []
    return sorted(p for p in runs.iterdir() if is_run_file(p))


def skipped_run_files(directory: str | Path) -> list[Path]:
    """What ``runs/`` holds besides runs (``notes.txt``, ``README.md``, folders): never scored,
    listed so ``validate`` can say so instead of leaving the user to wonder. ``BASELINE`` is
    no run but no stray file either: it names the default baseline."""
    runs = Path(directory) / RUNS_DIR
    if not runs.is_dir():
        return []
    return sorted(p for p in runs.iterdir() if not is_run_file(p) and p.name != BASELINE_FILE)


def skipped_run_notices(directory: str | Path) -> list[str]:
    """One ``notice:`` line per file of ``runs/`` that is not a run, for ``validate``."""
    suffixes = ", ".join(RUN_SUFFIXES)
    return [
        f"notice: {path}: skipped, not a run ({why_not_a_run(path, suffixes)})" for path in skipped_run_files(directory)
    ]


def why_not_a_run(path: Path, suffixes: str) -> str:
    if path.name.endswith(SIDECAR_SUFFIX):
        return "the provenance of an adapted run"
    return "a directory" if path.is_dir() else f"extension not one of {suffixes}"


def load_run(path: str | Path, name: str | None = None, by_score: bool = False) -> Run:
    """A JSON run (``.json``), else a TREC or MS MARCO run, named by its stem unless given.
    ``by_score``: a TREC run is ordered as trec_eval orders it (``score --score-order``)."""
    path = Path(path)
    name = name or path.stem
    text = read_utf8(path)
    if path.suffix == ".json":
        rankings = parse_json_run(text, path)
        distinct = distinct_str_rankings(rankings)
        return Run(name, rankings, source=path, adapter_sha256=sidecar_hash(path), distinct_str_entries=distinct)
    # The text readers refuse a document listed twice in a query, and their IDs are str: what
    # ``check_run`` would check again per entry, a cost on a long run.
    if run_text_format(text) == "msmarco":
        return Run(name=name, rankings=parse_msmarco_run(text, path), source=path, distinct_str_entries=True)
    read = parse_trec_run(text, path, by_score)
    return Run(name=name, rankings=read[0], source=path, score_order=read[1], distinct_str_entries=True)


def sidecar_hash(run_path: Path) -> str | None:
    """The adapter hash from ``RUN.provenance.json`` beside an adapted run, if there is one."""
    sidecar = run_path.with_name(run_path.name + SIDECAR_SUFFIX)
    if not sidecar.is_file():
        return None
    try:
        data = json.loads(read_utf8(sidecar))
    except json.JSONDecodeError as error:
        raise ContractError(f"invalid JSON: {json_error(error.msg, error.lineno, error.colno)}", file=sidecar) from None
    value = data.get("adapter_sha256") if isinstance(data, dict) else None
    if type(value) is not str or not adapter_hash().fullmatch(value):
        raise ContractError(f"adapter_sha256 must be 64 lowercase hex digits, got {quote(value)}", file=sidecar)
    return value


def run_sha256(data: bytes) -> str:
    """What an adapted run's sidecar records of the run it describes (``run_sha256``)."""
    return hashlib.sha256(data).hexdigest()


def is_adapted_run(run_path: Path) -> bool:
    """Whether ``run_path`` is a run ``adapt`` wrote: its sidecar records the run's own sha256.

    A sidecar alone proves nothing (a planted or copied one would let ``adapt --force`` replace
    a real run): only one written with this very run counts. Anything unreadable is not one."""
    sidecar = run_path.with_name(run_path.name + SIDECAR_SUFFIX)
    try:
        data = json.loads(read_input_bytes(sidecar))
        run = read_input_bytes(run_path)
    except (ContractError, ValueError):
        return False
    return isinstance(data, dict) and data.get("run_sha256") == run_sha256(run)


def check_unique_run_names(runs: Sequence[Run]) -> None:
    """Refuse two runs with one name (a comparison could not tell them apart), naming both files;
    ``score`` and ``validate`` both apply it, so they agree."""
    seen: dict[str, Run] = {}
    for run in runs:
        if run.name in seen:
            raise ContractError(
                f"two runs are named {quote(run.name)} ({seen[run.name].source} and {run.source}); "
                "name them with NAME=PATH or rename one file",
                file=run.source,
            )
        seen[run.name] = run


def run_text_format(text: str) -> str:
    """``msmarco`` when the first non-blank line is three tab-separated fields, else ``trec``
    (whose parser then names any line that is not six fields). Lines are taken one at a time, not
    by splitting the whole text: a 1M-line run was split only to look at its first line."""
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end]
        if line.strip(" \t\r"):
            return "msmarco" if len(line.rstrip("\r").split("\t")) == 3 else "trec"
        start = end + 1
    return "trec"


def entry_line(path: Path, query: str, doc: str) -> int | None:
    """The line of a TREC or MS MARCO run that ranks ``doc`` for ``query`` (error messages only:
    the parsers keep no line numbers, so the file is scanned again when one is needed)."""
    if path.suffix == ".json":
        return None
    text = read_utf8(path)
    column = 1 if run_text_format(text) == "msmarco" else 2
    for number, line in enumerate(text.split("\n"), 1):
        fields = TREC_FIELD_SEPARATOR.split(line.strip(" \t\r"))
        if len(fields) > column and fields[0] == query and fields[column] == doc:
            return number
    return None


TREC_FIELD_SEPARATOR = re.compile(r"[ \t]+")
TREC_INTEGER = re.compile(r"-?[0-9]+")
TREC_INTEGER_DIGITS = 18
"""Ranks and TREC labels have at most 18 digits (they fit trec_eval's C long); more is "out of
range", not "not an integer", and never handed to int(), which refuses more than 4300 digits."""
trec_score = on_first_use(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # the careful reader only


def parse_integer_field(name: str, text: str, *, file: Path | None, where: str) -> int:
    """A TREC integer column (rank, relevance): ASCII digits with an optional minus sign.

    int() alone would accept "1_000", " 3" and "\u0663" (Arabic-Indic 3): coercion, not parsing.
    """
    if not TREC_INTEGER.fullmatch(text):
        raise ContractError(f"{name} must be an integer, got {quote(text)}", file=file, where=where)
    digits = len(text.lstrip("-"))
    if digits > TREC_INTEGER_DIGITS:
        raise ContractError(
            f"{name} is out of range: {digits} digits, at most {TREC_INTEGER_DIGITS}: {quote(text)}",
            file=file,
            where=where,
        )
    return int(text)


def parse_trec_run(
    text: str, path: Path, by_score: bool = False
) -> tuple[dict[str, list[str]], dict[str, tuple[str, ...]]]:
    """``qid Q0 docid rank score tag``, ordered by the rank column (not by score as trec_eval),
    or with ``by_score`` as trec_eval orders it (score descending, then doc ID descending).

    A rank clash or a malformed line names the line. Also returned: trec_eval's order of each
    query whose rank order differs from it (ties in score, usually), so the views can say in one
    line per run how many queries trec_eval would score differently (``core.evaluation.tie_order``).
    """
    fast = read_well_formed_run(text)
    return read_trec_lines(text, path, by_score) if fast is None else in_trec_eval_order(fast, by_score)


def in_trec_eval_order(
    fast: tuple[dict[str, list[str]], dict[str, list[float]]], by_score: bool
) -> tuple[dict[str, list[str]], dict[str, tuple[str, ...]]]:
    """A fast reader's answer (rankings; the scores of the queries whose scores do not strictly
    fall along the ranking) as ``parse_trec_run`` returns it."""
    rankings, unsure = fast
    differing: dict[str, tuple[str, ...]] = {}
    for query, query_scores in unsure.items():  # the others' scores strictly fall: trec_eval's order
        ranking = rankings[query]
        if agrees_with_score_order(ranking, query_scores):
            continue  # ties broken by document ID descending, as trec_eval breaks them
        ordered = [doc for _, doc in sorted(zip(query_scores, ranking), reverse=True)]
        if by_score:
            rankings[query] = ordered
        else:
            differing[query] = tuple(ordered)
    return rankings, differing


def read_trec_lines(text: str, path: Path, by_score: bool) -> tuple[dict[str, list[str]], dict[str, tuple[str, ...]]]:
    """``parse_trec_run`` line by line: the careful reader, which names the first line at fault."""
    entries: dict[str, dict[int, str]] = {}
    lines_of: dict[str, dict[str, int]] = {}
    scores: dict[tuple[str, str], float] = {}
    # Lines end at "\n" only and fields are split on spaces and tabs only: str.splitlines() and
    # str.split() also break on \x0b, \x1c-\x1e, U+2028 ..., which would shift line numbers and
    # silently split an ID in two instead of rejecting it.
    for number, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if not line.strip(" \t"):
            continue
        if "\r" in line:
            raise ContractError(
                "carriage return inside a line (old Mac line endings?): lines must end with \\n or \\r\\n",
                file=path,
                where=f"line {number}",
            )
        fields = TREC_FIELD_SEPARATOR.split(line.strip(" \t"))
        where = f"line {number}"
        if len(fields) != 6:
            raise ContractError(
                f"a TREC run line has 6 fields 'qid Q0 docid rank score tag', got {len(fields)}", file=path, where=where
            )
        query, _, doc, rank_text, score_text, _ = fields
        check_id("query", query, file=path, where=where)
        check_id("document", doc, file=path, where=where)
        # Ordered by score, the rank column is not read, as trec_eval does not read it: a constant
        # one (all 0) is no clash, and a placeholder (``-``) stands.
        rank = None if by_score else parse_integer_field("rank", rank_text, file=path, where=where)
        if not trec_score().fullmatch(score_text):
            raise ContractError(f"score must be a number, got {quote(score_text)}", file=path, where=where)
        score = float(score_text)
        if not math.isfinite(score):
            raise ContractError(f"score must be finite, got {quote(score_text)}", file=path, where=where)
        if rank is not None and rank < 0:
            raise ContractError(f"rank must be >= 0, got {rank}", file=path, where=where)
        place = number if rank is None else rank
        place_at_rank(entries.setdefault(query, {}), lines_of.setdefault(query, {}), query, doc, place, number, path)
        scores[query, doc] = score
    if not entries:
        raise ContractError("empty TREC run: no lines (write a JSON run {} for a run with no queries)", file=path)
    rankings: dict[str, list[str]] = {}
    differing: dict[str, tuple[str, ...]] = {}
    for query, ranks in entries.items():
        rankings[query] = [ranks[r] for r in sorted(ranks)]
        trec_eval = sorted(rankings[query], key=lambda doc: (scores[query, doc], doc), reverse=True)
        if by_score:
            rankings[query] = trec_eval
        elif trec_eval != rankings[query]:
            differing[query] = tuple(trec_eval)
    return rankings, differing


def place_at_rank(
    ranks: dict[int, str], lines: dict[str, int], query: str, doc: str, rank: int, number: int, path: Path
) -> None:
    """Put ``doc`` at ``rank`` of ``query`` (run line ``number``): a rank given twice, or a
    document listed twice, in one query is an error naming the earlier one."""
    where = f"line {number}"
    if rank in ranks:
        raise ContractError(
            f"rank clash: rank {rank} of query {quote(query)} already given to document {quote(ranks[rank])}",
            file=path,
            where=where,
        )
    if doc in lines:
        raise ContractError(
            f"duplicate document ID; deduplicate upstream explicitly: {quote(doc)} already at line {lines[doc]}",
            file=path,
            where=where,
        )
    lines[doc] = number
    ranks[rank] = doc


def tab_fields(line: str, kind: str, names: str, path: Path, where: str) -> list[str]:
    """The tab-separated fields of one line of a ``kind`` file: exactly one per name in ``names``."""
    fields = line.split("\t")
    expected = len(names.split())
    if len(fields) != expected:
        raise ContractError(
            f"{kind} line has {expected} tab-separated fields '{names}', got {len(fields)}", file=path, where=where
        )
    return fields


def parse_msmarco_run(text: str, path: Path) -> dict[str, list[str]]:
    """``qid<TAB>docid<TAB>rank`` (MS MARCO's run format), ordered by rank; rank >= 1, no clash,
    no document twice in a query, exactly three tab-separated fields per line."""
    entries: dict[str, dict[int, str]] = {}
    lines_of: dict[str, dict[str, int]] = {}
    for number, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if not line.strip(" \t"):
            continue
        where = f"line {number}"
        query, doc, rank_text = tab_fields(line, "an MS MARCO run", "qid docid rank", path, where)
        check_id("query", query, file=path, where=where)
        check_id("document", doc, file=path, where=where)
        rank = parse_integer_field("rank", rank_text, file=path, where=where)
        if rank < 1:
            raise ContractError(f"rank must be an integer >= 1, got {rank}", file=path, where=where)
        place_at_rank(entries.setdefault(query, {}), lines_of.setdefault(query, {}), query, doc, rank, number, path)
    return {query: [ranks[r] for r in sorted(ranks)] for query, ranks in entries.items()}


def parse_run_argument(argument: str, protocol_dir: Path | None) -> tuple[str | None, Path]:
    """``NAME=PATH`` or ``PATH``; a relative path not found in the working directory is looked
    up in the protocol directory, so ``--run runs/A.json`` works from anywhere."""
    given, sep, rest = argument.partition("=")
    name: str | None
    if sep and given and "/" not in given and rest:
        name, path = given, Path(rest)
    else:
        name, path = None, Path(argument)
    if not path.is_absolute() and not path.exists() and protocol_dir is not None:
        candidate = protocol_dir / path
        if candidate.exists():
            path = candidate
    return name or None, path


def load_chunk_map(path: str | Path) -> dict[str, str]:
    """``[chunk_to_doc]`` with ``chunk = "doc"`` string pairs, nothing else."""
    path = Path(path)
    data = read_toml(path)
    for key in data:
        if key != "chunk_to_doc":
            raise ContractError(f"unknown top-level table {quote(key)} (known: chunk_to_doc)", file=path)
    table = data.get("chunk_to_doc")
    if not isinstance(table, dict):
        raise ContractError("missing [chunk_to_doc] table", file=path)
    for chunk, doc in table.items():
        check_id("chunk", chunk, file=path, where="[chunk_to_doc]")
        check_id("document", doc, file=path, where=f"[chunk_to_doc] {quote(chunk)}")
    return table
