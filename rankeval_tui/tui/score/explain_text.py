"""The drill-down's explanation of a score, and the documents' moves between the compared runs.

Formatting only: the terms come from ``core.evaluation.explain`` (the evaluator's own
arithmetic, checked to recompute the value exactly); the ranks from ``rank_changes``. Document
IDs go in as ``Text`` (never markup), as everything from a protocol.
"""

from __future__ import annotations

from fractions import Fraction

from rich.text import Text

from rankeval_tui.core.evaluation.explain import Explanation, RankChange, explain
from rankeval_tui.core.evaluation.metrics import DEFINITIONS, MetricId, label
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import exact_and_decimal
from rankeval_tui.tui.score.cells import STYLE_LOSS, STYLE_NO_RELEVANT, STYLE_WIN

STYLE_NEW = "bold cyan"
NAMED = 2
"""Relevant documents never returned named in full; more are counted (realistic IDs are long,
and the rankings need the lines)."""


def short(value: Fraction) -> str:
    """A term: exact when short (``1/6``), else its decimal (nDCG's rounded discounts)."""
    return str(value) if len(str(value)) <= 7 else f"{float(value):.4f}"


def explanation_of(session: ScoringSession, query_id: str, name: str, metric: MetricId) -> Explanation:
    row = session.report(name).row(query_id)
    ranking = session.scored_run(name).rankings.get(query_id)
    protocol = session.protocol
    return explain(row, ranking, protocol.relevant[query_id], protocol.k, metric, protocol.gains_of(query_id))


def explanation_text(session: ScoringSession, query_id: str, name: str, metric: MetricId) -> Text:
    """Two or three lines: the metric's formula with this query's terms and value, then where
    the relevant documents are (ranks in the top k, below it, never returned)."""
    why = explanation_of(session, query_id, name, metric)
    k = why.k
    text = Text.assemble((label(metric, k), "bold"), " = ", (DEFINITIONS[metric].formula, "dim"))
    if not why.relevant:
        text.append("\nno relevant document: null, left out of the means", style=STYLE_NO_RELEVANT)
        return text
    parts = " + ".join(f"{term.label} {short(term.value)}" for term in why.terms) or "0"
    if metric in ("recall", "p"):
        text.append(f" = {len(why.terms)} / {why.denominator}")
    elif metric in ("ap", "ndcg"):
        bottom = f"{why.relevant} relevant" if metric == "ap" else f"ideal {short(why.denominator)}"
        text.append(f" = ({parts}) / {bottom}")
    value = why.value
    text.append(" = ")
    text.append(exact_and_decimal(value), style="bold")
    if metric == "ndcg":
        best = min(why.relevant, k)
        text.append(
            f"\nideal DCG: {best} relevant at ranks 1-{best} = " + " + ".join(short(t.value) for t in why.ideal)
        )
    if why.ranks:
        text.append("\nrelevant at rank " if len(why.ranks) == 1 else "\nrelevant at ranks ", style="dim")
        text.append(", ".join(map(str, why.ranks)), style=STYLE_WIN)
        text.append(f" of the top {k} ({len(why.ranks)} of {why.relevant})", style="dim")
    else:
        text.append(f"\nno relevant document in the top {k} (0 of {why.relevant})", style=STYLE_LOSS)
    if why.below:
        text.append(f"; below k at {', '.join(map(str, why.below))}", style="dim")
    text.append("; never returned: ", style="dim")
    never = why.never if len(why.never) <= NAMED else (f"{len(why.never)} ({why.never[0]}, …)",)
    text.append(printable(", ".join(never)) if never else "none", style=STYLE_LOSS if never else "")
    return text


def movement_cell(change: RankChange | None, candidate_side: bool) -> Text:
    """In the candidate's panel: ``▲2 (was 8)``, ``▼1 (was 5)``, ``=``, ``new``; in the
    baseline's: ``gone`` where the candidate dropped the document, else its rank there."""
    if change is None:
        return Text("")
    if not candidate_side:
        if change.candidate is None:
            return Text("gone", style=STYLE_LOSS)
        return Text(f"now {change.candidate}", style="dim")
    movement = change.movement
    if movement == "new":
        return Text("new", style=STYLE_NEW)
    if movement == "same":
        return Text("=", style="dim")
    arrow, style = ("▲", STYLE_WIN) if movement == "up" else ("▼", STYLE_LOSS)
    return Text(f"{arrow}{change.places} (was {change.baseline})", style=style)
