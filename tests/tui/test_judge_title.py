"""The judging screen shows an imported document's title above its text (BEIR ``title``)."""

from __future__ import annotations

from pathlib import Path

from rankeval_tui.core.annotation.judging import JudgingSession
from rankeval_tui.core.files import load_definition
from rankeval_tui.core.files.protocol_init import InitRequest, plan_protocol, write_protocol
from rankeval_tui.tui.app import RankevalApp
from rankeval_tui.tui.judge.document_view import DocumentView

FORMATS = Path(__file__).resolve().parents[1] / "data" / "own_data" / "formats"


async def test_title_is_shown_above_the_text_and_untitled_documents_show_text_only(tmp_path: Path) -> None:
    target = tmp_path / "beir"
    request = InitRequest(
        directory=target, corpus=FORMATS / "beir_corpus.jsonl", queries=FORMATS / "beir_queries.jsonl", k=1
    )
    write_protocol(plan_protocol(request))
    session = JudgingSession.open(load_definition(target), target / "qrels.toml", annotator="alice")
    app = RankevalApp(target, qrels_path=target / "qrels.toml", start="judge", judge_session=session)
    async with app.run_test(size=(80, 24)) as pilot:
        shown = app.screen.query_one(DocumentView).visible_text()
        assert "msmarco_v2.1_doc_00_12345" in str(app.screen.query_one("#judge-pair").render())
        assert shown.startswith("Export to CSV\n\nOpen File > Export and pick CSV.")
        await pilot.press("right")  # wiki.Paris-2024: an empty BEIR title is no title
        await pilot.pause()
        assert app.screen.query_one(DocumentView).visible_text().startswith("The 2024 Summer Olympics")
        await pilot.press("q")
        await pilot.pause()
    session.finish()
