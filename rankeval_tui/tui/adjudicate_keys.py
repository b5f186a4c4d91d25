"""The adjudication screen's keys, declared once: its BINDINGS, footer and ? help.

Why a module: as for the judging screen (``judge.keys``), the declarations change for other
reasons than the screen's behaviour; the ids (``adjudicate.*``) are what tests and keymaps name.
``HELP_ONLY`` lists the keys other widgets handle (the queue's and the document's arrows), so
``?`` names every key that does something here.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

ADJUDICATE_BINDINGS: list[BindingType] = [
    Binding(
        "0",
        "choose(0)",
        "Final 0",
        tooltip="final label 0 for this pair (on screen), then type the reason",
        id="adjudicate.final_0",
    ),
    Binding(
        "1",
        "choose(1)",
        "Final 1",
        tooltip="final label 1 for this pair (on screen), then type the reason",
        id="adjudicate.final_1",
    ),
    # priority: the queue would take ← → to scroll sideways; the reason field keeps them (check_action)
    Binding(
        "right,l",
        "step(1)",
        "Next",
        key_display="→ l",
        show=False,
        priority=True,
        tooltip="the next disagreement",
        id="adjudicate.next",
    ),
    Binding(
        "left,h",
        "step(-1)",
        "Previous",
        key_display="← h",
        show=False,
        priority=True,
        tooltip="the previous disagreement",
        id="adjudicate.previous",
    ),
    Binding(
        "n",
        "next_undecided",
        "Next undecided",
        tooltip="the next pair without a decision",
        id="adjudicate.next_undecided",
    ),
    Binding(
        "tab",
        "switch_focus",
        "Queue/document",
        key_display="Tab",
        show=False,
        tooltip="the arrows: in the queue or the document (shows a folded queue)",
        id="adjudicate.switch_focus",
    ),
    Binding("t", "toggle_queue", "Queue", show=False, tooltip="show or fold the queue", id="adjudicate.queue"),
    Binding(
        "e",
        "toggle_notes",
        "Notes",
        show=False,
        tooltip="unfold or fold the query's need and both notes in full",
        id="adjudicate.notes",
    ),
    Binding(
        "slash",
        "find",
        "Find",
        key_display="/",
        show=False,
        tooltip="find a text in the document",
        id="adjudicate.find",
    ),
    Binding(
        "m",
        "step_match(1)",
        "Next match",
        show=False,
        tooltip="the next match (query terms or found text)",
        id="adjudicate.match_next",
    ),
    Binding(
        "M",
        "step_match(-1)",
        "Previous match",
        show=False,
        tooltip="the previous match",
        id="adjudicate.match_previous",
    ),
    Binding(
        "w",
        "write",
        "Write qrels",
        tooltip="write the qrels now (when every pair is decided)",
        id="adjudicate.write",
    ),
    Binding("question_mark", "help", "Help", key_display="?", tooltip="show these keys", id="adjudicate.help"),
    Binding(
        "q",
        "quit_keep",
        "Quit",
        tooltip="quit: writes if all are decided, else keeps the journal",
        id="adjudicate.quit",
    ),
    Binding(
        "escape",
        "cancel",
        "Cancel",
        key_display="esc",
        tooltip="drop the pending choice and its reason",
        id="adjudicate.cancel",
    ),
]

HELP_ONLY: list[Binding] = [
    Binding("up,down", "", "", key_display="↑ ↓", tooltip="queue: the previous/next disagreement; document: a row"),
    Binding("pageup,pagedown", "", "", key_display="PgUp PgDn", tooltip="document: a screen up/down (space too)"),
    Binding("home,end", "", "", key_display="Home End", tooltip="document: its start/end"),
    Binding("enter", "", "", key_display="Enter", tooltip="records the pending final label with the typed reason"),
]
"""Keys handled by the queue, the document or the reason field, listed by ``?`` beside the screen's."""
