"""Which run the others are compared with: the one rule ``score``, the app and the API share.

Order: ``--baseline NAME``; else the run named in the protocol's ``runs/BASELINE`` (one line,
a run name), so a protocol can say which comparison tells its story; else the first run given
(the first listed from ``runs/``). A run empty for every query is never picked by default: as
a baseline it makes every other run look like an improvement. Where the choice came from is
part of the answer, so every view can say "baseline fixture_A (runs/BASELINE)".
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from rankeval_tui.core.errors import ContractError, quote
from rankeval_tui.core.evaluation.evaluate import Report
from rankeval_tui.core.files.protocol_files import RUNS_DIR
from rankeval_tui.core.files.runs import BASELINE_FILE, run_files
from rankeval_tui.core.files.tomlio import read_utf8


@dataclass(frozen=True)
class BaselineChoice:
    """The baseline's run name and the rule that chose it (``--baseline``, ``runs/BASELINE``, ...)."""

    name: str
    source: str

    def describe(self) -> str:
        """``baseline fixture_A (runs/BASELINE)``: the line every view prints."""
        return f"baseline {self.name} ({self.source})"

    def to_json(self) -> dict[str, str]:
        """The JSON report's ``baseline`` entry (``score --format json``, ``api.report_json``)."""
        return {"run": self.name, "source": self.source}


def baseline_file(protocol_dir: str | Path) -> Path:
    return Path(protocol_dir) / RUNS_DIR / BASELINE_FILE


def read_baseline_file(protocol_dir: str | Path) -> str | None:
    """The run name in ``runs/BASELINE``, or None without that file; anything but one
    non-blank line is a ContractError naming the file, and so is a link, even dangling (read
    through the one read path, which names where it leads)."""
    path = baseline_file(protocol_dir)
    if not path.exists() and not path.is_symlink():
        return None
    lines = [line.strip() for line in read_utf8(path).splitlines() if line.strip()]
    if len(lines) != 1:
        raise ContractError(f"must hold one run name on one line, found {len(lines)} non-blank lines", file=path)
    return lines[0]


def checked_baseline_file(protocol_dir: str | Path, names: Sequence[str]) -> str | None:
    """The run ``runs/BASELINE`` names, or None without that file; a name that is neither one of
    ``names`` (the runs given) nor a file of ``runs/`` is a ContractError naming the file
    (``score`` and ``validate`` alike)."""
    named = read_baseline_file(protocol_dir)
    if named is None:
        return None
    listed = [path.stem for path in run_files(protocol_dir)]
    if named not in names and named not in listed:
        known = ", ".join(dict.fromkeys([*names, *listed])) or "none"
        raise ContractError(
            f"names run {quote(named)}, which is not one of the runs: {known}", file=baseline_file(protocol_dir)
        )
    return named


def is_empty_report(report: Report) -> bool:
    """True when the run returned no document for any query of the split."""
    return all(row.returned == 0 for row in report.rows)


def choose_baseline(
    names: Sequence[str],
    *,
    requested: str | None = None,
    protocol_dir: str | Path | None = None,
    empty: Collection[str] = (),
    rejected: Collection[str] = (),
) -> BaselineChoice | None:
    """The baseline among ``names`` (every run given, in order), or None when no run is usable.

    ``empty`` are runs with no document for any query, ``rejected`` runs that could not be
    scored (the app keeps them listed): neither is chosen by default. ``runs/BASELINE`` is
    checked whenever ``protocol_dir`` is given: a name that is neither one of ``names`` nor a
    file of ``runs/`` is a ContractError naming the file. A valid name that is not among the
    runs given (``--run`` chose others) falls through to the first run.
    """
    if requested is not None:
        if requested not in names:
            raise ContractError(f"--baseline {quote(requested)} is not one of the runs: " + ", ".join(names))
        if requested not in rejected:
            return BaselineChoice(requested, "--baseline")
    named = checked_baseline_file(protocol_dir, names) if protocol_dir is not None else None
    if named is not None and named in names and named not in rejected:
        return BaselineChoice(named, f"{RUNS_DIR}/{BASELINE_FILE}")
    usable = [name for name in names if name not in rejected]
    with_results = [name for name in usable if name not in empty]
    if with_results:
        skipped = usable[: usable.index(with_results[0])]
        if not skipped:
            return BaselineChoice(with_results[0], "first run")
        return BaselineChoice(with_results[0], f"first run with results; {', '.join(skipped)} empty for every query")
    if usable:
        return BaselineChoice(usable[0], "first run; every run is empty for every query")
    return None


def choose_report_baseline(
    reports: Sequence[Report], *, requested: str | None = None, protocol_dir: str | Path | None = None
) -> BaselineChoice | None:
    """``choose_baseline`` over scored reports (``score``, the API): emptiness read from the rows."""
    return choose_baseline(
        [r.run for r in reports],
        requested=requested,
        protocol_dir=protocol_dir,
        empty={r.run for r in reports if is_empty_report(r)},
    )


def default_candidate(names: Sequence[str], baseline: str | None, empty: Collection[str] = ()) -> str | None:
    """The run first shown against ``baseline``: the first other run with results, else any other."""
    others = [name for name in names if name != baseline]
    return next((name for name in others if name not in empty), others[0] if others else baseline)
