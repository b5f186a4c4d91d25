"""TREC topic files read as queries: the title is the text, description and narrative the need."""

from __future__ import annotations

import pytest

from rankeval_tui.core.errors import ContractError
from rankeval_tui.core.files.importers import read_queries

TOPICS = """<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal activity.

<narr> Narrative:
A relevant document must as a minimum identify the organization.
</top>

<top>
<num> Number: 302 <title> Poliomyelitis and Post-Polio
</top>
"""


def test_trec_topics_are_queries(tmp_path):
    path = tmp_path / "topics.301-302"
    path.write_text(TOPICS)
    imported = read_queries(path, "test")
    assert imported.format == "trec-topics"
    first, second = imported.queries["301"], imported.queries["302"]
    assert first.text == "International Organized Crime" and first.split == "test"
    assert first.need == (
        "Identify organizations that participate in international criminal activity.\n\n"
        "A relevant document must as a minimum identify the organization."
    )
    assert second.text == "Poliomyelitis and Post-Polio" and second.need is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("<top>\n<num> Number: 301\n</top>\n", "without <title>"),
        ("<top>\n<num> Number: 301\n<title> a\n", "no </top>"),
        ("<top>\n<num> Number: 301\n<title> a\n</top>\n<top>\n<num> Number: 301\n<title> b\n</top>\n", "given twice"),
    ],
)
def test_bad_topics_are_refused(tmp_path, text, fragment):
    path = tmp_path / "topics"
    path.write_text(text)
    with pytest.raises(ContractError, match=fragment):
        read_queries(path, "test")
