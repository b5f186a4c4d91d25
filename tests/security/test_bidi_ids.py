"""IDs may not hold bidirectional control characters: ``q1\u202egnp.d`` is shown as ``q1d.png`` in
every table and error line, so a received protocol or run could make one ID read as another
(issue 30, G: IDs shown as they are). Whitespace and C0/C1 controls were refused already."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files.ids import check_id
from tests.cli.helpers import assert_one_line_error, run_cli

BIDI = ["\u202e", "\u202a", "\u2066", "\u2069", "\u200f", "\u061c"]


@pytest.mark.parametrize("control", BIDI)
def test_check_id_refuses_bidi_controls(control: str) -> None:
    with pytest.raises(ContractError, match="contains whitespace or a control character"):
        check_id("document", f"docs/a{control}b.md", file=None)
    assert check_id("document", "docs/عربي/a.md", file=None) == "docs/عربي/a.md"  # RTL text itself is fine


@pytest.mark.parametrize("layout", ["trec", "json"])
def test_a_run_with_a_bidi_id_is_refused_in_one_line(tmp_path: Path, layout: str) -> None:
    demo = Path(__file__).resolve().parents[2] / "protocols" / "help-docs-zh"
    bad = "d1\u202egnp.d"
    if layout == "trec":
        run = tmp_path / "spoof.trec"
        run.write_text(f"q2 Q0 d3 1 2.0 x\nq2 Q0 {bad} 2 1.0 x\n", encoding="utf-8")  # fast path and careful path
    else:
        run = tmp_path / "spoof.json"
        run.write_text(json.dumps({"q2": ["d3", bad]}), encoding="utf-8")
    result = run_cli("score", demo, "--run", run)
    line = assert_one_line_error(result, "spoof", "control character")
    assert "\u202e" not in line  # the error line itself shows it escaped
