"""Which hole to judge next to decide a comparison soonest: ``judge --decide A B``.

Every hole of the pools is a pair whose label is unknown; the exact range of the change B - A
(delta_bounds.py) is computed from the labels so far, per query and for the mean. The next pair
asked is the one whose label can move those bounds the most: for each hole and each of its two
labels, the query's bounds are recomputed with that label, and the pair's weight is the larger
of the two total movements (lowest up plus highest down, summed over the metrics whose mean is
still undecided: a decided mean needs no more labels); ties go to the pair that can flip more of
its query's verdicts, then to protocol order. A query's movement
is the mean's times the number of queries in the mean whenever each query's eligibility is
settled (it has a judged relevant document); otherwise it orders, and the bounds stay exact.

After each judgment only the judged query is recomputed. The holes of a query outside both
runs' top k move only Recall's denominator and eligibility, all alike: one stands for all.
On a graded protocol the measures ordered on are binary (Recall@k, RR@k): a label counts only
as below or at least ``relevant_from``, so a hole's two effects are those two, whatever grade
the annotator then gives. Runs are read for this order only; the judging screen still never shows a run, rank or score;
what it says is the verdict (``status``), which is what the annotator is asked to settle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction

from rankeval_tui.core.annotation.hole_order import HoleQueue
from rankeval_tui.core.errors import ContractError, describe_id
from rankeval_tui.core.evaluation.delta_bounds import (
    BETTER,
    NO_CHANGE,
    UNDECIDED,
    WORSE,
    QueryCase,
    QueryDelta,
    mean_delta,
    query_delta,
    verdict,
)
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.gaps import gap_command
from rankeval_tui.core.evaluation.metrics import PRIMARY, MetricId, label
from rankeval_tui.core.evaluation.protocol import ProtocolDefinition
from rankeval_tui.core.evaluation.ranges import Bound
from rankeval_tui.core.wording import counted

Labels = Mapping[str, Mapping[str, int]]
Effect = tuple[tuple[Fraction, Fraction, bool], ...]
"""Per metric: how far one label raises the query's lowest change, lowers its highest, and
whether it flips its verdict."""


def movement(before: Bound, after: Bound) -> tuple[Fraction, Fraction]:
    """How far a label narrows a range: the lowest's rise and the highest's fall."""
    if before.low is None or before.high is None or after.low is None or after.high is None:
        return Fraction(0), Fraction(0)
    return after.low - before.low, before.high - after.high


class DecideQueue(HoleQueue):
    """The holes of the two runs' queries, asked in the order that decides the comparison."""

    def __init__(
        self,
        definition: ProtocolDefinition,
        baseline: Run,
        candidate: Run,
        labels: Labels,
        metrics: tuple[MetricId, ...] = PRIMARY,
        written: Labels | None = None,
    ) -> None:
        """``written``: the qrels file's labels when a journal resumes with more (judged in an
        earlier sitting); the pairs they leave unjudged are the M of "decided after N of M"."""
        if definition.pools is None:
            raise ContractError("--decide is for a pooled protocol: its holes are the pairs to decide on")
        if definition.scale is not None and "ndcg" in metrics:
            raise ContractError(
                "--decide on a graded protocol orders by the binary measures (Recall, RR, ...), not nDCG"
            )
        self.definition = definition
        self.baseline = baseline
        self.candidate = candidate
        self.metrics = metrics
        self.k = definition.k
        self.queries = tuple(q for q in definition.selected_queries if q in definition.pools)
        refuse_outside_pools(definition, (baseline, candidate), self.k)
        self.seen: dict[str, dict[str, int]] = {}
        self.rows: dict[str, QueryDelta] = {}
        self.effects: dict[str, dict[str, tuple[Effect, Effect]]] = {}
        """Per query, each hole's effect when labelled 0 and when labelled 1."""
        self.said: dict[MetricId, str] = {}
        """Each metric's mean verdict, as of the last ``sync``."""
        self.open_metrics: tuple[int, ...] = ()
        """The metrics whose mean the order works on: the undecided ones (every one once none is)."""
        self.best: dict[str, tuple[tuple[Fraction, int], str]] = {}
        """Per query with holes, its hole of the highest weight for ``open_metrics``."""
        self.decided_after: int | None = None
        pairs: list[tuple[str, str]] = []
        for query in self.queries:
            self.refresh(query, labels)
            counted = (written if written is not None else labels).get(query, {})
            pairs.extend((query, doc) for doc in definition.pools[query] if doc not in counted)
        self.pair_total = len(pairs)
        super().__init__(pairs)
        self.judge_means(labels, self.queries)

    # ------------------------------------------------------------ per query

    def case(self, query: str, labels: Labels) -> QueryCase:
        judged = labels.get(query, {})
        top_b = self.baseline.rankings.get(query, ())[: self.k]
        top_c = self.candidate.rankings.get(query, ())[: self.k]
        in_top = dict.fromkeys((*top_b, *top_c))
        holes = [doc for doc in self.definition.pools[query] if doc not in judged]  # type: ignore[index]
        return QueryCase(
            query,
            top_b,
            top_c,
            frozenset(doc for doc, value in judged.items() if value >= self.definition.relevant_from),
            tuple(doc for doc in in_top if doc not in judged),
            tuple(doc for doc in holes if doc not in in_top),
            query not in self.baseline.rankings,
            query not in self.candidate.rankings,
        )

    def refresh(self, query: str, labels: Labels) -> None:
        """The query's bounds and, for each hole and each of its labels, how far that label moves
        each metric's bounds and whether it flips the query's verdict."""
        self.seen[query] = dict(labels.get(query, {}))
        case = self.case(query, labels)
        row = query_delta(case, self.k, self.metrics)
        self.rows[query] = row
        effects = self.effects[query] = {}
        verdicts = [verdict(row.bound(m)) for m in self.metrics]
        for doc in (*case.top, *case.outside[:1]):
            effect = []
            for value in (0, 1):
                after = query_delta(labelled(case, doc, value), self.k, self.metrics)
                effect.append(
                    tuple(
                        (*movement(row.bound(m), after.bound(m)), verdict(after.bound(m)) != said)
                        for m, said in zip(self.metrics, verdicts)
                    )
                )
            for each in case.outside if doc in case.outside else (doc,):
                effects[each] = (effect[0], effect[1])

    # ------------------------------------------------------------ the queue

    def sync(self, labels: Labels) -> None:
        """Recompute the queries whose labels changed since last seen (a label, an undo)."""
        changed = [q for q in self.queries if labels.get(q, {}) != self.seen[q]]
        for query in changed:
            self.refresh(query, labels)
        if changed:
            self.judge_means(labels, changed)

    def judge_means(self, labels: Labels, changed: Sequence[str]) -> None:
        """The means' verdicts; the best hole of each changed query (of every query when the
        undecided metrics changed)."""
        self.said = {metric: verdict(self.mean(metric)) for metric in self.metrics}
        open_metrics = tuple(i for i, m in enumerate(self.metrics) if self.said[m] == UNDECIDED)
        open_metrics = open_metrics or tuple(range(len(self.metrics)))
        if open_metrics != self.open_metrics:
            self.open_metrics, changed = open_metrics, self.queries
        for query in changed:
            self.best.pop(query, None)
            for doc, by_label in self.effects[query].items():  # pool order: the first of equal weight wins
                key = max(
                    (
                        sum((effect[i][0] + effect[i][1] for i in open_metrics), Fraction(0)),
                        sum(effect[i][2] for i in open_metrics),
                    )
                    for effect in by_label
                )
                if query not in self.best or key > self.best[query][0]:
                    self.best[query] = (key, doc)
        self.note_decision(labels)

    def next_hole(self, labels: Labels) -> tuple[str, str] | None:
        """The hole whose label can move the bounds of the undecided means the most (every
        metric's once all are decided), ties to the one that can flip more verdicts."""
        self.sync(labels)
        best: tuple[str, str] | None = None
        best_key: tuple[Fraction, int] = (Fraction(-1), -1)
        for query in self.queries:  # protocol order: the first of equal weight wins
            if query in self.best and self.best[query][0] > best_key:
                best_key, doc = self.best[query]
                best = (query, doc)
        return best

    def reopened(self) -> None:
        """An undo: ``next_hole`` sees the changed query itself."""

    # ------------------------------------------------------------ the verdict

    def mean(self, metric: MetricId) -> Bound:
        return mean_delta(list(self.rows.values()), metric)

    def judged(self, labels: Labels) -> int:
        return sum(1 for query, doc in self.pairs if doc in labels.get(query, {}))

    def note_decision(self, labels: Labels) -> None:
        """Remember when every metric's mean verdict became decided (an undo can undecide it)."""
        decided = UNDECIDED not in self.said.values()
        if not decided:
            self.decided_after = None
        elif self.decided_after is None:
            self.decided_after = self.judged(labels)

    def status(self, labels: Labels) -> str:
        """``decided after 23 of 61 pairs: B better than A on Recall@10 and RR@10 for every
        labelling of the rest``, or what is still open (and what is decided already)."""
        self.sync(labels)
        a, b = self.baseline.name, self.candidate.name
        parts = []
        for word, phrase in (
            (BETTER, f"{b} better than {a}"),
            (WORSE, f"{b} worse than {a}"),
            (NO_CHANGE, "no change"),
        ):
            names = [label(m, self.k) for m, v in self.said.items() if v == word]
            if names:
                parts.append(f"{phrase} on {' and '.join(names)}")
        if self.decided_after is None:
            open_metrics = [label(m, self.k) for m, v in self.said.items() if v == UNDECIDED]
            settled = f"; {'; '.join(parts)} already" if parts else ""
            return f"{b} vs {a} undecided on {' and '.join(open_metrics)}{settled}"
        return (
            f"decided after {self.decided_after} of {counted(self.pair_total, 'pair')}: "
            f"{'; '.join(parts)} for every labelling of the rest"
        )


def labelled(case: QueryCase, doc: str, value: int) -> QueryCase:
    """``case`` with one hole judged."""
    relevant = case.relevant | {doc} if value else case.relevant
    return replace(
        case,
        relevant=relevant,
        top=tuple(d for d in case.top if d != doc),
        outside=tuple(d for d in case.outside if d != doc),
    )


def refuse_outside_pools(definition: ProtocolDefinition, runs: Sequence[Run], k: int) -> None:
    """A top-k pair outside the pools cannot be asked: grow the pools first."""
    for run in runs:
        for query in definition.selected_queries:
            pool = definition.pool_sets.get(query, frozenset())
            outside = [doc for doc in run.rankings.get(query, ())[:k] if doc not in pool]
            if outside:
                raise ContractError(
                    f"run {run.name!r}: top-{k} pairs outside the pools cannot be judged; add them as holes first: "
                    f"{gap_command(definition, run.source, k)}",
                    file=run.source,
                    where=f"first: {describe_id('query', query)}, {describe_id('document', outside[0])}",
                )
