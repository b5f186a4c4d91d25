"""The subcommands by name: the module that registers and runs each, and its one-line summary.

A module of its own so that ``cli/__init__`` (which imports a command's module when it runs)
and the command modules (which register their parser under that summary) share it without
importing each other.
"""

from __future__ import annotations

# Every subcommand: the module under rankeval_tui.cli that registers and runs it (one module may
# hold a family: trec has qrels and run) and the one line `rankeval-tui --help` lists. The
# listing needs only this table; a module is imported when its command runs (start-up time: a
# CI step should not load the judging, adjudication and TUI code it does not use).
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("init", "make a protocol directory from a corpus, queries, optional qrels and runs"),
    "score": ("score", "score runs; table, JSON or Markdown; exit 1 if a gate fails"),
    "validate": ("validate", "check protocol, qrels and runs; list every problem and the holes left to judge"),
    "adapt": ("adapt", "collapse a chunk run to a document run (first occurrence)"),
    "agree": ("agree", "inter-annotator agreement (Cohen's kappa) of two qrels files"),
    "assign": ("assign", "split a protocol's queries between annotators (balanced, with a seeded overlap)"),
    "status": ("status", "each assigned annotator's progress, pace and time left"),
    "merge": ("merge", "merge qrels shards of several annotators into one complete qrels"),
    "qrels": ("trec", "qrels in TREC format: export, import"),
    "run": ("trec", "runs in TREC format: export"),
    "inspect": ("inspect", "open the scoring screen (the default command)"),
    "judge": (
        "judge",
        "judge every pair the protocol asks (0/1 or its grades; its corpus or its pools), crash-safe, resumable",
    ),
    "adjudicate": ("adjudicate", "adjudicate the disagreements of two annotators' qrels (opens the app)"),
    "serve": ("serve", "serve one annotator's judging to a browser on localhost"),
    "demo": ("demo", "copy the bundled demo protocol to DIR (to judge or change it)"),
    "rewrite": ("rewrite", "rewrite protocol.toml and qrels.toml in the canonical layout (read faster)"),
    "grow": (
        "grow",
        "add documents / queries, a run's unknown documents or (pooled) a run's gap; new pairs become holes",
    ),
}
COMMAND_MODULES = tuple(dict.fromkeys(module for module, _ in COMMANDS.values()))


def summary(command: str) -> str:
    """The one line ``rankeval-tui --help`` lists for ``command`` (its module's ``help=``)."""
    return COMMANDS[command][1]
