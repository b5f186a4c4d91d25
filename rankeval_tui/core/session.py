"""A scoring session: one protocol, several runs, every run scored by the one evaluator.

This is the scoring screen's view model, kept in core so it is testable without a terminal.
It holds no metric code: every number comes from ``evaluate`` (and ``compare`` for pairs).
What it adds is the bookkeeping a screen needs and the CLI does not:

- a run that breaks the contract is kept, *rejected* with its ``ContractError`` line, so the
  screen can show why while the other runs stay usable (the CLI instead stops at the first);
- k and split can be changed, which means a new protocol hash and a fresh ``evaluate`` of every
  run (the runs are not re-read);
- several cutoffs at once (``--metrics P@5,P@10,nDCG@10``): each cutoff other than k is a
  protocol of its own (``protocol.with_k(cutoff)``, its own hash), its runs scored by the same
  ``evaluate``, held as a session of its own (``at_cutoff``) so the comparison, its statistics and
  the drill-down work on it unchanged;
- ``reload`` re-reads the protocol, qrels and run files from disk, keeping k and split;
- which queries' labels were adjudicated (the qrels file's ``[adjudication]`` table), read with
  the labels in one pass, and the paired statistics (``core.evaluation.stats``) of every candidate against a
  baseline, with a verdict in plain words.

The per-run steps (read, score, re-score at a new k, default baseline) are functions of
``core.session_runs``; the session holds the state and says when each runs.

Sessions are immutable: ``with_k`` / ``with_split`` / ``reload`` return new ones, so a screen
can swap the whole state at once and never shows a half-updated mix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

from rankeval_tui.core.annotation.adjudicated import adjudicated_queries
from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.evaluate import Report
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId
from rankeval_tui.core.evaluation.paired_defaults import DEFAULT_ALPHA, DEFAULT_SAMPLES, DEFAULT_SEED
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.stats import (
    MetricStatistics,
    PairedStatistics,
    short,
)
from rankeval_tui.core.files import load_chunk_map, load_protocol_and_qrels, run_files
from rankeval_tui.core.files.baseline import BaselineChoice
from rankeval_tui.core.gc_pause import paused_gc
from rankeval_tui.core.preread import Preread
from rankeval_tui.core.session_cutoffs import NamedMetric, ShownMetric, metrics_at, refuse_k_below_fixed
from rankeval_tui.core.session_runs import (
    LoadedRun,
    RunSpec,
    ScoredRun,
    baseline_at_load,
    read_runs,
    rescored_at_k,
    score_runs,
)
from rankeval_tui.core.session_statistics import family_statistics
from rankeval_tui.core.session_views import SessionViews

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rankeval_tui.core.session_labels import OtherLabels


@dataclass(frozen=True)
class ScoringSession(SessionViews):
    """A protocol as loaded from disk, the current k and split, and every run scored under them
    (what it shows of them: ``core.session_views.SessionViews``)."""

    protocol_dir: Path
    base: Protocol
    """The protocol as its files define it (its own k and split)."""
    protocol: Protocol
    """``base`` with the session's k and split: the one every report was scored under."""
    loaded: tuple[LoadedRun, ...]
    scored: tuple[ScoredRun, ...]
    run_specs: tuple[RunSpec, ...] = ()
    """The runs as given (``--run``); empty means "every file in ``runs/``", listed afresh by
    ``reload`` so a run file added after the start is read too."""
    qrels_path: Path | None = None
    chunk_map_path: Path | None = None
    chunk_map: Mapping[str, str] | None = field(default=None, compare=False)
    adjudicated: frozenset[str] = frozenset()
    """Queries with at least one pair decided by an adjudicator (``core.adjudication``), read
    from the same qrels file as the labels: the labels of these queries were disputed once."""
    metrics: tuple[MetricId, ...] = PRIMARY
    """The metrics every run is scored on at the session's k (``score --metrics``' ids)."""
    requested_baseline: str | None = None
    """``--baseline NAME`` as given (kept for ``reload``)."""
    baseline_choice: BaselineChoice | None = None
    """The baseline chosen at load by ``core.files.baseline`` (``--baseline``, ``runs/BASELINE``,
    first run with results), read in the loading worker so the screen never reads the file."""
    named: tuple[NamedMetric, ...] = ()
    """``--metrics`` as named, each with its cutoff or None (k): empty shows ``metrics`` at k."""
    at_cutoffs: tuple[ScoringSession, ...] = field(default=(), compare=False, repr=False)
    """The session at each other cutoff ``named`` holds, in order (``at_cutoff``); empty without one."""
    labels: OtherLabels | None = field(default=None, repr=False)
    """``--labels LABELS.toml``: another label set every accepted run is also scored under
    (``core.session_labels``), read again by ``reload``."""
    under_labels: dict[str, Report] = field(default_factory=dict, init=False, compare=False, repr=False)
    """Each accepted run's report under ``labels`` at this session's k and split, made when first
    shown (``SessionViews.report_under_labels``); a new session (k, split, reload) starts empty."""

    # ------------------------------------------------------------------ building

    @classmethod
    @paused_gc(freeze=True)  # millions of long-lived, acyclic containers (core.gc_pause says why)
    def load(
        cls,
        protocol_dir: str | Path,
        run_specs: Sequence[RunSpec] | None = None,
        *,
        qrels_path: Path | None = None,
        k: int | None = None,
        split: str | None = None,
        chunk_map_path: Path | None = None,
        metrics: Sequence[MetricId] = PRIMARY,
        baseline: str | None = None,
        preread: Preread | None = None,
        named: Sequence[NamedMetric] = (),
        labels_path: Path | None = None,
    ) -> ScoringSession:
        """Read protocol, qrels and runs. A bad protocol raises ``ContractError`` (nothing to
        score against), as do an unknown ``baseline`` and a bad ``runs/BASELINE``; a bad run
        does not (it is kept as rejected). No ``run_specs`` means every file in ``runs/``, as
        the CLI does. ``preread``: what the command line read of these files already
        (``core.preread``), used instead of reading them again. ``named``: metrics at cutoffs of
        their own (``core.evaluation.metrics.named_metrics``, checked against k there); given,
        they replace ``metrics``. ``labels_path``: another label file of the protocol, every run
        scored under it too (``core.session_labels``; ``ContractError`` where the protocol refuses it)."""
        protocol_dir = Path(protocol_dir)
        base, qrels = (
            (preread.protocol, preread.qrels)
            if preread is not None
            else load_protocol_and_qrels(protocol_dir, qrels_path)
        )
        given = tuple(run_specs or ())
        specs = given or tuple((None, p) for p in run_files(protocol_dir))
        by_score = base.definition.tie_order == "score"  # the protocol's tie order: a rank column may be constant
        loaded = preread.runs_for(specs, by_score) if preread is not None else read_runs(specs, by_score=by_score)
        chunk_map = load_chunk_map(chunk_map_path) if chunk_map_path is not None else None
        protocol = base.with_overrides(k, split)
        chosen = metrics_at(named, protocol.k) if named else tuple(metrics) or PRIMARY
        scored = score_runs(protocol, loaded, chunk_map, chunk_map_path, chosen)
        return cls(
            protocol_dir,
            base,
            protocol,
            loaded,
            scored,
            given,
            qrels_path,
            chunk_map_path,
            chunk_map,
            frozenset(adjudicated_queries(qrels)),
            chosen,
            baseline,
            baseline_at_load(scored, requested=baseline, protocol_dir=protocol_dir),
            tuple(named),
            labels=other_labels(protocol_dir, labels_path),
        ).with_cutoffs()

    def _rescored(self, protocol: Protocol) -> ScoringSession:
        scored = score_runs(protocol, self.loaded, self.chunk_map, self.chunk_map_path, self.metrics)
        return replace(self, protocol=protocol, scored=scored).with_cutoffs()

    def with_cutoffs(self, kept: tuple[ScoringSession, ...] = ()) -> ScoringSession:
        """``at_cutoffs`` made for this session's protocol and runs: at each shown cutoff other
        than k, every accepted run's report from ``evaluate`` under ``protocol.with_k(cutoff)``
        (``rescored_at_k``: one evaluator, no second implementation). A run rejected at k stays
        rejected at every cutoff, as ``score`` refuses it whole. ``kept``: sessions at cutoffs of
        the same runs and split (before a k change), reused where cutoff and metrics match."""
        groups: dict[int, list[MetricId]] = {}
        for shown in self.shown:
            if shown.cutoff != self.protocol.k:
                groups.setdefault(shown.cutoff, []).append(shown.metric)
        reuse = {(s.protocol.k, s.metrics): s for s in kept}
        sessions = []
        for cutoff, metrics in groups.items():
            session = reuse.get((cutoff, tuple(metrics)))
            if session is None:
                protocol = self.protocol.with_k(cutoff)
                scored = rescored_at_k(self.scored, protocol, metrics)
                session = replace(
                    self, protocol=protocol, scored=scored, metrics=tuple(metrics), named=(), at_cutoffs=()
                )
            sessions.append(session)
        return replace(self, at_cutoffs=tuple(sessions))

    def with_k(self, k: int) -> ScoringSession:
        """Every run re-scored under cutoff ``k`` (a new protocol hash); files are not re-read,
        and runs are not checked again (``core.session_runs.rescored_at_k`` says why). The
        metrics named without ``@`` follow k; one named with a cutoff keeps it, so k cannot go
        below it (``ContractError``: a cutoff is at most the protocol's k, as ``score`` says)."""
        refuse_k_below_fixed(self.named, k)
        protocol = self.protocol.with_k(k)
        metrics = metrics_at(self.named, k) if self.named else self.metrics
        scored = rescored_at_k(self.scored, protocol, metrics)
        return replace(self, protocol=protocol, scored=scored, metrics=metrics).with_cutoffs(kept=self.at_cutoffs)

    def with_split(self, split: str) -> ScoringSession:
        """Every run re-scored on ``split``; runs made for another split are rejected, as the CLI would."""
        if split not in self.splits:
            raise ContractError(
                f"unknown split {quote(split)} (known: {', '.join(self.splits)})", file=self.base.definition.source
            )
        return self._rescored(self.protocol.with_split(split))

    def reload(self) -> ScoringSession:
        """Re-read every file from disk (``runs/`` listed again), keeping the session's k and split."""
        return ScoringSession.load(
            self.protocol_dir,
            self.run_specs,
            qrels_path=self.qrels_path,
            k=self.protocol.k,
            split=self.protocol.split,
            chunk_map_path=self.chunk_map_path,
            metrics=self.metrics,
            baseline=self.requested_baseline,
            named=self.named,
            labels_path=self.labels.source if self.labels is not None else None,
        )

    def __repr__(self) -> str:
        """Short on purpose: the generated dataclass repr spelled out every ranking of every run;
        Textual builds worker descriptions and traceback locals from reprs, so it held up the UI
        thread each time and buried errors."""
        runs = ", ".join(s.name if s.report is not None else f"{s.name} (rejected)" for s in self.scored)
        return (
            f"ScoringSession({str(self.protocol_dir)!r}, k={self.protocol.k}, split={self.protocol.split!r}, "
            f"runs=[{runs}])"
        )

    # ------------------------------------------------------------------ views

    def at_cutoff(self, cutoff: int) -> ScoringSession:
        """This session at one of its shown cutoffs: itself at k, else its ``at_cutoffs`` entry
        (the same object each time, so the statistics computed for it stay its own)."""
        if cutoff == self.protocol.k:
            return self
        for session in self.at_cutoffs:
            if session.protocol.k == cutoff:
                return session
        raise KeyError(cutoff)

    def report_at(self, name: str, shown: ShownMetric) -> Report:
        """The report of an accepted run under ``shown``'s cutoff."""
        return self.at_cutoff(shown.cutoff).report(name)

    def statistics(
        self,
        baseline: str,
        *,
        test: str = "randomization",
        seed: int = DEFAULT_SEED,
        samples: int = DEFAULT_SAMPLES,
        alpha: Fraction = DEFAULT_ALPHA,
    ) -> PairedStatistics | None:
        """``core.evaluation.stats.paired_statistics`` of every other accepted run against ``baseline``.

        The family is every candidate, whichever one the screen shows, because that is the
        family ``score --baseline`` corrects with Holm: the two must print the same p-values.
        None when there is no other accepted run. Can take seconds on thousands of queries
        (Monte-Carlo and bootstrap draws): screens use ``core.session_statistics.statistics_in_process`` for those.
        """
        return family_statistics(self.family(baseline), test=test, seed=seed, samples=samples, alpha=alpha)

    def family(self, baseline: str) -> tuple[Report, ...]:
        """The baseline's report first, then every other accepted run's: the input of ``statistics``."""
        base = self.report(baseline)
        return (base, *(s.report for s in self.accepted if s.name != baseline and s.report is not None))


def smallest_possible_p(stats: MetricStatistics) -> Fraction | None:
    """The smallest p the chosen test could give on these queries, whatever the deltas' sizes.

    Exact sign-flip: the observed sign assignment and its mirror image are always at least as
    extreme, and flipping a zero delta changes nothing, so with ``z`` non-zero deltas
    ``p >= 2 / 2^z`` (and p = 1 when every delta is zero). Monte-Carlo and bootstrap p are
    ``(1 + extreme) / (1 + samples)``, so at least ``1 / (1 + samples)``. None when untested.
    """
    if stats.test == "randomization" and stats.sign_flip is not None and stats.sign_flip.method == "exact":
        nonzero = stats.win + stats.loss
        return Fraction(1) if nonzero == 0 else Fraction(2, 2**nonzero)
    if stats.test == "randomization":
        return None if stats.sign_flip is None else Fraction(1, 1 + stats.sign_flip.assignments)
    return None if stats.bootstrap is None else Fraction(1, 1 + stats.bootstrap.samples)


def verdict(stats: MetricStatistics, alpha: Fraction, candidates: int = 1) -> str:
    """The statistics in plain words, e.g. ``not significant at alpha 0.05 (n = 3: smallest
    possible p is 1/4)``. When n is too small for any outcome to reach alpha, say so: that is
    the answer to "is it real?" on three queries, not "the candidate is no better"."""
    if stats.n == 0 or stats.p_holm is None:
        return "no eligible queries: nothing to test"
    holm = candidates > 1
    p_name = "Holm-adjusted p" if holm else "p"
    if stats.significant(alpha):
        direction = "higher" if (stats.mean_delta or 0) > 0 else "lower"
        return f"significant at alpha {short(alpha)}: the candidate's mean is {direction} ({p_name} = {p_words(stats.p_holm)})"
    floor = smallest_possible_p(stats)
    if floor is not None and floor > alpha:
        nonzero = stats.win + stats.loss
        zeros = "" if nonzero == stats.n else f", {nonzero} non-zero delta{'s' if nonzero != 1 else ''}"
        return (
            f"not significant at alpha {short(alpha)} (n = {stats.n}{zeros}: smallest possible p is {p_words(floor)})"
        )
    return f"not significant at alpha {short(alpha)} ({p_name} = {p_words(stats.p_holm)} > {short(alpha)})"


def p_words(value: Fraction) -> str:
    """A p-value as read aloud: ``1/4``, ``1``; a long fraction (Monte-Carlo) as its decimal."""
    if value.denominator <= 1024:
        return str(value)
    return f"{float(value):.4g}"


def other_labels(protocol_dir: Path, labels_path: Path | None) -> OtherLabels | None:
    """``--labels``' file read (its module imported only then: most sessions have none)."""
    if labels_path is None:
        return None
    from rankeval_tui.core.session_labels import OtherLabels

    return OtherLabels.read(protocol_dir, labels_path)
