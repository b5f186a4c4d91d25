"""The judging screen and everything only it uses: its keys, status wording, dialogs, the query
head, and the overview (the matrix of every pair, a jump to any).

Grouped by area so a change to judging stays in one folder; widgets more than one screen uses
stay in ``tui/widgets/``."""
