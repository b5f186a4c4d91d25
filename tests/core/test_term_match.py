"""Which words of a document the judging screen highlights for a query (core, no terminal)."""

from __future__ import annotations

import math

from rankeval_tui.core.annotation.term_match import (
    CorpusTerms,
    Match,
    Matcher,
    best_passage,
    fold,
    query_terms,
    section_start,
    stem,
)


def words(matcher: Matcher, lines: list[str]) -> list[str]:
    return [lines[m.line][m.start : m.end] for m in matcher.find(lines)]


def test_folding_is_case_and_width_blind() -> None:
    assert fold("Ｅｘｐｏｒｔ PDF") == "export pdf"
    assert fold("Straße") == "strasse"
    assert fold("ＡＢＣ１２３") == "abc123"


def test_stems_keep_at_least_three_letters() -> None:
    assert [stem(w) for w in ("exporting", "exports", "settings", "queries", "configure", "boxes", "run")] == [
        "export",
        "export",
        "sett",
        "quer",
        "configur",
        "box",
        "run",
    ]


def test_query_terms_drop_stopwords_unless_nothing_else_is_left() -> None:
    assert query_terms("How do I export my settings to PDF?") == ("export", "sett", "pdf")
    assert query_terms("the") == ("the",)
    assert query_terms("Export, export, EXPORT") == ("export",)


def test_chinese_queries_give_character_bigrams_without_question_words() -> None:
    assert query_terms("怎样重新下载失败的文件？") == ("重新", "新下", "下载", "载失", "失败", "文件")
    assert query_terms("同步") == ("同步",)
    assert query_terms("导出PDF文件") == ("导出", "pdf", "文件")


def test_prefix_matching_starts_at_a_word_start() -> None:
    matcher = Matcher.for_query("exporting settings")
    assert words(matcher, ["Exported Settings and re-exports", "reexport, Setting", "EXPORTS"]) == [
        "Exported",
        "Settings",
        "exports",
        "Setting",
        "EXPORTS",
    ]


def test_short_terms_match_whole_words_only() -> None:
    assert words(Matcher.for_query("os ui"), ["os/ui in macOS and built-in"]) == ["os", "ui"]


def test_full_width_and_case_folded_text_is_found_at_its_own_characters() -> None:
    lines = ["Ｅｘｐｏｒｔ here", "Straße and STRASSE"]
    found = Matcher.for_text("strasse").find(lines)
    assert [lines[m.line][m.start : m.end] for m in found] == ["Straße", "STRASSE"]
    assert words(Matcher.for_query("export"), lines) == ["Ｅｘｐｏｒｔ"]


def test_chinese_bigrams_match_inside_a_sentence_and_say_which_term() -> None:
    matcher = Matcher.for_query("怎样重新下载失败的文件？")
    line = "下载故障指南：连接断开后可点击重试，重新下载文件。"
    found = matcher.find([line])
    assert [line[m.start : m.end] for m in found] == ["下载", "重新", "新下", "下载", "文件"]
    assert [matcher.terms[m.term] for m in found] == ["下载", "重新", "新下", "下载", "文件"]


def test_english_term_next_to_chinese_characters() -> None:
    line = "导出PDF文件"
    assert [line[m.start : m.end] for m in Matcher.for_query("pdf").find([line])] == ["PDF"]


def test_a_searched_text_matches_inside_words() -> None:
    assert words(Matcher.for_text("port"), ["export, Portable"]) == ["port", "Port"]
    assert Matcher.for_text("   ").find(["anything"]) == []


def test_matches_carry_their_line() -> None:
    found = Matcher.for_query("sync").find(["a", "b sync", "", "synced c"])
    assert found == [Match(1, 2, 6, 0), Match(3, 0, 6, 0)]


UNIFORM = {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}


def body(lines: int) -> list[str]:
    return ["       filler text of a long manual page that says nothing much at all here"] * lines


def test_best_passage_prefers_distinct_terms_over_repetition() -> None:
    matches = [Match(line, 4, 5, 0) for line in range(0, 5)]  # one term, five times, at the top
    matches += [Match(200, 4, 5, 0), Match(203, 4, 5, 1), Match(205, 4, 5, 2)]  # all three terms
    assert best_passage(matches, 10, UNIFORM, body(1000)) == (200, 3.0)
    assert best_passage([], 10, UNIFORM, body(1000)) is None


def test_best_passage_weighs_terms_rare_in_the_corpus_above_generic_ones() -> None:
    """``side`` and ``instead`` (in most documents of the corpus) meet at the page's end; the
    corpus-rare ``expandtab`` stands alone in the middle: that is the passage."""
    matches = [Match(500, 4, 13, 2), Match(900, 4, 8, 0), Match(901, 4, 8, 1)]
    assert best_passage(matches, 10, {0: 0.2, 1: 0.3, 2: 4.0}, body(1000)) == (500, 4.0)


def test_best_passage_prefers_a_heading_that_starts_with_a_term_and_opens_on_it() -> None:
    """Two stretches hold both terms; the one whose line starts with a term and introduces an
    indented paragraph (an option's name) wins. A passage below a heading opens on the heading."""
    lines = body(80)
    lines[10] = "       with expandtab the tab key inserts spaces, as described below in full"
    lines[40] = "       -e, --expandtab"
    lines[41] = "              insert spaces instead of a tab"
    matcher = Matcher.for_query("expandtab tab")
    weights = {0: 2.0, 1: 1.0}
    assert (best_passage(matcher.find(lines), 10, weights, lines) or (None,))[0] == 40
    lines[40] = "       -e"  # the option's name holds no term: a passage below it opens on it
    assert section_start(lines, 41, 10) == 40
    assert section_start(lines, 10, 10) == 10  # no heading above: the passage's own line


def test_corpus_terms_count_the_documents_holding_each_term() -> None:
    corpus = CorpusTerms(["the export menu", "Export and EXPORTS", "nothing here", "设置密码"])
    matcher = Matcher.for_query("export 密码 zebra")
    weights = corpus.weights(matcher)
    expected = [math.log(1 + (4 - n + 0.5) / (n + 0.5)) for n in (2, 1, 0)]
    assert [weights[i] for i in range(3)] == expected  # export in 2 documents, 密码 in 1, zebra in none


def test_overlapping_chinese_bigrams_all_light_up() -> None:
    """如何修改用户密码 against 更改用户密码: 改用, 用户, 户密 and 密码 overlap; all are found."""
    line = "passwd - 更改用户密码"
    found = Matcher.for_query("如何修改用户密码").find([line])
    assert [line[m.start : m.end] for m in found] == ["改用", "用户", "户密", "密码"]


def test_best_passage_ties_go_to_the_earliest() -> None:
    matches = [Match(3, 0, 1, 0), Match(4, 0, 1, 1), Match(50, 0, 1, 0), Match(51, 0, 1, 1)]
    assert (best_passage(matches, 10, UNIFORM, body(100)) or (None,))[0] == 3


def test_a_plural_and_its_singular_get_one_stem() -> None:
    """``panes`` and ``pane`` were two terms (``pane``, ``pan``): one query word counted twice."""
    assert stem("panes") == stem("pane") == "pan"
    assert stem("files") == stem("file") and stem("frees") == stem("free")
    assert query_terms("split the current pane into two panes") == ("split", "current", "pan", "two")


def test_bm25_saturates_a_repeated_term_below_a_second_distinct_one() -> None:
    """A term five times in one window scores less than two distinct terms once each (BM25's
    k1), but more than the same term once: repetition counts, with diminishing returns."""
    five = [Match(line, 0, 4, 0) for line in range(100, 105)]
    once = [Match(300, 0, 4, 0)]
    two = [Match(500, 0, 4, 0), Match(502, 0, 4, 1)]
    lines = body(1000)
    repeated = best_passage(five, 10, UNIFORM, lines)
    single = best_passage(once, 10, UNIFORM, lines)
    pair = best_passage(two, 10, UNIFORM, lines)
    assert repeated is not None and single is not None and pair is not None
    assert single[1] < repeated[1] < pair[1]
    assert best_passage(five + once + two, 10, UNIFORM, lines) == pair


def test_bm25_prefers_a_short_window_to_a_long_one_with_the_same_terms() -> None:
    """The same two terms once each: in a window of short lines (a definition) and in one of
    long paragraph lines; the short window wins (length normalised by the document's average)."""
    lines = body(200)
    for number in range(20, 30):
        lines[number] = "       " + "long paragraph text that goes on and on " * 4
    for number in range(120, 130):
        lines[number] = "   short text"
    # each match after a word (9:13): no line starts with a term, so no heading bonus decides
    matches = [Match(20, 9, 13, 0), Match(22, 9, 13, 1), Match(120, 9, 13, 0), Match(122, 9, 13, 1)]
    assert (best_passage(matches, 10, UNIFORM, lines) or (None,))[0] == 120


def test_query_words_side_by_side_in_order_count_as_a_phrase() -> None:
    """``history expansion`` written as the query writes it beats the two words apart, and
    beats them side by side in the other order."""
    lines = body(300)
    lines[30] = "       expansion of the history is described here in other words than"
    lines[130] = "       the expansion history of the shell is kept in a file named by a variable"
    lines[230] = "       the history expansion is performed immediately after a complete line"
    matcher = Matcher.for_query("history expansion")
    assert (best_passage(matcher.find(lines), 10, {0: 1.0, 1: 1.0}, lines) or (None,))[0] == 230


def test_overlapping_chinese_bigrams_choose_the_passage_that_holds_them_in_order() -> None:
    """如何修改用户密码: the line holding 修改用户密码 (every bigram, in order, overlapping) wins
    over lines holding 用户 and 密码 apart, in a document too long to open at its start."""
    lines = ["       用户的登录名和他们的其他信息"] * 200
    lines[50] = "       用户需要一个密码才能登录"
    lines[150] = "       修改用户密码的方法如下"
    matcher = Matcher.for_query("如何修改用户密码")
    weights = dict.fromkeys(range(len(matcher.terms)), 1.0)
    assert (best_passage(matcher.find(lines), 10, weights, lines) or (None,))[0] == 150


def test_a_heading_of_several_lines_is_read_from_its_first() -> None:
    """ssh's ``-L`` has four forms, one a line, above one description: a passage in the
    description opens on the first form, not the last; lines of a list that no indented text
    follows are not one heading."""
    lines = body(40)
    lines[10:16] = [
        "     -L [bind_address:]port:host:hostport",
        "     -L [bind_address:]port:remote_socket",
        "     -L local_socket:host:hostport",
        "     -L local_socket:remote_socket",
        "             Specifies that connections to the given TCP port or Unix socket",
        "             on the local (client) host are to be forwarded to the given host",
    ]
    assert section_start(lines, 15, 10) == 10
    lines[20:24] = ["     one", "     two", "     three", "     four"]  # a list, no indented text below
    assert section_start(lines, 22, 10) == 22
