"""Which words of a document the judging screen highlights for a query (core, no terminal)."""

from __future__ import annotations

from rankeval_tui.core.annotation.term_match import (
    Match,
    Matcher,
    best_passage,
    fold,
    passage_weight,
    query_terms,
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
    assert [line[m.start : m.end] for m in found] == ["下载", "重新", "下载", "文件"]
    assert [matcher.terms[m.term] for m in found] == ["下载", "重新", "下载", "文件"]


def test_english_term_next_to_chinese_characters() -> None:
    line = "导出PDF文件"
    assert [line[m.start : m.end] for m in Matcher.for_query("pdf").find([line])] == ["PDF"]


def test_a_searched_text_matches_inside_words() -> None:
    assert words(Matcher.for_text("port"), ["export, Portable"]) == ["port", "Port"]
    assert Matcher.for_text("   ").find(["anything"]) == []


def test_matches_carry_their_line() -> None:
    found = Matcher.for_query("sync").find(["a", "b sync", "", "synced c"])
    assert found == [Match(1, 2, 6, 0), Match(3, 0, 6, 0)]


def test_best_passage_prefers_distinct_terms_over_repetition() -> None:
    matches = [Match(line, 0, 1, 0) for line in range(0, 5)]  # one term, five times, at the top
    matches += [Match(200, 0, 1, 0), Match(203, 0, 1, 1), Match(205, 0, 1, 2)]  # all three terms
    line, weight = best_passage(matches, 10, 1000) or (None, None)
    assert line == 200
    assert weight == passage_weight(matches, 200, 209, 1000) > passage_weight(matches, 0, 20, 1000)
    assert best_passage([], 10, 1000) is None


def test_best_passage_weighs_rare_terms_above_common_ones() -> None:
    """Two terms found all over a manual (``set``, ``size``) meet at its end; the two rare ones
    (``readline``, ``history``) meet once in the middle: that is the passage."""
    common = [Match(line, 0, 1, term) for line in range(0, 1000, 20) for term in (0, 1)]
    rare = [Match(500, 0, 1, 2), Match(502, 0, 1, 3)]
    matches = sorted(common + rare + [Match(990, 0, 1, 0), Match(991, 0, 1, 1)])
    assert best_passage(matches, 10, 1000) == (500, passage_weight(matches, 500, 509, 1000))


def test_best_passage_ties_go_to_the_earliest() -> None:
    matches = [Match(3, 0, 1, 0), Match(4, 0, 1, 1), Match(50, 0, 1, 0), Match(51, 0, 1, 1)]
    assert (best_passage(matches, 10, 100) or (None,))[0] == 3
