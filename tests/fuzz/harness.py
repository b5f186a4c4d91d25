"""Put one (possibly hostile) file into a copy of the demo protocol and see what the tool does with it.

Shared by the fuzz tests, the fixed corpus regression tests and ``scripts/fuzz_loaders.py``, so all
three judge an input by the same rule: either the input is valid and the CLI prints a report, or
the core raises ``ContractError`` naming a file and the CLI exits 2 with exactly that one
``error:`` line, nothing on stdout, no traceback. Anything else (another exception, a report on
stdout next to an error, an error without the file) is a bug.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rankeval_tui.cli import main
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.evaluation.adapter import adapt_for_protocol
from rankeval_tui.core.evaluation.evaluate import evaluate
from rankeval_tui.core.evaluation.render import report_json
from rankeval_tui.core.files import load_chunk_map, load_protocol, load_run

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "protocols" / "help-docs-zh"
CORPUS = Path(__file__).resolve().parent / "corpus"

KINDS = ("protocol", "qrels", "json_run", "trec_run", "chunk_map")
"""Every loader: protocol.toml, qrels.toml, JSON run, TREC run, chunk map."""

SUFFIX = {"protocol": ".toml", "qrels": ".toml", "json_run": ".json", "trec_run": ".trec", "chunk_map": ".toml"}

PLACE = {
    "protocol": "protocol.toml",
    "qrels": "qrels.toml",
    "json_run": "runs/fuzz.json",
    "trec_run": "runs/fuzz.trec",
    "chunk_map": "chunks/chunk_map.toml",
}
"""Where each kind of file lives inside a protocol directory."""

CHUNK_RUN = "chunks/chunk_run.json"
RUN_FOR_PROTOCOL = "runs/fixture_A.json"


def trec_lines(rankings: dict[str, list[str]], tag: str = "B") -> str:
    """A JSON run written as the TREC run it stands for (scores descending with rank, no warning)."""
    return "".join(
        f"{q} Q0 {d} {rank} {100 - rank}.5 {tag}\n" for q, docs in rankings.items() for rank, d in enumerate(docs, 1)
    )


def valid_bytes(kind: str) -> bytes:
    """The demo protocol's own valid file of this kind (the TREC run is fixture_B as TREC)."""
    if kind == "trec_run":
        return trec_lines(json.loads((DEMO / "runs" / "fixture_B.json").read_text("utf-8"))).encode()
    if kind == "json_run":
        return (DEMO / "runs" / "fixture_B.json").read_bytes()
    return (DEMO / PLACE[kind]).read_bytes()


def stage(kind: str, data: bytes, root: Path) -> tuple[Path, Path, list[str]]:
    """Copy the demo protocol under ``root``, write ``data`` where ``kind`` lives.

    Returns the protocol directory, the fuzzed file and the CLI arguments that make the tool
    read it (``score`` with JSON output: the report a CI job would consume).
    """
    protocol = root / "p"
    if protocol.exists():
        shutil.rmtree(protocol)
    shutil.copytree(DEMO, protocol)
    target = protocol / PLACE[kind]
    target.write_bytes(data)
    return protocol, target, cli_args(kind, protocol, target)


def cli_args(kind: str, protocol: Path, target: Path) -> list[str]:
    args = ["score", str(protocol), "--format", "json"]
    if kind in ("protocol", "qrels"):
        return [*args, "--run", str(protocol / RUN_FOR_PROTOCOL)]
    if kind == "chunk_map":
        return [*args, "--run", str(protocol / CHUNK_RUN), "--chunk-map", str(target)]
    return [*args, "--run", str(target)]


@dataclass
class Outcome:
    """What the core made of the input: a report (``error`` None) or the ContractError."""

    report: dict[str, Any] | None
    error: ContractError | None


def core_outcome(kind: str, protocol_dir: Path, target: Path) -> Outcome:
    """The core loaders the CLI uses for this kind, called directly (no CLI in between)."""
    try:
        protocol = load_protocol(protocol_dir)
        if kind in ("protocol", "qrels"):
            run = load_run(protocol_dir / RUN_FOR_PROTOCOL)
        elif kind == "chunk_map":
            mapping = load_chunk_map(target)
            chunk_run = load_run(protocol_dir / CHUNK_RUN)
            run = adapt_for_protocol(protocol.definition, mapping, chunk_run, map_source=target).as_run(
                chunk_run.name, chunk_run.source
            )
        else:
            run = load_run(target)
        return Outcome(report_json(evaluate(protocol, run)), None)  # the run's JSON as score prints it
    except ContractError as error:
        return Outcome(None, error)


def cli_in_process(args: list[str]) -> tuple[int, str, str]:
    """``main(args)`` with stdout/stderr captured: the CLI's code path without a process start."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exit_:  # argparse
            code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


def cli_subprocess(args: list[str], *, prefix: tuple[str, ...] = ()) -> tuple[int, str, str]:
    """The real installed CLI in its own process, as users and CI run it (``prefix``: e.g. setpriv)."""
    result = subprocess.run(
        [*prefix, sys.executable, "-m", "rankeval_tui", *args],
        capture_output=True,
        cwd=REPO,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    return (result.returncode, result.stdout.decode("utf-8", "replace"), result.stderr.decode("utf-8", "replace"))


def assert_one_error_line(code: int, stdout: str, stderr: str, *files: Path) -> str:
    """Exit 2, nothing on stdout, exactly one ``error:`` line naming one of ``files``, no traceback."""
    assert code == 2, (code, stdout[:500], stderr[:500])
    assert stdout == "", stdout[:500]
    assert "Traceback" not in stderr, stderr[-2000:]
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr[:2000]
    assert any(str(f) in lines[0] for f in files), (files, lines[0][:500])
    return lines[0]


def check_input(
    kind: str,
    data: bytes,
    root: Path,
    *,
    subprocess_cli: bool = False,
    must_reject: bool = True,
    may_name: tuple[str, ...] = (),
) -> Outcome:
    """Stage ``data`` and hold core and CLI to the contract; return the core's outcome.

    ``must_reject``: the input is known bad, the core must refuse it and name the fuzzed file
    (or one of the protocol files listed in ``may_name``, for cross-file rules like a qrels that
    names a query a truncated protocol.toml lost). Otherwise a valid input is allowed, and then
    the CLI must print that very report.
    """
    protocol_dir, target, args = stage(kind, data, root)
    outcome = core_outcome(kind, protocol_dir, target)
    allowed = (target, *(protocol_dir / name for name in may_name))
    code, stdout, stderr = (cli_subprocess if subprocess_cli else cli_in_process)(args)
    if outcome.error is None:
        assert not must_reject, f"accepted a bad {kind} input: {data[:200]!r}"
        assert code == 0 and "Traceback" not in stderr, (code, stderr[-2000:])
        (report,) = json.loads(stdout)["runs"].values()
        assert report == outcome.report
        return outcome
    error = outcome.error
    assert error.file is not None and any(error.file == str(f) for f in allowed), (error.file, allowed, error)
    line = error.one_line()
    assert "\n" not in line and "\r" not in line
    assert_one_error_line(code, stdout, stderr, Path(error.file))
    assert stderr.strip() == f"error: {line}"
    return outcome
