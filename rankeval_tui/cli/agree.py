"""``rankeval-tui agree``: Cohen's kappa, raw agreement and the disagreeing pairs of two annotators."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rankeval_tui.cli.commands import summary
from rankeval_tui.cli.common import add_protocol_directory
from rankeval_tui.cli.say import say
from rankeval_tui.core.annotation.agreement import Agreement, Confusion, agreement_of_files
from rankeval_tui.core.annotation.pace import pace_line
from rankeval_tui.core.evaluation.render import grid
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.terminal_text import printable
from rankeval_tui.core.wording import exact_and_decimal


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "agree",
        help=summary("agree"),
        description="Compare two annotators' exhaustive qrels of one protocol: Cohen's kappa overall and per "
        "query (exact, null with a reason where undefined), raw agreement, confusion counts and "
        "every disagreeing pair with both notes. Exit 0 compared, 2 invalid input.",
    )
    add_protocol_directory(parser)
    parser.add_argument("first", type=Path, metavar="A.toml", help="first annotator's qrels")
    parser.add_argument("second", type=Path, metavar="B.toml", help="second annotator's qrels")
    parser.add_argument("--format", choices=("table", "json"), default="table")
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
    """``A = alice  (qrels-alice.toml)``; a name already disambiguated by its file is not given it twice."""
    if source is None or name.endswith(f"({Path(source).name})"):
        return f"{side} = {printable(name)}"
    return f"{side} = {printable(name)}  ({printable(source)})"


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
    lines.append("")
    lines += grid(
        ["", "B=1", "B=0"], [["A=1", str(c.a1_b1), str(c.a1_b0)], ["A=0", str(c.a0_b1), str(c.a0_b0)]], markdown=False
    )
    lines += [
        "",
        f"pairs {c.pairs}   agreements {c.agreements}   disagreements {len(result.disagreements)}",
        f"observed agreement {exact_and_decimal(c.observed_agreement)}   "
        f"expected by chance {exact_and_decimal(c.expected_agreement)}",
        f"Cohen's kappa {kappa_text(c)}",
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
    lines += grid(["query", "pairs", "disagree", "observed", "kappa"], rows, markdown=False)
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
    result = agreement_of_files(definition, locate(args.first, args.protocol), locate(args.second, args.protocol))
    if args.format == "json":
        data = {"protocol": definition.name, **result.to_json()}
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        say(render_agreement(result), end="", lines=True)
    return 0
