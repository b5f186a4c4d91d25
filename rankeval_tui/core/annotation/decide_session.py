"""Judging in the order that decides a comparison, opened from the command line or a screen.

``judge PROTOCOL --decide A B`` and the scoring screen's ``d`` open the same session here: the
holes of the pools asked in ``DecideQueue``'s order. The screen starts from a comparison on a
gap (runs with top-k pairs outside the pools), so it first adds those pairs to the pools as
holes, exactly as ``grow PROTOCOL --gap RUN`` does (``pool_growth``, under ``growing``'s locks);
the command line asks for that step by name instead (``refuse_outside_pools``).

While the holes are being judged the protocol cannot be scored (its qrels have holes), but the
change has exact bounds under the labels so far: ``bounds_so_far`` gives them as ``score
--bounds`` computes them, for the comparison to show.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rankeval_tui.core.annotation.decide_order import DecideQueue
from rankeval_tui.core.annotation.growth import growing
from rankeval_tui.core.annotation.judging import JudgingSession, Order
from rankeval_tui.core.annotation.open_labels import judged_so_far
from rankeval_tui.core.annotation.pool_growth import apply_gap, plan_gap
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.delta_bounds import DeltaReport, compare_bounds
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.files import load_definition, read_qrels_file


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
        # the qrels file's labels: the pairs they leave unjudged are the M of "decided after N of M",
        # also when a journal resumes with labels of an earlier sitting
        written = read_qrels_file(qrels_path, definition, exhaustive=False).labels if qrels_path.exists() else {}
        queue = DecideQueue(definition, baseline, candidate, session.marks.labels, metrics, written=written)
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


def bounds_so_far(
    directory: Path, qrels_path: Path, baseline: Run, candidate: Run, metrics: tuple[MetricId, ...] = PRIMARY
) -> DeltaReport:
    """The change's exact bounds under the labels judged so far (the qrels file's and an open
    journal's, read only), the rest of each pool bounded as holes: what ``score PROTOCOL --run A
    --run B --baseline A --bounds`` prints after judging to decide stopped early, computed as it
    computes them (``open_labels.judged_so_far``, ``compare_bounds`` with its holes)."""
    partial = judged_so_far(directory, qrels_path)
    if partial is None:
        raise ContractError("every pool pair is judged: the protocol scores without bounds", file=qrels_path)
    return compare_bounds(partial.protocol, baseline, candidate, metrics, partial.holes)
