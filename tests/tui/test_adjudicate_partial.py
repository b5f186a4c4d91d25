"""Adjudicating two partial label files (a model's labels and a person's audit sample) on their
overlap: only the overlap's differing pairs are disputes, pairs one file labels alone are counted
but neither queued nor written, and the written file is a valid partial file that says so."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomli_w
from textual.widgets import DataTable, Static

from rankeval_tui.core.annotation.adjudication import AdjudicationSession
from rankeval_tui.core.annotation.agreement import agreement_of_files
from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files import read_qrels_file
from rankeval_tui.core.files.label_import import file_is_partial
from rankeval_tui.core.files.tomllib_compat import tomllib  # tomli on Python 3.10
from rankeval_tui.tui.app import RankevalApp
from tests.tui.test_adjudicate_screen import DEMO, decide

MODEL_ONLY = {"q1": ("d1", "d2", "d3"), "q2": ("d1", "d2", "d3", "d4"), "q4": ("d1", "d2", "d6")}
"""The model labels these pairs (a partial file)."""
AUDITED = {"q1": ("d1", "d2"), "q2": ("d4", "d5"), "q4": ("d6",)}
"""The person labels these: 4 of them the model labeled too, q2/d5 the model did not."""


def partial_file(path: Path, annotator: str, pairs: dict, labels: dict, flips: set) -> Path:
    rows = {q: {d: 1 - labels[q][d] if (q, d) in flips else labels[q][d] for d in docs} for q, docs in pairs.items()}
    data = {"provenance": {"annotator": annotator, "partial": True}, "qrels": rows}
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


@pytest.fixture()
def partial_files(tmp_path, seed_dir) -> tuple[Path, Path, dict]:
    truth = tomllib.loads((seed_dir / "qrels.toml").read_text(encoding="utf-8"))["qrels"]
    model = partial_file(tmp_path / "model.toml", "model:umbrela", MODEL_ONLY, truth, {("q1", "d1"), ("q4", "d6")})
    audit = partial_file(tmp_path / "audit.toml", "alice", AUDITED, truth, set())
    return model, audit, truth


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_two_partial_files_adjudicated_on_their_overlap(definition, partial_files, tmp_path, size):
    model, audit, truth = partial_files
    out = tmp_path / "adjudicated.toml"
    session = AdjudicationSession.open(definition, model, audit, out, adjudicator="carol")
    app = RankevalApp(DEMO, start="adjudicate", adjudication_session=session)
    try:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            screen = app.screen
            table = screen.query_one(DataTable)
            assert [table.get_row_at(i)[1:5] for i in range(table.row_count)] == [
                ["q1", "d1", str(1 - truth["q1"]["d1"]), str(truth["q1"]["d1"])],
                ["q4", "d6", str(1 - truth["q4"]["d6"]), str(truth["q4"]["d6"])],
            ]
            summary = str(screen.query_one("#adjudicate-summary", Static).render())
            assert "model:umbrela (a model)" in summary
            assert "4 pairs in both files (6 only in A, 1 only in B" in summary.replace("\n", " ")
            await decide(pilot, str(truth["q1"]["d1"]), "the person is right")
            await decide(pilot, str(1 - truth["q4"]["d6"]), "the model is right")
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("q")
            await pilot.pause()
        assert app.return_value.startswith(f"wrote {out}: partial, 4 pairs in both files")
    finally:
        session.close()
    written = tomllib.loads(out.read_text(encoding="utf-8"))
    # Only the overlap, agreed labels kept and disputes decided; q2/d5 (audit only) and the
    # model's pairs the person never saw are not there.
    assert written["qrels"] == {
        "q1": {"d1": truth["q1"]["d1"], "d2": truth["q1"]["d2"]},
        "q2": {"d4": truth["q2"]["d4"]},
        "q4": {"d6": 1 - truth["q4"]["d6"]},
    }
    assert written["provenance"]["partial"] is True
    assert written["provenance"]["compared_pairs"] == 4
    assert written["provenance"]["pairs_only_in"] == [6, 1]
    assert written["provenance"]["annotators"] == ["model:umbrela", "alice"]
    assert written["provenance"]["disagreements"] == 2
    assert set(written["adjudication"]) == {"q1", "q4"}
    # A valid partial labels file: read back as one, compared on its overlap with the audit.
    reread = read_qrels_file(out, definition, exhaustive=False)
    assert file_is_partial(reread)
    assert agreement_of_files(definition, out, audit).coverage is not None


def test_partial_files_without_overlap_are_refused(definition, partial_files, tmp_path):
    model, _, truth = partial_files
    other = partial_file(tmp_path / "other.toml", "bob", {"q3": ("d1",)}, truth, set())
    out = tmp_path / "adjudicated.toml"
    with pytest.raises(ContractError, match="agreement needs an overlap"):
        AdjudicationSession.open(definition, model, other, out, adjudicator="carol")
    assert not out.exists() and not out.with_name(out.name + ".lock").exists()
