"""The metrics of a scoring session at their cutoffs: which columns the screen shows.

Why a module of its own: ``--metrics P@5,P@10,nDCG@10`` names metrics at cutoffs of their own;
the session resolves them against its k (which the screen can change), and these small rules
(a cutoff named with ``@`` stays, one named without follows k) are tested without a session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.metrics import DEFINITIONS, PRIMARY, MetricId

NamedMetric = tuple[MetricId, int | None]
"""A metric as ``--metrics`` named it: its cutoff, or None for the session's k (``named_metrics``)."""


@dataclass(frozen=True)
class ShownMetric:
    """One metric column of the scoring screen: a metric at a cutoff, as the session's k resolves it."""

    metric: MetricId
    cutoff: int
    fixed: int | None
    """The cutoff named with ``@`` (kept when k changes), or None: it follows the session's k."""

    @property
    def key(self) -> str:
        """The column key: ``p@5``."""
        return f"{self.metric}@{self.cutoff}"

    @property
    def name(self) -> str:
        """``P@5``: the name a user typed and reads."""
        return DEFINITIONS[self.metric].name(self.cutoff)


def shown_metrics(named: Sequence[NamedMetric], metrics: Sequence[MetricId], k: int) -> tuple[ShownMetric, ...]:
    """The metric columns, in the order named: each ``named`` metric at its cutoff (k for one
    named without ``@``), once each; without ``named``, ``metrics`` at k."""
    if not named:
        return tuple(ShownMetric(metric, k, None) for metric in metrics)
    shown: dict[tuple[MetricId, int], ShownMetric] = {}
    for metric, cutoff in named:
        shown.setdefault((metric, cutoff or k), ShownMetric(metric, cutoff or k, cutoff))
    return tuple(shown.values())


def metrics_at(named: Sequence[NamedMetric], k: int) -> tuple[MetricId, ...]:
    """The metrics ``named`` asks at k (named without ``@``, or at ``@k``); Recall@k and RR@k
    when none is (the evaluator computes them always, and the session needs a report at k)."""
    return tuple(dict.fromkeys(metric for metric, cutoff in named if cutoff in (None, k))) or PRIMARY


def refuse_k_below_fixed(named: Sequence[NamedMetric], k: int) -> None:
    """``ContractError`` when a metric named with ``@`` is deeper than ``k`` (the k key's ``-``):
    a cutoff is at most the protocol's k, as ``score`` says. The message names the first metric
    named at the deepest such cutoff."""
    fixed = [(cutoff, metric) for metric, cutoff in named if cutoff is not None]
    if fixed and max(cutoff for cutoff, _ in fixed) > k:
        cutoff, metric = max(fixed, key=lambda pair: pair[0])
        raise ContractError(
            f"{DEFINITIONS[metric].name(cutoff)} is shown (--metrics), so k stays at least {cutoff}: "
            f"a cutoff is at most the protocol's k"
        )
