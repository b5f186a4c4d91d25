"""The runs of a scoring session: read, scored, accepted or rejected, and the baseline among them.

Why a module of its own: this is per-run bookkeeping over plain tuples (read each file, score
each run, re-score at a new k, pick the default baseline from what was accepted), with no state
of its own; ``core/session.py`` keeps the session's state and says when each step runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.adapter import adapt_for_protocol
from rankeval_tui.core.evaluation.evaluate import Report, Run, evaluate
from rankeval_tui.core.evaluation.gaps import run_gap
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.run_check import check_run, in_tie_order
from rankeval_tui.core.files import load_run
from rankeval_tui.core.files.baseline import BaselineChoice, choose_baseline, is_empty_report

RunSpec = tuple[str | None, Path]
"""``(name or None, path)`` as ``parse_run_argument`` returns it; None names a run by its stem."""


@dataclass(frozen=True)
class LoadedRun:
    """A run file as read from disk: the run, or the reason it could not be read."""

    name: str
    path: Path
    run: Run | None
    error: str | None = None


@dataclass(frozen=True)
class ScoredRun:
    """One run under the session's protocol: a report, or the one-line reason it was rejected."""

    name: str
    path: Path | None
    report: Report | None
    error: str | None = None
    warnings: tuple[str, ...] = ()
    run: Run | None = None
    """The document run that was scored (after the chunk adapter, if any): what a drill-down shows.
    For a run rejected for its gap alone, the run as checked: what the change's bounds range over."""
    gap_pairs: int = 0
    """Rejected for this many top-k pairs outside a pooled protocol's pools and for nothing else:
    such a run has no one score, but its change against another run has exact bounds
    (``core.evaluation.delta_bounds``), which the comparison shows."""

    @property
    def rejected(self) -> bool:
        return self.report is None

    @property
    def on_gap(self) -> bool:
        """Rejected for its gap alone: comparable on the change's bounds."""
        return self.gap_pairs > 0


def read_runs(
    specs: Sequence[RunSpec], read_elsewhere: Callable[[int], LoadedRun | None] | None = None, by_score: bool = False
) -> tuple[LoadedRun, ...]:
    """Read every run file; an unreadable or malformed file becomes a rejected entry, not an abort.

    Two runs with one name would make "baseline" ambiguous, so the second is rejected with the
    same advice the CLI gives. ``read_elsewhere``: the run at an index of ``specs`` as another
    process read it with this function, or None to read it here (``core.preread``); the names
    are checked here, over all of ``specs``, either way. ``by_score``: TREC runs in trec_eval's
    order (``score --score-order``).
    """
    loaded: list[LoadedRun] = []
    names: set[str] = set()
    for index, (name, path) in enumerate(specs):
        run_name = name or path.stem
        if run_name in names:
            error = ContractError(f"two runs are named {quote(run_name)}; name them with NAME=PATH", file=path)
            loaded.append(LoadedRun(run_name, path, None, error.one_line()))
            continue
        names.add(run_name)
        elsewhere = read_elsewhere(index) if read_elsewhere is not None else None
        if elsewhere is not None:
            loaded.append(elsewhere)
            continue
        try:
            loaded.append(LoadedRun(run_name, path, load_run(path, run_name, by_score=by_score)))
        except ContractError as error:
            loaded.append(LoadedRun(run_name, path, None, error.one_line()))
    return tuple(loaded)


def score_run(
    protocol: Protocol,
    loaded: LoadedRun,
    chunk_map: Mapping[str, str] | None,
    chunk_map_path: Path | None,
    metrics: Sequence[MetricId] = PRIMARY,
) -> ScoredRun:
    """``evaluate`` one run (through the chunk adapter when a map is given), catching only
    ``ContractError``: anything else is a bug and must surface."""
    if loaded.run is None:
        return ScoredRun(loaded.name, loaded.path, None, loaded.error)
    run = loaded.run
    try:
        if chunk_map is not None:
            run = adapt_for_protocol(protocol.definition, chunk_map, run, map_source=chunk_map_path).as_run(
                run.name, run.source
            )
        return ScoredRun(loaded.name, loaded.path, evaluate(protocol, run, metrics), None, loaded.run.warnings, run)
    except ContractError as error:
        gap = gap_alone(protocol, run)
        return ScoredRun(
            loaded.name, loaded.path, None, error.one_line(), loaded.run.warnings, run if gap else None, gap
        )


def gap_alone(protocol: Protocol, run: Run) -> int:
    """The run's top-k pairs outside the pools when that is all that keeps it from a score (a
    pooled protocol without ``unlisted_as_zero``, every other rule of ``check_run`` kept), else 0."""
    definition = protocol.definition
    if definition.pools is None or definition.unlisted_as_zero:
        return 0
    gap = run_gap(definition, in_tie_order(definition, run).rankings, protocol.k, protocol.qrels)
    if not gap:
        return 0
    try:
        check_run(definition, run)
    except ContractError:
        return 0
    return sum(map(len, gap.values()))


def score_runs(
    protocol: Protocol,
    loaded: Sequence[LoadedRun],
    chunk_map: Mapping[str, str] | None,
    chunk_map_path: Path | None,
    metrics: Sequence[MetricId],
) -> tuple[ScoredRun, ...]:
    """``score_run`` of every run read, in order (a load, or a split change: runs checked afresh)."""
    return tuple(score_run(protocol, run, chunk_map, chunk_map_path, metrics) for run in loaded)


def rescored_at_k(
    scored: Sequence[ScoredRun], protocol: Protocol, metrics: Sequence[MetricId]
) -> tuple[ScoredRun, ...]:
    """Every run scored again under ``protocol``, which differs from theirs in k alone.

    Neither the run check nor the chunk adapter depends on k: an accepted run's document run
    is scored again unchecked, a rejected run stays rejected for the same reason."""
    return tuple(
        s
        if s.report is None or s.run is None
        else replace(s, report=evaluate(protocol, s.run, metrics, at_other_k=s.report))
        for s in scored
    )


def empty_runs(scored: Sequence[ScoredRun]) -> set[str]:
    """Accepted runs that returned no document for any query (never a default baseline)."""
    return {s.name for s in scored if s.report is not None and is_empty_report(s.report)}


def baseline_at_load(
    scored: Sequence[ScoredRun], *, requested: str | None, protocol_dir: Path
) -> BaselineChoice | None:
    """``core.files.baseline.choose_baseline`` over the runs as first scored: ``--baseline``,
    ``runs/BASELINE`` (read here, so a bad file refuses the load), then the first run with
    results; a rejected run is never chosen."""
    return choose_baseline(
        [s.name for s in scored],
        requested=requested,
        protocol_dir=protocol_dir,
        empty=empty_runs(scored),
        rejected={s.name for s in scored if s.rejected},
    )


def baseline_among(accepted: Sequence[ScoredRun], chosen_at_load: BaselineChoice | None) -> BaselineChoice | None:
    """The load's choice while that run is accepted; after a k or split change rejected it,
    the same rule over the runs accepted now (no file read: this runs on the UI thread)."""
    names = [s.name for s in accepted]
    if chosen_at_load is not None and chosen_at_load.name in names:
        return chosen_at_load
    return choose_baseline(names, empty=empty_runs(accepted))
