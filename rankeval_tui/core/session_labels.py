"""The scoring screen's other label set (``inspect PROTOCOL --labels LABELS.toml``): every run
scored under the protocol's labels and under LABELS.toml, side by side, by the one evaluator.

The label file is read as ``agree --runs`` reads each of its files (``load_protocol`` with that
qrels file): the protocol's definition and declarations apply to both (a pair the file does not
list is 0 only where the protocol declares ``unlisted_as_zero``; otherwise a partial file is
refused with its holes). The file's annotator is named as every output names it: a ``model:``
annotator is marked as a model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from rankeval_tui.core.annotation.label_rankings import OrderChange, order_changes
from rankeval_tui.core.evaluation.evaluate import Report, Run, evaluate
from rankeval_tui.core.evaluation.metrics import MetricId
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.files import load_protocol_and_qrels
from rankeval_tui.core.files.filling import named_annotator
from rankeval_tui.core.files.label_import import annotator_words


@dataclass(frozen=True)
class OtherLabels:
    """A label file of the protocol, and the protocol under it (as its files define it: own k, split)."""

    source: Path
    annotator: str | None
    protocol: Protocol

    @classmethod
    def read(cls, directory: Path, path: Path) -> OtherLabels:
        """``ContractError`` for a file the protocol's rules refuse (a hole, a grade off the scale)."""
        protocol, qrels = load_protocol_and_qrels(directory, path)
        return cls(path, named_annotator(qrels.provenance), protocol)

    def who(self) -> str:
        """``model.toml (model:umbrela (a model))``: the file, and its annotator when it says."""
        return self.source.name + ("" if self.annotator is None else f" ({annotator_words(self.annotator)})")

    def at(self, protocol: Protocol) -> Protocol:
        """These labels under ``protocol``'s k and split (the session's, or one of its cutoffs)."""
        return self.protocol.with_overrides(protocol.k, protocol.split)

    def report(self, protocol: Protocol, run: Run, metrics: Sequence[MetricId]) -> Report:
        """``run`` scored under these labels at ``protocol``'s k and split: the one evaluator."""
        return evaluate(self.at(protocol), run, metrics)


@dataclass(frozen=True)
class RunOrder:
    """One metric's means of the runs under each label set, and the pairs of runs they order apart."""

    means: tuple[Mapping[str, Fraction | None], Mapping[str, Fraction | None]]
    changes: tuple[OrderChange, ...]
    """Pairs ordered differently (``label_rankings.order_changes``); none when a run has no mean."""

    @classmethod
    def of(cls, metric: MetricId, ours: Sequence[Report], theirs: Sequence[Report]) -> RunOrder:
        means_a = {report.run: report.mean(metric) for report in ours}
        means_b = {report.run: report.mean(metric) for report in theirs}
        known_a = {run: value for run, value in means_a.items() if value is not None}
        known_b = {run: value for run, value in means_b.items() if value is not None}
        complete = len(known_a) == len(known_b) == len(means_a)
        return cls((means_a, means_b), tuple(order_changes(known_a, known_b)) if complete else ())

    def ranked(self, side: int) -> list[str]:
        """The runs best first under one side (0: the protocol's labels, 1: the other), ties by
        name; runs without a mean last."""
        means = self.means[side]
        return sorted(means, key=lambda run: (means[run] is None, -(means[run] or 0), run))
