"""What ``validate`` reports: every problem of a protocol directory, not only the first.

protocol.toml, the qrels file and every run are checked with collecting reporters (the same
rules as the loaders, which stop at the first problem), and the qrels' holes are counted per
query. Runs need only the definition, so they are checked even while the qrels have holes; while
protocol.toml is broken a run is only read (its own format problems are reported), never
reported valid: it was not checked against a corpus.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.evaluate import Run, check_run
from rankeval_tui.core.evaluation.gaps import gap_command, run_gap
from rankeval_tui.core.evaluation.pools import documents_without_text, pool_violation
from rankeval_tui.core.evaluation.protocol import Protocol, ProtocolDefinition
from rankeval_tui.core.files.baseline import checked_baseline_file
from rankeval_tui.core.files.holes import holes_per_query, judge_command
from rankeval_tui.core.files.protocol_files import (
    PROTOCOL_FILE,
    QRELS_FILE,
    QrelsFile,
    check_labels_only,
    load_definition,
    read_qrels_tables,
)
from rankeval_tui.core.files.runs import check_unique_run_names, load_run
from rankeval_tui.core.files.tomlio import canonical_layout_notice
from rankeval_tui.core.wording import counted


@dataclass
class Validation:
    """Findings in the order they were found; ``problems`` break the contract, ``holes`` are work."""

    directory: Path
    qrels_path: Path
    definition: ProtocolDefinition | None = None
    qrels: QrelsFile | None = None
    protocol: Protocol | None = None
    """Built only when protocol.toml and the qrels are valid and complete (then the hash is known)."""
    problems: list[ContractError] = field(default_factory=list)
    holes: dict[str, int] = field(default_factory=dict)
    unlisted: dict[str, int] = field(default_factory=dict)
    """Under a protocol that declares unlisted pairs 0: per query, its pairs without a label, each
    0 by that declaration (kept apart from the judged labels; judging one replaces it)."""
    runs: list[tuple[Path, Run | None]] = field(default_factory=list)
    """Each run file, with the run when it was checked against the definition and valid (never
    without a definition: a run read while protocol.toml is broken was not checked)."""
    warnings: list[str] = field(default_factory=list)

    @property
    def hole_count(self) -> int:
        return sum(self.holes.values())

    @property
    def next_command(self) -> str | None:
        """What the user should run next: judging the holes (problems are fixed by hand)."""
        if self.holes and self.definition is not None:
            return judge_command(self.directory, self.qrels_path)
        return None


def validate_directory(
    directory: Path, qrels_path: Path | None, run_specs: list[tuple[str | None, Path]]
) -> Validation:
    """Check everything that can be checked; a broken protocol.toml still lets runs be read."""
    result = Validation(directory, qrels_path if qrels_path is not None else directory / QRELS_FILE)
    report = result.problems.append
    try:
        result.definition = load_definition(directory, report=report)
    except ContractError as error:
        if not result.problems:  # a problem of the whole file (unreadable, not TOML, no directory)
            report(error)
    if result.definition is not None:
        check_qrels_file(result)
        if untexted := untexted_warning(directory, result.definition):
            result.warnings.append(untexted)
    for path in (directory / PROTOCOL_FILE, result.qrels_path):
        if path.is_file() and (notice := canonical_layout_notice(path)) is not None:
            result.warnings.append(notice)
    for name, path in run_specs:
        check_run_file(result, name, path)
    try:
        check_unique_run_names([run for _, run in result.runs if run is not None])
    except ContractError as error:  # as score refuses them: validate must not call both runs ok
        result.problems.append(error)
    if directory.is_dir():
        try:  # score reads runs/BASELINE before it compares: a name it refuses is a problem here too
            checked_baseline_file(directory, [run.name for _, run in result.runs if run is not None])
        except ContractError as error:
            result.problems.append(error)
    return result


def untexted_warning(directory: Path, definition: ProtocolDefinition) -> str | None:
    """Pooled documents without text, named (the first few) with the command that adds them."""
    untexted = documents_without_text(definition.pools, definition.documents)
    if not untexted:
        return None
    named = ", ".join(repr(doc) for doc in untexted[:UNTEXTED_NAMED])
    more = f" and {len(untexted) - UNTEXTED_NAMED} more" if len(untexted) > UNTEXTED_NAMED else ""
    return (
        f"{directory / 'protocol.toml'}: {counted(len(untexted), 'pooled document')} without text ({named}{more}): "
        f"judging shows a placeholder; add the texts with rankeval-tui grow {directory} --corpus FILE"
    )


UNTEXTED_NAMED = 5
"""Documents without text named by ``validate`` (the rest counted)."""


def check_qrels_file(result: Validation) -> None:
    definition = result.definition
    assert definition is not None
    before = len(result.problems)
    if not result.qrels_path.exists():
        result.holes = {q: len(definition.documents_of(q)) for q in definition.queries if definition.documents_of(q)}
        result.warnings.append(f"{result.qrels_path}: no qrels file yet: every pair is a hole")
        return
    try:
        qrels = read_qrels_tables(result.qrels_path, definition, report=result.problems.append)
    except ContractError as error:  # not readable as TOML: nothing to count
        result.problems.append(error)
        return
    check_labels_only(qrels.labels, result.qrels_path, report=result.problems.append, top=definition.top_grade)
    labels = qrels.labels
    if definition.pools is not None:  # a label outside its pool: a problem, and not counted as judging a hole
        pools = definition.pool_sets
        if (outside := pool_violation(pools, labels, file=result.qrels_path)) is not None:
            result.problems.append(outside)
            labels = {q: {d: v for d, v in row.items() if d in pools.get(q, ())} for q, row in labels.items()}
    result.qrels = qrels
    result.holes = holes_per_query(definition, labels)
    if definition.unlisted_as_zero:  # not work to do: labels by the collection's declaration
        result.unlisted, result.holes = result.holes, {}
    if not result.holes and len(result.problems) == before:
        result.protocol = Protocol(definition, qrels.labels, qrels_source=result.qrels_path)


def check_run_file(result: Validation, name: str | None, path: Path) -> None:
    try:
        run = load_run(path, name)
    except ContractError as error:
        result.problems.append(error)
        result.runs.append((path, None))
        return
    if result.definition is None:  # read, so its own format problems are listed, but unchecked
        result.runs.append((path, None))
        return
    before = len(result.problems)
    check_run(result.definition, run, report=result.problems.append)
    result.runs.append((path, run if len(result.problems) == before else None))
    definition = result.definition
    if definition.unlisted_as_zero:
        return  # a pair outside the pools is 0 by declaration: score counts it as unlisted
    if len(result.problems) == before and (gap := run_gap(definition, run.rankings, definition.k)):
        pairs = sum(map(len, gap.values()))
        result.warnings.append(
            f"run {run.name!r}: {counted(pairs, f'top-{definition.k} pair')} in {counted(len(gap), 'query')} "
            "outside the pools "
            f"(score refuses it; never read as 0): {gap_command(definition, path, definition.k)}"
        )
