"""Where a long document opens, on real documents: the share of (query, document) pairs whose
opening view shows the line that answers the query. Prints numbers, asserts nothing.

The documents are this machine's own (nothing here wrote them): manual pages rendered at 80
columns (``man -P cat``), Vim help files, licences under /usr/share/common-licenses and Chinese
manual pages (``man -L zh_CN``). They are too large to store, so they are generated at each run;
a document the machine lacks is skipped and named, and its queries are not counted.

Each query names its document and a regular expression for the line that answers it (the first
line it matches), written down by reading the document: an option's definition, a section's
heading, a licence's clause. The answer is that line and the lines below it up to the next
line indented as little or less (the option's description, the section's first paragraphs;
at most ``PASSAGE_MAX`` lines): the view shows the answer if it shows any of them. The opening view is what the judging screen shows first: the
document box's rows (``--box``, 76x13 at 80x24 before the wider box, 78x13 after) from the top the
screen chooses (``document_text.opening_top``), the same code the screen runs.

Two sets of questions, each counted apart: the first (``QUESTIONS``, 28 on 17 documents), on
which the weighting was tuned, and a held-out set (``HELD_OUT``, 32 on 23 other documents, nine
over 1,500 lines, five Chinese pages), written down before the scorer changed and never used to
tune it. Every document of both sets and the background pages make the corpus.

    /work/venv/bin/python benchmarks/bench_passage.py [--box 78x13] [--verbose] [--write-protocol DIR]
        [--timing LINES]

``--timing LINES`` times instead what choosing the passage costs when a document is prepared
(``document_text.prepare``: split, match, score): bash's manual page repeated to LINES lines,
once per question of both sets, CPU time (user + system of the process) beside wall time. Run it
with ``PYTHONPATH`` at an older tree for the "before" column.

``--write-protocol DIR`` also writes these documents and queries as a protocol (every pair of a
query with its document labeled 1, with every other document 0) to try the screens on.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from rankeval_tui.core.annotation import term_match
from rankeval_tui.core.annotation.term_match import Matcher
from rankeval_tui.tui.judge import document_text

VIM_DOC = Path("/usr/share/vim")
LICENCES = Path("/usr/share/common-licenses")


def manual(page: str, language: str | None = None) -> str | None:
    """``man -P cat page`` at 80 columns (None when the machine has no such page)."""
    if shutil.which("man") is None:
        return None
    command = ["man", *(["-L", language] if language else []), "-P", "cat", page]
    env = dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="", LANG="C.UTF-8")
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    return done.stdout if done.returncode == 0 and done.stdout.strip() else None


def vim_help(name: str) -> str | None:
    found = sorted(VIM_DOC.glob(f"vim*/doc/{name}"))
    return found[-1].read_text(encoding="utf-8", errors="replace") if found else None


def licence(name: str) -> str | None:
    path = LICENCES / name
    return path.read_text(encoding="utf-8") if path.is_file() else None


DOCUMENTS = {
    "man/bash": lambda: manual("bash"),
    "man/tmux": lambda: manual("tmux"),
    "man/grep": lambda: manual("grep"),
    "man/find": lambda: manual("find"),
    "man/ssh": lambda: manual("ssh"),
    "man/tar": lambda: manual("tar"),
    "man/less": lambda: manual("less"),
    "man/sed": lambda: manual("sed"),
    "man/git": lambda: manual("git"),
    "vim/options.txt": lambda: vim_help("options.txt"),
    "vim/pattern.txt": lambda: vim_help("pattern.txt"),
    "vim/change.txt": lambda: vim_help("change.txt"),
    "licence/GPL-3": lambda: licence("GPL-3"),
    "licence/Apache-2.0": lambda: licence("Apache-2.0"),
    "licence/MPL-2.0": lambda: licence("MPL-2.0"),
    "zh/passwd": lambda: manual("passwd", "zh_CN"),
    "zh/chage": lambda: manual("chage", "zh_CN"),
}
HELD_OUT_DOCUMENTS = {
    "man/curl": lambda: manual("curl"),
    "man/wget": lambda: manual("wget"),
    "man/systemctl": lambda: manual("systemctl"),
    "man/git-log": lambda: manual("git-log"),
    "man/top": lambda: manual("top"),
    "man/ps": lambda: manual("ps"),
    "man/ssh_config": lambda: manual("ssh_config"),
    "man/journalctl": lambda: manual("journalctl"),
    "man/dpkg": lambda: manual("dpkg"),
    "vim/quickfix.txt": lambda: vim_help("quickfix.txt"),
    "vim/syntax.txt": lambda: vim_help("syntax.txt"),
    "vim/windows.txt": lambda: vim_help("windows.txt"),
    "vim/motion.txt": lambda: vim_help("motion.txt"),
    "vim/map.txt": lambda: vim_help("map.txt"),
    "vim/builtin.txt": lambda: vim_help("builtin.txt"),
    "licence/GPL-2": lambda: licence("GPL-2"),
    "licence/LGPL-2.1": lambda: licence("LGPL-2.1"),
    "licence/GFDL-1.3": lambda: licence("GFDL-1.3"),
    "zh/faillog": lambda: manual("faillog", "zh_CN"),
    "zh/shadow": lambda: manual("shadow", "zh_CN"),
    "zh/chpasswd": lambda: manual("chpasswd", "zh_CN"),
    "zh/lastlog": lambda: manual("lastlog", "zh_CN"),
    "zh/groupadd": lambda: manual("groupadd", "zh_CN"),
}
"""The held-out set's documents: none of them is in the first set, so no weighting was tuned on
them (written down, with their questions below, before the scorer of BM25 windows was written)."""


PASSAGE_MAX = 30
"""The most lines of an answer counted (a section's heading and its first paragraphs)."""
BACKGROUND_PAGES = 120
"""Further manual pages of section 1 (the first ones by name, no questions): the rest of the
protocol, over which a term's rarity is counted, as in a protocol of a few hundred documents."""


def background() -> dict[str, str]:
    """Up to ``BACKGROUND_PAGES`` section-1 manual pages, by name, rendered like the others."""
    names = sorted({p.name.split(".")[0] for p in Path("/usr/share/man/man1").glob("*.1*")})
    pages: dict[str, str] = {}
    for name in names:
        if len(pages) == BACKGROUND_PAGES:
            break
        if f"man/{name}" not in DOCUMENTS | HELD_OUT_DOCUMENTS and (text := manual(name)) is not None:
            pages[f"background/{name}"] = text
    return pages


@dataclass(frozen=True)
class Question:
    query: str
    document: str
    answer: str | tuple[str, ...]  # regular expressions for the answering lines (each one's first match)


QUESTIONS = {
    "b1": Question("How does history expansion work?", "man/bash", r"^HISTORY EXPANSION$"),
    "b2": Question("set resource limits with ulimit", "man/bash", r"^\s+ulimit \[-HS\] -a"),
    "b3": Question("exit immediately when a command fails", "man/bash", r"^\s+-e\s+Exit\s+immediately"),
    "b4": Question("parameter expansion with a default value", "man/bash", r"^\s+\$\{parameter:-word\}"),
    "t1": Question(
        "split the current pane into two panes",
        "man/tmux",
        (r"^\s+split-window \[", r"Split the current pane into two, top and bottom"),
    ),
    "t2": Question("enter copy mode to scroll back", "man/tmux", r"^\s+copy-mode \["),
    "t3": Question("set a session or window option", "man/tmux", r"^\s+set-option \["),
    "g1": Question("select non-matching lines", "man/grep", r"^\s+-v, --invert-match"),
    "g2": Question("search directories recursively", "man/grep", r"^\s+-r, --recursive"),
    "f1": Question("files modified n days ago", "man/find", r"^\s+-mtime n"),
    "s1": Question("forward a local port to a remote host", "man/ssh", r"^\s+-L \[bind_address:\]port:host:hostport"),
    "x1": Question("extract files from an archive", "man/tar", r"^\s+-x, --extract"),
    "l1": Question("search forward for a pattern", "man/less", r"^\s+/pattern"),
    "d1": Question("edit files in place", "man/sed", r"^\s+-i\[SUFFIX\], --in-place"),
    "gt1": Question(
        "GIT_DIR environment variable for the repository location",
        "man/git",
        (r"^\s+GIT_DIR$", r"^\s+--git-dir=<path>"),
    ),
    "v1": Question("use spaces instead of tabs with expandtab", "vim/options.txt", r"^'expandtab' 'et'"),
    "v2": Question("ignore case in search patterns", "vim/options.txt", r"^'ignorecase' 'ic'"),
    "v3": Question("number of spaces that a tab counts for", "vim/options.txt", r"^'tabstop' 'ts'"),
    "p1": Question("non-greedy match: as few as possible", "vim/pattern.txt", r"^\|/\\\{-\|"),
    "c1": Question("substitute a pattern with a string", "vim/change.txt", r"^:\[range\]s\[ubstitute\]/"),
    "gp1": Question("patent license", "licence/GPL-3", r"^\s+11\. Patents\."),
    "gp2": Question("termination of the license", "licence/GPL-3", r"^\s+8\. Termination\."),
    "ap1": Question("conditions of redistribution", "licence/Apache-2.0", r"^\s+4\. Redistribution\."),
    "mp1": Question("termination", "licence/MPL-2.0", r"^5\. Termination"),
    "z1": Question("如何修改用户密码", "zh/passwd", r"passwd - 更改用户密码"),
    "z2": Question("锁定用户密码", "zh/passwd", r"锁定指定账户的密码"),
    "z3": Question("让账户密码立即过期", "zh/passwd", r"让一个账户的密码立即过期"),
    "z4": Question("更改密码过期信息", "zh/chage", r"chage - 更改用户密码过期信息"),
}
"""The first set (the "dev" set): the weighting before BM25 windows was tuned on these."""

HELD_OUT = {
    "h-cu1": Question("follow redirects", "man/curl", r"^\s+-L, --location$"),
    "h-cu2": Question("send data in a POST request", "man/curl", r"^\s+-d, --data <data>"),
    "h-cu3": Question("skip certificate verification (insecure TLS)", "man/curl", r"^\s+-k, --insecure"),
    "h-cu4": Question("save the output under the remote file's name", "man/curl", r"^\s+-O, --remote-name$"),
    "h-wg1": Question("resume a partially downloaded file", "man/wget", (r"^\s+-c$", r"^\s+--continue$")),
    "h-wg2": Question("mirror a web site", "man/wget", (r"^\s+-m$", r"^\s+--mirror$")),
    "h-sy1": Question("enable a service to start at boot", "man/systemctl", r"^\s+enable UNIT"),
    "h-sy2": Question("show the status of a unit", "man/systemctl", r"^\s+status \[PATTERN"),
    "h-gl1": Question("show each commit's changes as a patch", "man/git-log", r"^\s+-p, -u, --patch"),
    "h-gl2": Question("limit the number of commits to show", "man/git-log", r"^\s+-<number>, -n <number>"),
    "h-tp1": Question("change the delay between screen updates", "man/top", r"^\s+-d, --delay"),
    "h-tp2": Question("sort the task list by memory usage", "man/top", r"^\s+SORTING of task window"),
    "h-ps1": Question(
        "list every process on the system", "man/ps", r"To see every process on the system using standard"
    ),
    "h-sc1": Question("send keepalive messages to the server", "man/ssh_config", r"^\s+ServerAliveInterval$"),
    "h-sc2": Question("connect through a jump host", "man/ssh_config", r"^\s+ProxyJump$"),
    "h-jc1": Question("follow new journal entries as they are written", "man/journalctl", r"^\s+-f, --follow"),
    "h-dp1": Question("list installed packages", "man/dpkg", r"^\s+-l, --list"),
    "h-vq1": Question("go to the next error in the quickfix list", "vim/quickfix.txt", r"^:\[count\]cn\[ext\]"),
    "h-vs1": Question(
        "switch on syntax highlighting",
        "vim/syntax.txt",
        (r"\*:syn-enable\* \*:syntax-enable\*", r"^This command switches on syntax highlighting"),
    ),
    "h-vw1": Question("split the window vertically", "vim/windows.txt", (r"^:\[N\]vs\[plit\]", r"^CTRL-W v")),
    "h-vm1": Question("jump to the matching parenthesis", "vim/motion.txt", r"^%\s+Find the next item"),
    "h-vm2": Question("jump to a mark", "vim/motion.txt", r"^'\{a-z\}\s+`\{a-z\}"),
    "h-vp1": Question("define an abbreviation", "vim/map.txt", r"^:ab\[breviate\] \[<expr>\]"),
    "h-vb1": Question("length of a string", "vim/builtin.txt", (r"^strlen\(\{expr\}\)", r"^strlen\(\{string\}\)")),
    "h-l1": Question("no warranty", "licence/GPL-2", (r"^\s+NO WARRANTY$", r"^\s+11\. BECAUSE THE PROGRAM")),
    "h-l2": Question(
        "a program that uses the library by linking with it",
        "licence/LGPL-2.1",
        r"^\s+5\. A program that contains no derivative",
    ),
    "h-l3": Question("verbatim copying", "licence/GFDL-1.3", r"^2\. VERBATIM COPYING"),
    "h-z1": Question("重置登录失败次数", "zh/faillog", r"^\s+-r, --reset"),
    "h-z2": Question("最后一次修改密码的日期", "zh/shadow", r"最后一次更改密码的日期"),
    "h-z3": Question("用什么方法加密密码", "zh/chpasswd", r"^\s+-c, --crypt-method"),
    "h-z4": Question("显示某个用户的最近登录记录", "zh/lastlog", r"^\s+-u, --user LOGIN"),
    "h-z5": Question("创建系统组", "zh/groupadd", r"^\s+-r, --system"),
}
"""The held-out set: questions on other documents, each answering line found by reading the
document, written down before the scorer changed and never used to choose its weights."""


def answer_lines(body: list[str], patterns: str | tuple[str, ...], head: int) -> set[int]:
    """The display lines of the answers: for each pattern, the first line it matches and those
    below it up to the next non-blank line indented as little or less (at most ``PASSAGE_MAX``)."""
    if isinstance(patterns, tuple):
        return set().union(*(answer_lines(body, pattern, head) for pattern in patterns))
    pattern = patterns
    first = next(i for i, line in enumerate(body) if re.search(pattern, line))
    indent = len(body[first]) - len(body[first].lstrip())
    last = first + 1
    while last < min(len(body), first + PASSAGE_MAX):
        line = body[last]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        last += 1
    return set(range(first + head, last + head))


def opening_rows(prepared: document_text.PreparedDocument, width: int, height: int) -> list:
    """The rows the judging screen shows first (``opening_top``; before it existed, the code of
    ``DocumentView.place`` at 3a0bc52, for the "before" column)."""
    rows = document_text.Rows(prepared.lines)
    opening_top = getattr(document_text, "opening_top", None)
    if opening_top is not None:
        return rows.rows_from(opening_top(prepared, rows, height, width), height, width)
    from rankeval_tui.core.annotation.term_match import passage_weight

    top = (0, 0)
    if prepared.best is not None:
        line, weight = prepared.best
        first = rows.rows_from((0, 0), height, width)
        last_seen = first[-1][0] if first else 0
        body = len(prepared.lines) - prepared.head
        if line > last_seen and weight > passage_weight(prepared.query_matches, 0, last_seen, body):
            top = min(rows.moved((line, 0), -2, width), rows.last_top(height, width))
    return rows.rows_from(top, height, width)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--box", default="78x13", help="the document box, WIDTHxHEIGHT (78x13: 80x24)")
    parser.add_argument("--verbose", action="store_true", help="one line per question")
    parser.add_argument("--write-protocol", type=Path, help="also write these documents and queries as a protocol")
    parser.add_argument("--timing", type=int, metavar="LINES", help="time preparing a LINES-line document instead")
    args = parser.parse_args()
    if args.timing:
        time_preparing(args.timing)
        return
    width, height = map(int, args.box.split("x"))
    texts = {doc: make() for doc, make in (DOCUMENTS | HELD_OUT_DOCUMENTS).items()}
    missing = sorted(doc for doc, text in texts.items() if text is None)
    if missing:
        print(f"skipped (not on this machine): {', '.join(missing)}")
    texts = {doc: text for doc, text in texts.items() if text is not None}
    others = background()
    corpus_terms = getattr(term_match, "CorpusTerms", None)  # absent before: weights within the document
    corpus = corpus_terms([*texts.values(), *others.values()]) if corpus_terms is not None else None
    lines = sum(t.count("\n") for t in texts.values())
    print(f"documents {len(texts)} ({lines:,} lines) and {len(others)} more for the corpus, box {args.box}")
    for name, questions in (("first set (dev)", QUESTIONS), ("held-out set", HELD_OUT)):
        shown = total = 0
        for qid, question in questions.items():
            text = texts.get(question.document)
            if text is None:
                continue
            answer_shown = measure(qid, question, text, corpus, width, height, args.verbose)
            total += 1
            shown += answer_shown
        print(f"{name}: opening view shows the answer: {shown}/{total} = {100 * shown / max(1, total):.0f}%")
    if args.write_protocol:
        write_protocol(args.write_protocol, texts)


def time_preparing(lines: int) -> None:
    """Median and p90 of preparing one ``lines``-line document for each question's query."""
    page = (manual("bash") or "").split("\n")
    text = "\n".join((page * (lines // max(1, len(page)) + 1))[:lines])
    corpus_terms = getattr(term_match, "CorpusTerms", None)
    corpus = corpus_terms([text, *background().values()]) if corpus_terms is not None else None
    cpu, wall = [], []
    for question in (QUESTIONS | HELD_OUT).values():
        matcher = Matcher.for_query(question.query)
        weights = corpus.weights(matcher) if corpus is not None else None
        cpu0, wall0 = time.process_time(), time.perf_counter()
        document_text.prepare(text, None, matcher, weights)
        cpu.append(1000 * (time.process_time() - cpu0))
        wall.append(1000 * (time.perf_counter() - wall0))
    cpu.sort()
    wall.sort()
    print(
        f"prepare a {lines:,}-line document, {len(cpu)} queries: CPU p50 {cpu[len(cpu) // 2]:.1f} ms, "
        f"p90 {cpu[int(0.9 * (len(cpu) - 1))]:.1f} ms; wall p50 {wall[len(wall) // 2]:.1f} ms, "
        f"p90 {wall[int(0.9 * (len(wall) - 1))]:.1f} ms"
    )


def measure(qid: str, question: Question, text: str, corpus, width: int, height: int, verbose: bool) -> bool:
    """Whether the opening view of ``question``'s document shows its answer (one line if ``verbose``)."""
    matcher = Matcher.for_query(question.query)
    if corpus is not None:
        prepared = document_text.prepare(text, None, matcher, corpus.weights(matcher))
    else:
        prepared = document_text.prepare(text, None, matcher)
    body = prepared.lines[prepared.head :]
    answer = answer_lines(body, question.answer, prepared.head)
    rows = opening_rows(prepared, width, height)
    shown = bool(answer & {line for line, _, _ in rows})
    if verbose:
        where = f"{rows[0][0] - prepared.head + 1}-{rows[-1][0] - prepared.head + 1}"
        print(
            f"{qid:6} {'yes' if shown else 'NO ':3} answer line {min(answer) - prepared.head + 1:>5,} "
            f"view {where:>11} of {len(body):>5,}  {question.document}: {question.query}"
        )
    return shown


def write_protocol(directory: Path, texts: dict[str, str]) -> None:
    """The documents and queries as a protocol: k 10, each query's own document relevant."""
    import tomli_w

    directory.mkdir(parents=True)
    questions = QUESTIONS | HELD_OUT
    asked = {q.document for q in questions.values()}
    queries = {qid: {"text": q.query, "split": "test"} for qid, q in questions.items() if q.document in texts}
    protocol = {
        "protocol": {
            "name": "real-documents",
            "k": 10,
            "split": "test",
            "relevance": "1 if it answers the query; otherwise 0",
        },
        "documents": {doc: {"text": text} for doc, text in texts.items() if doc in asked},
        "queries": queries,
    }
    (directory / "protocol.toml").write_text(tomli_w.dumps(protocol), encoding="utf-8")
    print(f"wrote {directory / 'protocol.toml'}")


if __name__ == "__main__":
    main()
