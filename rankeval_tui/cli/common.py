"""Argument helpers shared by subcommands: protocol location, runs, k and split overrides."""

from __future__ import annotations

import argparse
import gc
import re
import sys
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rankeval_tui.cli.browser import served_to_a_browser
from rankeval_tui.cli.say import say
from rankeval_tui.core.errors import ContractError, describe_os_error, quote
from rankeval_tui.core.evaluation.evaluate import Run
from rankeval_tui.core.evaluation.metrics import (
    DEFINITIONS,
    PRIMARY,
    MetricId,
    named_metrics,
    parse_metric_name,
    resolve_metrics,
)
from rankeval_tui.core.evaluation.protocol import Protocol
from rankeval_tui.core.evaluation.run_check import query_id_mismatch
from rankeval_tui.core.evaluation.tie_order import tie_order_report
from rankeval_tui.core.files import (
    QrelsFile,
    load_chunk_map,
    load_protocol_and_qrels,
    load_run,
    parse_run_argument,
    run_files,
)
from rankeval_tui.core.files.atomic import atomic_write_text
from rankeval_tui.core.files.demo import BUNDLED_DEMO
from rankeval_tui.core.files.runs import check_unique_run_names

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: every command pays for its imports at start-up
if TYPE_CHECKING:  # judging is imported only by the commands that judge
    from rankeval_tui.core.annotation.judging import JudgingSession

DEMO_PROTOCOL = BUNDLED_DEMO


def require_terminal() -> None:
    """The app draws on a terminal and reads keys from one. Without it (a CI job that forgot the
    subcommand, a pipe) it would hang writing escape codes: refuse, and point to ``score``. Textual's
    web driver is a display too: there the pipes are how a browser's page draws and sends keys."""
    if served_to_a_browser():
        return
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise ContractError(
            "the app needs a terminal (stdin and stdout are not a TTY here); "
            "for scripts and CI use `rankeval-tui score PROTOCOL`"
        )


def finish_judging(session: JudgingSession, resume: str) -> int:
    """End a judging session after its screen closed: write the qrels (the lock still held),
    print the outcome; on failure one ``error:`` line saying where the labels are safe. Exit 1
    then: nothing is lost, but the qrels file is not written."""
    try:
        message = session.finish()
    except (ContractError, OSError) as error:
        session.close()
        reason = error.one_line() if isinstance(error, ContractError) else describe_os_error(error)
        say(
            f"error: qrels NOT written: {reason}; every label is safe in {session.journal_path}; "
            f"run `{resume}` again to finish the write",
            file=sys.stderr,
        )
        return 1
    say(message)
    return 0


def judge_command(protocol: Path, qrels: Path | None) -> str:
    """The command that resumes this judging job (shown when its qrels could not be written)."""
    return f"rankeval-tui judge {protocol}" + ("" if qrels is None else f" --qrels {qrels}")


ASCII_INTEGER = re.compile(r"-?[0-9]{1,30}")
"""An integer as arguments give it: a seed may be long, a count or cutoff never this long."""


def integer(text: str) -> int:
    """argparse type for an integer (--k, --seed): ASCII digits only, as the TREC readers read them
    (``int`` takes ``٢``, ``２`` and ``1_0``), and an input too long to be one said in a short line."""
    if not ASCII_INTEGER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"expected an integer in ASCII digits, got {quote(text)}")
    return int(text)


def positive_int(text: str) -> int:
    """argparse type for counts (samples, --k): a clear usage error instead of a traceback later."""
    try:
        value = integer(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {quote(text)}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {quote(text)}")
    return value


def add_protocol_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "protocol",
        nargs="?",
        type=Path,
        default=None,
        metavar="PROTOCOL",
        help="protocol directory (default: the bundled demo, the seed tutorial's fixture)",
    )
    add_qrels_option(parser)


def add_qrels_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--qrels", type=Path, default=None, metavar="PATH", help="qrels file (default: PROTOCOL/qrels.toml)"
    )


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="run file (JSON or TREC), repeatable; default: every file in PROTOCOL/runs/",
    )
    parser.add_argument(
        "--chunk-map",
        type=Path,
        default=None,
        metavar="MAP.toml",
        help="score chunk runs through the first-occurrence chunk->document adapter",
    )
    parser.add_argument("--k", type=integer, default=None, help="override the protocol's k (changes the hash)")
    parser.add_argument("--split", default=None, help="override the protocol's split (changes the hash)")


def add_tie_order_arguments(parser: argparse.ArgumentParser) -> None:
    """TREC runs whose rank order differs from trec_eval's score order: one warning line per run
    by default (``core.evaluation.tie_order``), the queries with a flag, trec_eval's order with another."""
    parser.add_argument(
        "--score-order",
        action="store_true",
        help="order TREC runs as trec_eval does (score descending, then document ID descending), not by rank",
    )
    parser.add_argument(
        "--tie-order-details",
        action="store_true",
        help="list each query trec_eval would rank otherwise, and whether a value at k changes",
    )


def add_baseline_argument(parser: argparse.ArgumentParser) -> None:
    """``--baseline NAME`` (``score``, ``inspect``); the default rule is ``core.files.baseline``'s."""
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="NAME",
        help="run the others are compared with (default: the run named in PROTOCOL/runs/BASELINE, "
        "else the first run that is not empty for every query)",
    )


def metric_names(text: str) -> list[str]:
    """``R@10,nDCG@10``: comma-separated ir_measures names (``--metrics``, repeatable), checked
    here so a typo is a usage error; their cutoffs are checked against k once it is known."""
    names = [name.strip() for name in text.split(",")]
    for name in names:
        try:
            parse_metric_name(name)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return names


def add_metrics_argument(parser: argparse.ArgumentParser) -> None:
    names = ", ".join(d.prefix for d in DEFINITIONS.values())
    parser.add_argument(
        "--metrics",
        action="append",
        type=metric_names,
        default=[],
        metavar="NAME@k,...",
        help=f"metrics to show, compare and test, comma-separated ir_measures names ({names}), e.g. "
        "R@10,RR@10,nDCG@10; each cutoff at most k, left out: k (default: R,RR)",
    )


def named_metrics_from_args(args: argparse.Namespace, protocol: Protocol) -> tuple[tuple[MetricId, int | None], ...]:
    """``--metrics`` as the app takes them: each metric with its cutoff (None: the protocol's
    k), several cutoffs allowed, none above k (``core.evaluation.metrics.named_metrics``)."""
    return named_metrics([name for group in args.metrics for name in group], protocol.k)


def metrics_from_args(args: argparse.Namespace, protocol: Protocol) -> tuple[MetricId, ...]:
    """``--metrics`` as metric ids, cutoffs checked against the protocol's k; the seed's pair by default."""
    requested = [name for group in args.metrics for name in group]
    return resolve_metrics(requested, protocol.k) if requested else PRIMARY


def add_label_arguments(parser: argparse.ArgumentParser) -> None:
    """``--relevant-from``, ``--grades`` and ``--unlisted-as-zero``: what the labels declare."""
    parser.add_argument(
        "--relevant-from",
        type=positive_int,
        default=None,
        metavar="T",
        help="keep graded labels (integers >= 0) as a graded protocol: nDCG takes the grade as gain, the binary "
        "measures count grade >= T relevant (trec_eval -l T)",
    )
    parser.add_argument(
        "--grades",
        type=word_list,
        default=None,
        metavar="W0,W1,...",
        help="with --relevant-from: the words of grades 0, 1, ... (the judging screen's legend)",
    )
    parser.add_argument(
        "--unlisted-as-zero",
        action="store_true",
        help="the collection declares every pair its qrels do not list non-relevant (as trec_eval reads them): "
        "such pairs are labelled 0 by that declaration, recorded in protocol.toml and counted as 'unlisted' "
        "in every report",
    )


def word_list(text: str) -> tuple[str, ...]:
    """``not relevant,relevant,highly relevant``: the words of grades 0, 1, 2."""
    words = tuple(word.strip() for word in text.split(","))
    if len(words) < 2 or not all(words):
        raise argparse.ArgumentTypeError(f"expected at least two words separated by commas, got {text!r}")
    return words


def add_protocol_directory(parser: argparse.ArgumentParser, help: str = "protocol directory") -> None:
    """The required PROTOCOL of commands that read or write one protocol's files (no demo default:
    the bundled demo is never written, and comparing annotators needs their protocol)."""
    parser.add_argument("protocol", type=Path, metavar="PROTOCOL", help=help)


STDOUT_HELP = "write here (atomically) instead of standard output"


def add_output_option(
    parser: argparse.ArgumentParser,
    metavar: str,
    help: str = STDOUT_HELP,
    *,
    required: bool = False,
    force_help: str = "replace the -o file if it exists (never an input of the command or of PROTOCOL)",
) -> None:
    """``-o/--output PATH``: where a command writes its file (the writes themselves are atomic),
    and ``--force``: replace it if it exists. ``check_output`` applies the rule."""
    parser.add_argument("-o", "--output", type=Path, default=None, required=required, metavar=metavar, help=help)
    parser.add_argument("--force", action="store_true", help=force_help)


def check_output(
    args: argparse.Namespace,
    output: Path | None = None,
    *,
    inputs: Iterable[tuple[Path | None, str]] = (),
    may_replace: Collection[str] = (),
    writes: str | None = None,
) -> None:
    """Refuse, before any work, an ``-o`` file (or ``output``, a file written beside it) that exists
    without ``--force``, or that is an input of the command or of its PROTOCOL (``core.files.outputs``).
    ``inputs``: the files the command reads, with what each is; ``None`` entries are skipped."""
    target = output if output is not None else args.output
    if target is None:
        return
    from rankeval_tui.core.files.outputs import check_output_target  # with -o only: start-up of score

    check_output_target(
        target,
        force=args.force,
        protocol=getattr(args, "protocol", None),
        inputs=[(path, what) for path, what in inputs if path is not None],
        may_replace=may_replace,
        writes=writes,
    )


def write_output(text: str, output: Path | None, summary: str) -> None:
    """Print ``text``, or write it atomically to ``output`` and say so on stderr (stdout stays clean)."""
    if output is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(output, text)
        say(f"wrote {output}: {summary}", file=sys.stderr)


def protocol_dir(args: argparse.Namespace) -> Path:
    return args.protocol if args.protocol is not None else DEMO_PROTOCOL


def load_protocol_and_qrels_from_args(args: argparse.Namespace) -> tuple[Protocol, QrelsFile]:
    """The protocol with --k/--split applied, and the qrels file it was read from (one read)."""
    protocol, qrels = load_protocol_and_qrels(protocol_dir(args), args.qrels)
    return protocol.with_overrides(getattr(args, "k", None), getattr(args, "split", None)), qrels


def run_specs(args: argparse.Namespace) -> list[tuple[str | None, Path]]:
    """(name or None, path) of every run named on the command line, or else found in runs/."""
    directory = protocol_dir(args)
    if args.run:
        return [parse_run_argument(a, directory) for a in args.run]
    specs: list[tuple[str | None, Path]] = [(None, path) for path in run_files(directory)]
    if not specs:
        raise ContractError("no runs: give --run PATH or put run files in runs/", file=directory)
    return specs


def by_score(args: argparse.Namespace, protocol: Protocol | None = None) -> bool:
    """``--score-order``, or the protocol's ``tie_order = "score"``: TREC runs in trec_eval's order
    (else rank order)."""
    recorded = protocol is not None and protocol.definition.tie_order == "score"
    return recorded or bool(getattr(args, "score_order", False))


def load_runs_from_args(args: argparse.Namespace, protocol: Protocol) -> list[Run]:
    """Every run named on the command line (or found in runs/), adapted when --chunk-map is given."""
    runs = [load_run(path, name, by_score=by_score(args, protocol)) for name, path in run_specs(args)]
    check_unique_run_names(runs)
    if args.chunk_map is not None:
        from rankeval_tui.core.evaluation.adapter import adapt_for_protocol  # chunk runs only

        mapping = load_chunk_map(args.chunk_map)
        runs = [
            adapt_for_protocol(protocol.definition, mapping, run, map_source=args.chunk_map).as_run(
                run.name, run.source
            )
            for run in runs
        ]
    selected = set(protocol.selected_queries)
    judged = [query for query in protocol.selected_queries if protocol.relevant[query]]
    for run in runs:
        for warning in run.warnings:
            say(f"warning: {warning}", file=sys.stderr)
        # Queries outside the split are refused by the scoring itself, in one line.
        mismatch = query_id_mismatch(run.name, [q for q in run.rankings if q in selected], judged)
        if mismatch is not None:
            say(f"warning: {mismatch}", file=sys.stderr)
        ties = tie_order_report(protocol, run)
        if ties is not None:
            details = ties.details() if getattr(args, "tie_order_details", False) else []
            for line in (ties.summary(), *details):
                say(f"warning: {line}", file=sys.stderr)
    return runs


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a one-shot command's reading and scoring, then back
    as it was.

    Why: a pooled protocol's files are millions of small objects (labels, run lines, pool
    sets), all alive until the process ends and none in a reference cycle, yet every few
    thousand container allocations the collector walks them again: a large share of ``score``'s
    time on a big protocol, and pausing it leaves peak memory as it was (benchmarks/bench_shapes.py
    measures ``score``). Only commands that exit when done use it, never the app, whose session
    lives on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
