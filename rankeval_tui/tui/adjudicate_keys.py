"""The adjudication screen's keys, declared once: its BINDINGS, footer and ? help.

Why a module: as for the judging screen (``judge.keys``), the declarations change for other
reasons than the screen's behaviour; the ids (``adjudicate.*``) are what tests and keymaps name.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

ADJUDICATE_BINDINGS: list[BindingType] = [
    Binding(
        "0",
        "choose(0)",
        "Final 0",
        tooltip="final label 0 for this pair, then type the reason",
        id="adjudicate.final_0",
    ),
    Binding(
        "1",
        "choose(1)",
        "Final 1",
        tooltip="final label 1 for this pair, then type the reason",
        id="adjudicate.final_1",
    ),
    Binding(
        "n",
        "next_undecided",
        "Next undecided",
        tooltip="the next pair without a decision",
        id="adjudicate.next_undecided",
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
