"""A footer whose help and quit keys stay visible at any width.

Textual's ``Footer`` cuts its keys off at the right edge, and at 80 columns the judging
screens' last keys (help and quit) fell off. This footer puts the other keys in a group that
takes the room left and the pinned actions' keys after it, at the right edge. A key that does
not fit whole in the group is hidden rather than cut ("n" without its "Note"): ``?`` lists all.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # the key widget Footer composes; no public name


class PinnedFooter(Footer):
    """``Footer`` with the keys of the ``pinned`` actions always shown at its right edge."""

    DEFAULT_CSS = """
    PinnedFooter > .footer-unpinned { width: 1fr; height: 1; overflow: hidden hidden; margin-right: 1; }
    PinnedFooter.-compact FooterLabel { margin: 0 1 0 0; }
    """
    """The last rule keeps a space after a group's label (``[ ] Query``): the compact footer's
    zero margin glued it to the next key ("Queryg")."""

    def __init__(self, pinned: Iterable[str], *, compact: bool = True) -> None:
        super().__init__(compact=compact)
        self.pinned = tuple(pinned)

    def compose(self) -> ComposeResult:
        pinned: list[FooterKey] = []
        # Everything Footer composes goes into the group (its binding groups too, through the
        # compose context), except the pinned keys, which follow it.
        with HorizontalGroup(classes="footer-unpinned"):
            for widget in super().compose():
                if isinstance(widget, FooterKey) and widget.action in self.pinned:
                    pinned.append(widget)
                else:
                    yield widget
        yield from pinned

    def on_mount(self) -> None:
        super().on_mount()
        self.call_after_refresh(self.hide_cut_keys)

    def on_resize(self) -> None:
        for key in self.query(".footer-unpinned > *"):
            key.display = True  # laid out again at the new width, then the cut ones hidden
        self.call_after_refresh(self.hide_cut_keys)

    async def recompose(self) -> None:
        await super().recompose()
        self.call_after_refresh(self.hide_cut_keys)

    def hide_cut_keys(self) -> None:
        """Hide, from the first key that does not fit whole, every key after it in the group."""
        groups = self.query(".footer-unpinned")
        if not groups:
            return
        right = groups.first().region.right
        cut = False
        for key in groups.first().children:
            cut = cut or key.region.right > right
            if cut:
                key.display = False
