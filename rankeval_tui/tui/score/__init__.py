"""The scoring screen, its query drill-down and the widgets only they use.

Why a package: the scoring screen's views, cells, tables and statistics lines change together and
for other reasons than the judging and adjudication screens; ``tui/widgets`` keeps what those share.
"""
