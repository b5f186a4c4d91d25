"""The judging screen's keys, declared once: the screen's BINDINGS, its footer and its ? help.

Why a module: the declarations are a third of the screen's class and change for other reasons
(a key's wording, the footer's room) than its behaviour; the ids (``judge.*``) are what tests and
keymaps name, so they stay exactly as they were.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

PAIR_KEYS = Binding.Group("Pair", compact=True)
QUERY_KEYS = Binding.Group("Query")
JUDGE_BINDINGS: list[BindingType] = [
    # A binary protocol's keys (label), then a graded one's (grade): its footer shows one entry
    # "0-3 Grade" (the words are the legend under the criterion), one per possible top grade,
    # and each grade key on its own in ? help. The screen's check_action keeps its scale's keys.
    Binding("1", "label(1)", "Relevant", tooltip="mark relevant (1) and move on", id="judge.relevant"),
    Binding("0", "label(0)", "Not relevant", tooltip="mark not relevant (0) and move on", id="judge.not_relevant"),
    *(
        Binding(
            "0",
            f"grade(0,{top})",
            "Grade",
            key_display=f"0-{top}",
            tooltip=f"give a grade 0-{top} and move on (the words: the legend under the criterion)",
            id=f"judge.grades_to_{top}",
        )
        for top in range(1, 10)
    ),
    *(
        Binding(str(grade), f"grade({grade})", f"Grade {grade}", show=False, id=f"judge.grade_{grade}")
        for grade in range(1, 10)
    ),
    Binding(
        "left,h",
        "step(-1)",
        "Prev",
        key_display="←",
        tooltip="previous pair (also h)",
        group=PAIR_KEYS,
        id="judge.prev",
    ),
    Binding(
        "right,l", "step(1)", "Next", key_display="→", tooltip="next pair (also l)", group=PAIR_KEYS, id="judge.next"
    ),
    Binding(
        "left_square_bracket",
        "step_query(-1)",
        "Prev query",
        key_display="[",
        tooltip="first pair of the previous query",
        group=QUERY_KEYS,
        id="judge.prev_query",
    ),
    Binding(
        "right_square_bracket",
        "step_query(1)",
        "Next query",
        key_display="]",
        tooltip="first pair of the next query",
        group=QUERY_KEYS,
        id="judge.next_query",
    ),
    Binding(
        "m",
        "step_match(1)",
        "Match",
        tooltip="next highlighted passage (query terms, or the text found with /)",
        show=False,
        id="judge.next_match",
    ),
    Binding(
        "M",
        "step_match(-1)",
        "Prev match",
        tooltip="previous highlighted passage",
        show=False,
        id="judge.prev_match",
    ),
    Binding(
        "slash", "find", "Find", key_display="/", tooltip="find any text in the document", show=False, id="judge.find"
    ),
    Binding("g", "next_unjudged", "Unjudged", tooltip="jump to the next unjudged pair", id="judge.next_unjudged"),
    Binding("u", "undo", "Undo", tooltip="undo the last change (whole session, across restarts)", id="judge.undo"),
    # m, M, /, redo and write are listed by ? (help) and the document box's border only: the footer keeps room for the keys used on every pair
    Binding("ctrl+r,U", "redo", "Redo", key_display="^r", tooltip="redo (also U)", show=False, id="judge.redo"),
    Binding("n", "note", "Note", tooltip="write a note on this pair", id="judge.note"),
    Binding("d", "dispute", "Dispute", tooltip="toggle the disputed flag of this pair", id="judge.dispute"),
    Binding("o", "overview", "Overview", tooltip="matrix of all pairs; jump to any", id="judge.overview"),
    Binding(
        "e",
        "toggle_need",
        "Need",
        tooltip="need and relevance in full, or folded to one line",
        id="judge.toggle_need",
    ),
    Binding(
        "w",
        "write",
        "Write",
        tooltip="write qrels.toml now (when every pair is judged)",
        show=False,
        id="judge.write",
    ),
    Binding("question_mark", "help", "Help", key_display="?", tooltip="show these keys", id="judge.help"),
    Binding(
        "q",
        "quit_judging",
        "Quit",
        tooltip="quit: writes qrels if complete, else keeps the journal",
        id="judge.quit",
    ),
]
