"""Regression tests: every file of the fixed nasty corpus is refused by the real CLI and by the core.

Each case runs twice: through the installed CLI in a subprocess (exit 2, exactly one ``error:``
line naming the file, nothing on stdout, no traceback) and through the core loaders (a
``ContractError`` whose ``file`` is the corpus file). See ``make_corpus.py`` for the cases.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.fuzz.harness import CORPUS, KINDS, SUFFIX, check_input
from tests.fuzz.make_corpus import COMMITTED_MAX, PARTNER, build

GENERATED = build()


def corpus_cases() -> list[tuple[str, str, bytes]]:
    """Committed files as they are on disk, plus the few too large to commit, regenerated."""
    cases = []
    for kind in KINDS:
        on_disk = {p.name.removesuffix(SUFFIX[kind]): p.read_bytes() for p in sorted((CORPUS / kind).iterdir())}
        large = {n: d for n, d in GENERATED[kind].items() if len(d) > COMMITTED_MAX}
        cases += [(kind, name, data) for name, data in {**on_disk, **large}.items()]
    return cases


CASES = corpus_cases()


def test_corpus_is_complete_and_matches_its_generator() -> None:
    """The committed files are exactly the generator's small cases (no silent drift either way)."""
    for kind in KINDS:
        on_disk = {p.name.removesuffix(SUFFIX[kind]): p.read_bytes() for p in (CORPUS / kind).iterdir()}
        small = {n: d for n, d in GENERATED[kind].items() if len(d) <= COMMITTED_MAX}
        assert on_disk == small
    categories = Counter(name.split("__")[0] for _, name, _ in CASES)
    for category in (
        "truncated",
        "wrong-type",
        "duplicate-key",
        "bom",
        "non-utf8",
        "empty",
        "huge-line",
        "bad-id",
        "unknown-table",
        "deep-nesting",
        "huge-number",
    ):
        assert categories[category] >= 3, category
    assert len(CASES) >= 190


@pytest.mark.parametrize(("kind", "name", "data"), CASES, ids=[f"{k}/{n}" for k, n, _ in CASES])
def test_nasty_file_is_refused_with_one_line_naming_it(kind: str, name: str, data: bytes, tmp_path: Path) -> None:
    partner = PARTNER.get((kind, name))
    outcome = check_input(
        kind, data, tmp_path, subprocess_cli=True, must_reject=True, may_name=(partner,) if partner else ()
    )
    assert outcome.error is not None
