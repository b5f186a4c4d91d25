"""Generated hostile inputs for every loader, held to the same rule as the fixed corpus.

Mutations may leave a valid file (a flipped bit inside a document text is still a protocol), so
their rule is "a report identical to the core's, or one clean error naming an input file". The
must-reject strategies and truncations below have no valid outcome. The CLI runs in-process
here (``main(argv)``) to afford hundreds of examples; the corpus test covers the real
subprocess. ``scripts/fuzz_loaders.py`` runs the same strategies with many more examples.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzz.harness import CHUNK_RUN, KINDS, check_input, valid_bytes
from tests.fuzz.strategies import must_reject, mutated

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

PARTNERS = ("protocol.toml", "qrels.toml", "runs/fixture_A.json", CHUNK_RUN)
"""Files a damaged file may make another file's error: e.g. a protocol.toml that lost a query
is valid alone, and the qrels.toml judging that query is then where the contract breaks."""

PLACEMENT_PARTNER = {
    "protocol": ("qrels.toml",),
    "qrels": (),
    "json_run": (),
    "trec_run": (),
    "chunk_map": (CHUNK_RUN,),
}


@pytest.mark.parametrize("kind", KINDS)
def test_random_mutations_give_a_report_or_one_clean_error(kind: str) -> None:
    @FUZZ
    @given(mutated(kind))
    def check(data: bytes) -> None:
        with tempfile.TemporaryDirectory() as root:
            check_input(kind, data, Path(root), must_reject=False, may_name=PARTNERS)

    check()


@pytest.mark.parametrize("kind", KINDS)
def test_forbidden_values_are_always_refused(kind: str) -> None:
    @FUZZ
    @given(must_reject(kind))
    def check(data: bytes) -> None:
        with tempfile.TemporaryDirectory() as root:
            check_input(kind, data, Path(root), must_reject=True)

    check()


@pytest.mark.parametrize("kind", KINDS)
def test_every_truncation_is_refused_or_a_complete_shorter_file(kind: str, tmp_path: Path) -> None:
    """Cut the valid file at every byte. JSON runs, qrels and protocol files have no valid proper
    prefix (exhaustive qrels; a protocol that lost a query disagrees with its qrels). A chunk map
    that lost its unused last line, and a TREC run cut at a line end (no end marker exists in
    that format) are valid shorter files: they must then score exactly as the core says."""
    valid = valid_bytes(kind)
    accepted = []
    for cut in range(len(valid.rstrip())):
        outcome = check_input(
            kind,
            valid[:cut],
            tmp_path,
            must_reject=kind not in ("trec_run", "chunk_map"),
            may_name=PLACEMENT_PARTNER[kind],
        )
        if outcome.error is None:
            accepted.append(cut)
    if kind == "trec_run":
        text = valid.decode()
        # only whole lines (with or without the last newline): a cut inside a line breaks its shape
        # (here every tag is one character, so no cut inside a field leaves six fields)
        assert accepted == [cut for cut in range(1, len(valid.rstrip())) if text[cut - 1] == "\n" or text[cut] == "\n"]
    elif kind == "chunk_map":
        unused_tail = valid.decode().rstrip().rsplit("\n", 1)[0]
        assert all(cut >= len(unused_tail.encode()) for cut in accepted), accepted
