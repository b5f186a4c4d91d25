"""The scoring screen's two header lines: the protocol as scored, and the runs with their roles."""

from __future__ import annotations

from rich.text import Text

from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.session import ScoringSession
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.tui.score.cells import STYLE_LOSS, STYLE_MISSING, STYLE_WIN


def header_text(session: ScoringSession) -> Text:
    """Protocol name, hash, split, k and query counts; a note where k or split differ from the files.

    Terse (no "protocol" or "sha256" label: the 12 hex digits speak for themselves; two-space gaps) so that it stays one line at 80 columns: each
    line here is a table row less on a 24-line terminal."""
    protocol = session.protocol
    changed = protocol.k != session.base.k or protocol.split != session.base.split
    return Text.assemble(
        (printable(protocol.name), "bold"),
        ("  ", "dim"),
        (protocol.protocol_sha256[:12], "bold"),
        ("  split ", "dim"),
        (printable(protocol.split), "bold"),
        ("  k ", "dim"),
        (str(protocol.k), "bold"),
        ("  queries ", "dim"),
        (f"{len(protocol.selected_queries)} total / {session.eligible_queries} eligible", "bold"),
        (f"  (files say k {session.base.k}, split {printable(session.base.split)})" if changed else "", "yellow"),
        *pooled_words(protocol),
        *settings_words(protocol),
    )


def pooled_words(protocol: Protocol) -> tuple[tuple[str, str], ...]:
    """``  pooled: <the pool rule>`` for a pooled protocol (nothing for the exhaustive kind, whose
    header stays as it was); folded by the screen's width like the rest of the line."""
    if protocol.kind != "pooled":
        return ()
    return (("  pooled: ", "dim"), (printable(protocol.definition.pool_rule or "pool rule not recorded"), "bold"))


def settings_words(protocol: Protocol) -> tuple[tuple[str, str], ...]:
    """The protocol's declared settings, tersely (nothing when none is set): ``  graded 0-3,
    relevant from 2``, ``  unlisted: 0 by declaration``, ``  tie order: score``."""
    definition = protocol.definition
    words: list[tuple[str, str]] = []
    if definition.scale is not None:
        words += [("  graded ", "dim"), (f"0-{definition.scale.top}, relevant from {definition.relevant_from}", "bold")]
    if definition.unlisted_as_zero:
        words += [("  unlisted: ", "dim"), ("0 by declaration", "bold")]
    if definition.tie_order != "rank":
        words += [("  tie order: ", "dim"), (definition.tie_order, "bold")]
    return tuple(words)


RUNS_INDENT = len("runs: ")
"""Where a wrapped runs line continues: under the first run's name, not at column 0."""


def runs_text(session: ScoringSession, baseline: str | None, candidate: str | None) -> Text:
    """Accepted runs (baseline and candidate marked; the default baseline with the rule that
    chose it), rejected runs with their reason, warnings."""
    text = Text("runs:".ljust(RUNS_INDENT), style="dim")
    if not session.scored:
        text.append("none: put run files in runs/ or pass --run PATH", style=STYLE_MISSING)
    choice = session.default_baseline()
    base_role = f"baseline ({choice.source})" if choice is not None and choice.name == baseline else "baseline"
    for scored in session.accepted:
        roles = [r for r, n in ((base_role, baseline), ("candidate", candidate)) if n == scored.name]
        text.append("✓ ", style=STYLE_WIN)
        text.append(printable(scored.name), style="bold" if roles else "")
        text.append(f" [{', '.join(roles)}]  " if roles else "  ", style="cyan")
    for scored in session.rejected:
        if scored.on_gap:  # comparable on bounds: its role shown, and why it has no score
            roles = [r for r, n in (("baseline", baseline), ("candidate", candidate)) if n == scored.name]
            text.append("\n◐ ", style=STYLE_MISSING)
            text.append(printable(scored.name), style="bold")
            text.append(f" [{', '.join(roles)}]" if roles else "", style="cyan")
            text.append(
                ": unjudged top-k pairs outside the pools, no one score; compared on the change's exact bounds (v)"
            )
            continue
        text.append("\n✗ REJECTED ", style=STYLE_LOSS)
        text.append(printable(scored.name), style="bold")
        text.append(printable(f": {scored.error}"))
    for scored in session.scored:
        for warning in scored.warnings:
            text.append(printable(f"\n⚠ {scored.name}: {warning}", multiline=True), style="yellow")
    return text
