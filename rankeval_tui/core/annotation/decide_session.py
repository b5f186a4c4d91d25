"""Judging in the order that decides a comparison, opened from the command line or a screen.

``judge PROTOCOL --decide A B`` and the scoring screen's ``d`` open the same session here: the
holes of the pools asked in ``DecideQueue``'s order. The screen starts from a comparison on a
gap (runs with top-k pairs outside the pools), so it first adds those pairs to the pools as
holes, exactly as ``grow PROTOCOL --gap RUN`` does (``pool_growth``, under ``growing``'s locks);
the command line asks for that step by name instead (``refuse_outside_pools``).

While the holes are being judged the protocol cannot be scored (its qrels have holes), but the
queue knows the change's exact bounds under the labels so far: ``bounds_so_far`` gives them as
the ``DeltaReport`` the comparison shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rankeval_tui.core.annotation.decide_order import DecideQueue, Labels
from rankeval_tui.core.annotation.growth import growing
from rankeval_tui.core.annotation.judging import JudgingSession, Order
from rankeval_tui.core.annotation.pool_growth import apply_gap, plan_gap
from rankeval_tui.core.evaluation.delta_bounds import DeltaReport
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import load_definition


def open_to_decide(
    definition: ProtocolDefinition,
    qrels_path: Path,
    baseline: Run,
    candidate: Run,
    *,
    order: Order | None = None,
    seed: int | None = None,
    annotator: str | None = None,
    break_lock: bool = False,
    metrics: tuple[MetricId, ...] = PRIMARY,
) -> tuple[JudgingSession, DecideQueue]:
    """A judging session on ``qrels_path`` whose holes come in the order that decides candidate -
    baseline on ``metrics``; nothing is left behind (no journal, no lock) when the queue refuses."""
    session = JudgingSession.open(
        definition, qrels_path, order=order, seed=seed, annotator=annotator, break_lock=break_lock
    )
    try:
        queue = DecideQueue(definition, baseline, candidate, session.marks.labels, metrics)
        session.order_holes(queue)
    except BaseException:
        session.abandon()
        raise
    return session, queue


def grow_gaps(directory: Path, qrels_path: Path, runs: Sequence[Run]) -> int:
    """``grow DIRECTORY --gap RUN`` for each of ``runs`` at the protocol's k, under the same locks:
    their top-k pairs outside the pools join them as holes, every label kept. Returns the pairs added."""
    with growing(directory, qrels_path):
        definition = load_definition(directory)
        sources = {"runs": [str(run.source) for run in runs if run.source is not None]}
        growth, added = plan_gap(definition, runs, definition.k, sources=sources)
        if added:
            apply_gap(directory, growth, added, qrels_path=qrels_path)
    return added


def decide_from_gap(
    directory: Path, qrels_path: Path, baseline: Run, candidate: Run, metrics: tuple[MetricId, ...] = PRIMARY
) -> tuple[JudgingSession, DecideQueue, int]:
    """The scoring screen's ``d``: the two runs' gaps grown into the pools, then the session that
    asks them in the order that decides (``open_to_decide``); with the pairs the growth added."""
    added = grow_gaps(directory, qrels_path, (baseline, candidate))
    session, queue = open_to_decide(load_definition(directory), qrels_path, baseline, candidate, metrics=metrics)
    return session, queue, added


def bounds_so_far(queue: DecideQueue, labels: Labels) -> DeltaReport:
    """The change's exact bounds under the labels judged so far, as the comparison shows them:
    the queue's own per-query ranges (``query_delta``) and means (``mean_delta``), brought up to
    date with ``labels``; the queries no labelling can give a value left out, as ``delta_report`` does."""
    queue.sync(labels)
    rows = tuple(
        row
        for query in queue.queries
        if (row := queue.rows[query]).top or row.outside or any(bound.low is not None for _, bound in row.bounds)
    )
    metrics = queue.metrics
    return DeltaReport(
        queue.baseline.name,
        queue.candidate.name,
        queue.k,
        metrics,
        rows,
        tuple((metric, queue.mean(metric)) for metric in metrics),
    )
