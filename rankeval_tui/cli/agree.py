"""``rankeval-tui agree``: Cohen's kappa, raw agreement and the disagreeing pairs of two annotators."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rankeval_tui.cli.agree_runs import add_runs_arguments, rankings_of_args, render_rankings, wants_rankings
from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_protocol_directory
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.agreement import Agreement, Confusion, Coverage, agreement_of_files
from rankeval_tui.core.annotation.grades import WEIGHTINGS, GradeCounts
from rankeval_tui.core.annotation.pace import pace_line
from rankeval_tui.core.evaluation.render import grid
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.annotator_kind import annotator_words
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import exact_and_decimal


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "agree",
        help=summary("agree"),
        description="Compare two annotators' qrels of one protocol (complete, or partial: then on the pairs "
        "both judged): Cohen's kappa overall and per query (exact, null with a reason where undefined), "
        "raw agreement, confusion counts, on a graded scale the grade matrix and weighted kappas, and "
        "every disagreeing pair with both notes. Exit 0 compared, 2 invalid input.",
    )
    add_protocol_directory(parser)
    parser.add_argument("first", type=Path, metavar="A.toml", help="first annotator's qrels")
    parser.add_argument("second", type=Path, metavar="B.toml", help="second annotator's qrels")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    add_runs_arguments(parser)
    parser.set_defaults(func=run_agree)


def locate(path: Path, protocol_dir: Path) -> Path:
    """A relative path not found in the working directory is looked up in the protocol
    directory, as ``--run`` does, so annotators' files can live beside protocol.toml."""
    if not path.is_absolute() and not path.exists() and (protocol_dir / path).exists():
        return protocol_dir / path
    return path


def kappa_text(confusion: Confusion) -> str:
    if confusion.kappa is None:
        return f"undefined ({confusion.undefined_reason})"
    return exact_and_decimal(confusion.kappa)


def who(side: str, name: str, source: str | None) -> str:
    """``A = alice  (qrels-alice.toml)``; a name already disambiguated by its file is not given it
    twice; a model is marked as one (``model:umbrela (a model)``)."""
    shown = annotator_words(name)
    if source is None or name.endswith(f"({Path(source).name})"):
        return f"{side} = {printable(shown)}"
    return f"{side} = {printable(shown)}  ({printable(source)})"


def coverage_lines(coverage: Coverage) -> list[str]:
    """What was compared when a file is partial: the overlap, and what each judged alone."""
    partial = " and ".join(side for side, flag in zip("AB", coverage.partial, strict=True) if flag)
    return [
        f"overlap {coverage.overlap} of {coverage.protocol_pairs} pairs judged in both ({partial} partial); "
        f"only in A {coverage.only[0]}, only in B {coverage.only[1]} (not compared)"
    ]


def grade_lines(result: Agreement) -> list[str]:
    """The grade-by-grade matrix and the kappas weighted by grade distance (graded scales)."""
    grades = result.grades
    if grades is None:
        return []
    header = ["", *(f"B={g}" for g in result.scale.grades)]
    rows = [[f"A={a}", *map(str, row)] for a, row in enumerate(grades.counts)]
    kappas = "   ".join(f"{name} {weighted_text(grades, name)}" for name in WEIGHTINGS)
    return [
        *grid(header, rows, markdown=False),
        "",
        f"kappa over grades 0..{result.scale.top}: {kappas}",
        "",
        f"binary at relevant_from {result.scale.relevant_from} (grade >= {result.scale.relevant_from} is 1):",
    ]


def bootstrap_lines(result: Agreement) -> list[str]:
    """An audit sample's kappa intervals: how far the measured agreement can move with the sample."""
    if result.bootstrap is None:
        return []
    boot = result.bootstrap
    shown = [
        f"{name} [{interval[0]:.4f}, {interval[1]:.4f}]" if interval is not None else f"{name} undefined"
        for name, interval in boot["intervals"].items()
    ]
    return [
        f"bootstrap {boot['level']:.0%} interval ({boot['samples']} resamples of the {result.overall.pairs} "
        f"audited pairs, seed {boot['seed']}): " + "   ".join(shown)
    ]


def weighted_text(grades: GradeCounts, weighting: str) -> str:
    value = grades.kappa(weighting)
    return "undefined" if value is None else exact_and_decimal(value)


def render_agreement(result: Agreement) -> str:
    """People's view of an ``Agreement``; every number is read from it, none recomputed."""
    a, b = result.annotators
    c = result.overall
    lines = [who("A", a, result.sources[0]), who("B", b, result.sources[1])]
    if any(result.paces):  # judged with timestamps: how fast each annotator went
        lines += [
            f"pace {side}: {pace_line(pace) if pace else 'not recorded in this file'}"
            for side, pace in zip("AB", result.paces, strict=True)
        ]
    if result.coverage is not None:
        lines += coverage_lines(result.coverage)
    lines.append("")
    if result.scale.graded:
        lines += grade_lines(result)
    lines += grid(
        ["", "B=1", "B=0"], [["A=1", str(c.a1_b1), str(c.a1_b0)], ["A=0", str(c.a0_b1), str(c.a0_b0)]], markdown=False
    )
    lines += [
        "",
        f"pairs {c.pairs}   agreements {c.agreements}   {'grade ' if result.scale.graded else ''}"
        f"disagreements {len(result.disagreements)}",
        f"observed agreement {exact_and_decimal(c.observed_agreement)}   "
        f"expected by chance {exact_and_decimal(c.expected_agreement)}",
        f"Cohen's kappa {kappa_text(c)}",
        *bootstrap_lines(result),
        "",
        "per query",
    ]
    rows = [
        [
            q,
            str(q_c.pairs),
            str(q_c.pairs - q_c.agreements),
            exact_and_decimal(q_c.observed_agreement),
            f"undefined (both gave {q_c.uniform_label} everywhere)"
            if q_c.kappa is None
            else exact_and_decimal(q_c.kappa),
        ]
        for q, q_c in result.per_query.items()
    ]
    header = ["query", "pairs", "disagree", "observed", "kappa"]
    if result.scale.graded and result.per_query_grades is not None:
        header += ["linear", "quadratic"]
        for row, grades in zip(rows, result.per_query_grades.values(), strict=True):
            row += [weighted_text(grades, "linear"), weighted_text(grades, "quadratic")]
    lines += grid(header, rows, markdown=False)
    lines += ["", f"disagreements ({len(result.disagreements)})"]
    if result.disagreements:
        rows = [
            [
                d.query,
                d.document,
                str(d.labels[0]),
                str(d.labels[1]),
                printable(d.notes[0] or "-"),
                printable(d.notes[1] or "-"),
            ]
            for d in result.disagreements
        ]
        lines += grid(["query", "document", "A", "B", "A's note", "B's note"], rows, markdown=False)
    else:
        lines.append("none")
    return "\n".join(lines) + "\n"


def run_agree(args: argparse.Namespace) -> int:
    definition = load_definition(args.protocol)
    paths = (locate(args.first, args.protocol), locate(args.second, args.protocol))
    result = agreement_of_files(definition, *paths)
    rankings = rankings_of_args(args, paths, result) if wants_rankings(args) else None
    if args.format == "json":
        data = {"protocol": definition.name, **result.to_json()}
        if rankings is not None:
            data["rankings"] = rankings.to_json()
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        say(render_agreement(result) + ("" if rankings is None else render_rankings(rankings)), end="", lines=True)
    return 0
