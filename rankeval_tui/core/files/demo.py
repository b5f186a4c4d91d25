"""The bundled demo protocol: read anywhere, written never.

The seed tutorial's fixture ships inside the package so ``rankeval-tui score`` works after a
plain ``pip install .``. Judging or adjudicating it in place would rewrite files inside
site-packages (one label and ``q`` would change every later score's protocol hash from the
seed's ``9dd1a576...`` to another, silently). So every writer of labels (judge,
adjudicate, grow) asks ``refuse_writes_into_demo`` first, and ``rankeval-tui demo DIR`` makes
the copy a user can judge.
"""

from __future__ import annotations

from pathlib import Path

from rankeval_tui.core.errors import ContractError

BUNDLED_DEMO = Path(__file__).resolve().parent.parent.parent / "demo" / "help-docs-zh"
"""The demo as installed (``protocols/help-docs-zh`` in a checkout is a link to it)."""

COPY_COMMAND = "rankeval-tui demo DIR"


def is_inside_demo(path: str | Path) -> bool:
    """True when ``path`` (existing or not, through any links) lies in the bundled demo."""
    resolved = Path(path).resolve()
    demo = BUNDLED_DEMO.resolve()
    return resolved == demo or demo in resolved.parents


def refuse_writes_into_demo(path: str | Path, action: str) -> None:
    """Raise before ``action`` (e.g. "judging") would create or change a file in the demo."""
    if is_inside_demo(path):
        raise ContractError(
            f"{action} would modify the bundled demo, which is kept as installed; "
            f"make your own copy with `{COPY_COMMAND}` and work on DIR",
            file=path,
        )


def copy_demo(target: str | Path) -> Path:
    """Copy the demo (protocol, qrels, runs, chunks) to a new directory ``target``.

    Refuses an existing target rather than mixing the demo's files into someone's protocol. The
    copy is made beside the target under a temporary name and renamed into place, so a failure
    leaves no half-made directory."""
    import shutil  # only this command copies: every command reads BUNDLED_DEMO, and shutil slows start-up

    target = Path(target)
    if target.exists() or target.is_symlink():
        raise ContractError("already exists; give a new directory for the demo copy", file=target)
    if not target.parent.is_dir():
        raise ContractError("parent directory does not exist", file=target)
    staging = target.with_name(f".{target.name}.demo-copy")
    if staging.exists():
        shutil.rmtree(staging)
    try:
        shutil.copytree(BUNDLED_DEMO, staging, ignore=shutil.ignore_patterns("*.journal", "*.lock", "__pycache__"))
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target
