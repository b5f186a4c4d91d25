"""Growing a protocol: new documents and queries become holes; no label is lost.

A docs assistant's corpus gains articles, users bring new questions, a new retriever returns
documents the protocol never had. ``grow`` adds them to protocol.toml and leaves exactly the new
pairs unjudged (holes): every existing label in qrels.toml stays as it is (nothing is removed
or changed, so every label still means what it meant), and ``score`` refuses until the holes
are judged. Existing documents and queries must come back unchanged: a changed text would
change what the existing labels mean, so it is refused, never merged.

What was added, when and from which files is appended to protocol.toml as a
``[[provenance.growth]]`` entry (the rest of the file is kept byte for byte, comments included).
An open judging journal is bound to a hash of the definition; it is migrated (its header
rebound to the new definition, every entry kept), so work in progress survives.

Order of writes: the journal first, then protocol.toml, both atomic, under the qrels lock (no
judge may run meanwhile). Interrupted between the two, the same ``grow`` again finishes it: a
journal already bound to the grown definition is left as it is.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from rankeval_tui.core.annotation.binding import definition_sha256, growth_ancestors, needs_rebinding, rebind_journal
from rankeval_tui.core.annotation.journal import journal_exists, journal_of
from rankeval_tui.core.annotation.lock import LOCK_SUFFIX, Lock
from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition, Query
from rankeval_tui.core.files import PROTOCOL_FILE, QRELS_FILE, load_definition
from rankeval_tui.core.files.atomic import atomic_write_text
from rankeval_tui.core.files.demo import refuse_writes_into_demo
from rankeval_tui.core.files.journal_names import ADJUDICATION_JOURNAL_SUFFIX as ADJUDICATION_SUFFIX
from rankeval_tui.core.files.journal_names import JUDGING_JOURNAL_SUFFIX as JOURNAL_SUFFIX
from rankeval_tui.core.files.protocol_files import definition_to_toml
from rankeval_tui.core.files.tomlio import dump_toml, parse_toml, read_utf8


@dataclass
class Growth:
    """What one ``grow`` adds, and the definition it makes."""

    before: ProtocolDefinition
    after: ProtocolDefinition
    documents: dict[str, str] = field(default_factory=dict)
    queries: dict[str, Query] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.documents and not self.queries

    @property
    def new_pairs(self) -> int:
        """Pairs that did not exist before: every one of them is a hole."""
        return self.after.pair_count - self.before.pair_count


def plan_growth(
    definition: ProtocolDefinition,
    *,
    corpus: Mapping[str, str] | None = None,
    queries: Mapping[str, Query] | None = None,
    runs: Sequence[Run] = (),
    sources: Mapping[str, list[str]] | None = None,
    titles: Mapping[str, str] | None = None,
) -> Growth:
    """The grown definition, checked in full before anything is written.

    Without runs, every document of ``corpus`` not yet in the protocol is added; with runs, only
    the documents the runs name that the protocol lacks, their text taken from ``corpus``."""
    corpus = corpus or {}
    new_documents: dict[str, str] = {}
    if runs:
        for run in runs:
            for query, ranking in run.rankings.items():
                for doc in ranking:
                    if doc in definition.documents or doc in new_documents:
                        continue
                    if doc not in corpus:
                        raise ContractError(
                            "the run names a document that is in neither the protocol nor --corpus; "
                            "give --corpus a file that holds its text",
                            file=run.source,
                            where=f"{describe_id('query', query)}, {describe_id('document', doc)}",
                        )
                    new_documents[doc] = corpus[doc]
    else:
        new_documents = {doc: text for doc, text in corpus.items() if doc not in definition.documents}
    titles = titles or {}
    for doc, text in corpus.items():
        changed_title = doc in titles and titles[doc] != definition.titles.get(doc)
        if doc in definition.documents and (definition.documents[doc] != text or changed_title):
            raise ContractError(
                "document is already in the protocol with another text or title; grow only adds (a "
                "changed text would change what its labels mean)",
                file=_first(sources, "corpus"),
                where=describe_id("document", doc),
            )
    new_queries: dict[str, Query] = {}
    for query, meta in (queries or {}).items():
        if query in definition.queries:
            if definition.queries[query] != meta:
                raise ContractError(
                    "query is already in the protocol with another text, split or need; grow only adds",
                    file=_first(sources, "queries"),
                    where=describe_id("query", query),
                )
            continue
        new_queries[query] = meta
    after = replace(
        definition,
        documents={**definition.documents, **new_documents},
        queries={**definition.queries, **new_queries},
        titles={**definition.titles, **{doc: titles[doc] for doc in new_documents if doc in titles}},
    )
    return Growth(definition, after, new_documents, new_queries, dict(sources or {}))


def _first(sources: Mapping[str, list[str]] | None, kind: str) -> str | None:
    files = (sources or {}).get(kind)
    return files[0] if files else None


def growth_record(growth: Growth, now: datetime) -> dict[str, object]:
    """The ``[[provenance.growth]]`` entry: what was added, when, from which files."""
    return {
        "at": now.astimezone(timezone.utc).isoformat(timespec="seconds"),
        "added_documents": list(growth.documents),
        "added_queries": list(growth.queries),
        "from": {kind: files for kind, files in growth.sources.items() if files},
        "definition_sha256_before": definition_sha256(growth.before),
        "definition_sha256_after": definition_sha256(growth.after),
        "tool": "rankeval-tui grow",
    }


def grown_protocol_text(old_text: str, growth: Growth, now: datetime) -> str:
    """protocol.toml with the new tables appended (the old text is kept byte for byte)."""
    addition: dict[str, object] = {}
    if growth.documents:
        titles = growth.after.titles
        addition["documents"] = {
            doc: {"title": titles[doc], "text": text} if doc in titles else {"text": text}
            for doc, text in growth.documents.items()
        }
    if growth.queries:
        addition["queries"] = {q: meta.canonical() for q, meta in growth.queries.items()}
    appended = dump_toml(addition) + "\n" + dump_toml({"provenance": {"growth": [growth_record(growth, now)]}})
    separator = "" if old_text.endswith("\n") or not old_text else "\n"
    return f"{old_text}{separator}\n# added by rankeval-tui grow\n{appended}"


def declare(
    directory: Path, definition: ProtocolDefinition, what: str, *, now: datetime | None = None, **settings: object
) -> ProtocolDefinition:
    """protocol.toml rewritten with the collection's declarations ``settings`` (``unlisted_as_zero``,
    ``scale``) and a ``[[provenance.growth]]`` record naming ``what`` was declared; every other
    part kept. The caller holds ``growing`` and read ``definition`` under it."""
    refuse_writes_into_demo(directory / PROTOCOL_FILE, "growing")
    at = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    growth = [*definition.provenance.get("growth", []), {"at": at, "declared": what}]
    declared = replace(definition, **settings, provenance={**definition.provenance, "growth": growth})  # type: ignore[arg-type]
    atomic_write_text(directory / PROTOCOL_FILE, definition_to_toml(declared))
    return declared


def open_journals(directory: Path, qrels_path: Path) -> list[Path]:
    """Every open journal a grow must move: those beside the qrels files in the protocol directory
    (one per annotator: ``qrels-alice.toml.journal``, ``qrels-bob.toml.journal``, adjudication
    journals) and the one of ``--qrels``, wherever it is. Moving only the given one would lock
    the other annotators out of their own labels."""
    candidates = [*directory.glob(f"*{JOURNAL_SUFFIX}"), journal_of(qrels_path), adjudication_journal_of(qrels_path)]
    # A link is never followed, nor skipped in silence: journal_exists refuses it in one line
    # (a received protocol's link could point anywhere outside it).
    return sorted({path for path in candidates if journal_exists(path)})


def adjudication_journal_of(qrels_path: Path) -> Path:
    return qrels_path.with_name(qrels_path.name + ADJUDICATION_SUFFIX)


def written_by(journal: Path) -> Path:
    """The qrels file a journal is written into (its lock is that file's)."""
    for suffix in (ADJUDICATION_SUFFIX, JOURNAL_SUFFIX):
        if journal.name.endswith(suffix):
            return journal.with_name(journal.name[: -len(suffix)])
    return journal


@contextmanager
def growing(directory: Path, qrels_path: Path | None = None) -> Iterator[list[str]]:
    """Hold, for the whole grow (read, check, write), the lock of the protocol's qrels.toml (one
    grow at a time: a second one is refused, so no addition is lost to a read made before the
    lock) and of every qrels file whose journal the grow moves (no judge writes it meanwhile).
    Yields the notices of recovered locks. Locks are taken in path order, so two grows never
    wait on each other crosswise. The bundled demo is refused before any lock: taking one writes a
    lock file there, which a kill would leave in the installed package."""
    refuse_writes_into_demo(directory / PROTOCOL_FILE, "growing")
    qrels_path = qrels_path if qrels_path is not None else directory / QRELS_FILE
    targets = {directory / QRELS_FILE, qrels_path, *(written_by(j) for j in open_journals(directory, qrels_path))}
    held: list[Lock] = []
    try:
        for target in sorted(targets, key=str):
            lock = Lock(target.with_name(target.name + LOCK_SUFFIX), command="grow")
            lock.acquire()
            held.append(lock)
        yield [lock.recovered for lock in held if lock.recovered]
    finally:
        for lock in reversed(held):
            lock.release()


def carry_over(directory: Path, definition: ProtocolDefinition, qrels_path: Path) -> list[Path]:
    """Finish an interrupted grow: move every journal still bound to a definition protocol.toml
    grew from to ``definition``. Returns the journals moved. The caller holds ``growing``."""
    ancestors = growth_ancestors(definition)
    journals = [j for j in open_journals(directory, qrels_path) if needs_rebinding(j, definition, ancestors)]
    for journal in journals:
        rebind_journal(journal, definition, ancestors)
    return journals


def apply_growth(
    directory: Path, growth: Growth, *, qrels_path: Path | None = None, now: datetime | None = None
) -> list[Path]:
    """Write the grown protocol, then move every open journal to it. The caller holds ``growing``
    and planned ``growth`` from protocol.toml as read under it.

    Returns the journals carried over. Everything is checked before the first write (every
    journal included). protocol.toml is written first: killed before the journals are moved, they
    are bound to a definition its ``[[provenance.growth]]`` records as grown from, which
    ``judge``/``validate`` name ("run the same grow again") and the same grow moves."""
    qrels_path = qrels_path if qrels_path is not None else directory / QRELS_FILE
    protocol_path = directory / PROTOCOL_FILE
    refuse_writes_into_demo(protocol_path, "growing")
    old_text = read_utf8(protocol_path)
    if definition_sha256(load_definition(directory)) != definition_sha256(growth.before):
        raise ContractError("protocol.toml changed since this growth was planned; run grow again", file=protocol_path)
    new_text = grown_protocol_text(old_text, growth, now or datetime.now(timezone.utc))
    try:
        parse_toml(new_text, protocol_path)
    except ContractError as error:  # e.g. documents written as an inline table: no [documents.ID] may follow
        raise ContractError(f"cannot append the new tables: {error.rule}", file=protocol_path) from None
    return write_grown(directory, growth, new_text, qrels_path)


def write_grown(directory: Path, growth: Growth, new_text: str, qrels_path: Path) -> list[Path]:
    """Write the grown protocol.toml, then move every open journal to it (checked before the
    write); shared by ``grow`` and ``grow --gap``. The caller holds ``growing``. Returns the
    journals moved."""
    ancestors = growth_ancestors(growth.before) | {definition_sha256(growth.before)}
    journals = [j for j in open_journals(directory, qrels_path) if needs_rebinding(j, growth.after, ancestors)]
    atomic_write_text(directory / PROTOCOL_FILE, new_text)
    for journal in journals:
        try:
            rebind_journal(journal, growth.after, ancestors)
        except OSError as error:  # disk full, a file size limit: protocol.toml is grown already
            raise ContractError(
                f"protocol.toml was grown, but this open journal could not be moved to it: {error.strerror}; "
                "run the same grow again to finish (every label in the journal is kept)",
                file=journal,
            ) from None
    return journals
