"""Two Cystic Fibrosis judges' graded labels as two TREC qrels files (the agreement tests' fixture).

Source: the Cystic Fibrosis collection's ``cfquery`` (Shaw, Wood, Wood and Tibbo 1991), as
fetched from the public GitHub repository rolandr36/ri_project. Each ``RD`` record lists a
document with FOUR judges' scores, one digit each, 0-2 (``139 1222``: document 139, judges
1, 2, 2, 2). Judge 1 and judge 2 become ``judge1.qrels`` and ``judge2.qrels``, one line per listed
pair (``qid 0 docid grade``), every pair in both files, so their disagreements are real ones.

    python tests/data/cf_judges/make_fixture.py /work/collections/cf/cfquery tests/data/cf_judges
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

JUDGES = (0, 1)  # positions in the four-digit score: judge 1 and judge 2


def records(text: str) -> list[tuple[str, str, str]]:
    """(query, document, four scores) for every RD entry, in file order."""
    found = []
    for block in re.split(r"^QN ", text, flags=re.M)[1:]:
        query = str(int(block.split()[0]))
        rd = re.search(r"^RD(.*?)(?=^\S|\Z)", block, flags=re.M | re.S)
        assert rd is not None, query
        fields = rd.group(1).split()
        for doc, scores in zip(fields[::2], fields[1::2], strict=True):
            assert re.fullmatch(r"[0-2]{4}", scores), (query, doc, scores)
            found.append((query, str(int(doc)), scores))
    return found


def main(cfquery: str, out_dir: str) -> None:
    entries = records(Path(cfquery).read_text(encoding="latin-1"))
    for number, position in enumerate(JUDGES, 1):
        lines = [f"{q} 0 {d} {scores[position]}\n" for q, d, scores in entries]
        Path(out_dir, f"judge{number}.qrels").write_text("".join(lines), encoding="utf-8")
    print(f"{len(entries)} pairs in {len({q for q, _, _ in entries})} queries")


if __name__ == "__main__":
    main(*sys.argv[1:])
