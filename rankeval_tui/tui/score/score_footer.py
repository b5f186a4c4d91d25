"""The screens' footer: Textual's, fitted to the width, and rebuilt only when that changes."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

KEPT_ACTIONS = ("help", "app.quit", "app.pop_screen")
"""Keys a footer never drops for lack of room: a viewer must always see how to get help and out."""


def key_width(binding: Binding, key_display: str, compact: bool) -> int:
    """Cells one ``FooterKey`` takes: Textual pads the key by one each side and the description
    by one on the right, or (compact) one between them and a one-cell margin after."""
    return cell_len(key_display) + cell_len(binding.description) + (2 if compact else 3)


def fitted(widths: Sequence[int], kept: Sequence[bool], room: int) -> list[bool]:
    """Which keys to show in ``room`` cells: every kept one, then the others in their order
    while they fit (a later short key may fit where an earlier long one did not)."""
    left = room - sum(width for width, keep in zip(widths, kept) if keep)
    shown = []
    for width, keep in zip(widths, kept):
        fits = keep or width <= left
        if fits and not keep:
            left -= width
        shown.append(fits)
    return shown


class ScoreFooter(Footer):
    """The stock footer, showing the keys that fit the width (help and quit always), and not
    rebuilt when the keys it would show are the ones it shows.

    Why fitted: at 80 columns the scoring screen's keys overflowed and the stock footer cut
    them off on the right, help and quit included; the keys left out are in the help (``?``).
    Why cached: Textual's ``Footer`` recomposes (a new widget per key, each one styled) on every
    bindings signal, and one ``v`` sends several (focus leaves the hidden table, enters the other,
    and once more after the refresh): the footer was rebuilt twice per ``v``, three times at start,
    each rebuild on the key's path. What it shows is compared, not assumed: keys, actions,
    descriptions, enabled state and tooltips, the width, and the footer's own display settings."""

    _shown: tuple[Any, ...] | None = None
    _rebuilding: asyncio.Lock | None = None

    def _shown_bindings(self) -> list[tuple[Binding, bool, str]]:
        """The shown bindings, one per action (as the stock footer groups them)."""
        by_action: dict[str, tuple[Binding, bool, str]] = {}
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show:
                by_action.setdefault(binding.action, (binding, enabled, tooltip))
        return list(by_action.values())

    def _showing(self) -> tuple[Any, ...]:
        keys = tuple(
            (binding.key, binding.action, binding.description, binding.key_display, enabled, tooltip)
            for binding, enabled, tooltip in self._shown_bindings()
        )
        return keys, self.room(), self.compact, self.show_command_palette, self.combine_groups

    def room(self) -> int:
        """The width to fit: the footer's, or the app's before the footer is laid out (docked at
        the bottom, it spans the screen), so the first layout does not rebuild it once more."""
        return self.size.width or self.app.size.width

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        bindings = self._shown_bindings()
        displays = [self.app.get_key_display(binding) for binding, _, _ in bindings]
        widths = [key_width(binding, shown, self.compact) for (binding, _, _), shown in zip(bindings, displays)]
        kept = [binding.action in KEPT_ACTIONS for binding, _, _ in bindings]
        for (binding, enabled, tooltip), display, show in zip(bindings, displays, fitted(widths, kept, self.room())):
            if show:
                yield FooterKey(
                    binding.key, display, binding.description, binding.action, disabled=not enabled, tooltip=tooltip
                ).data_bind(compact=Footer.compact)

    def on_resize(self, event: events.Resize) -> None:
        self.call_later(self.recompose)

    async def recompose(self) -> None:
        """Rebuild unless what it would show is shown, one rebuild at a time.

        Why one at a time: a rebuild awaits the removal and mounting of its keys, and a second
        one started meanwhile (the bindings signal after the load, beside the one at start)
        could finish first, leaving the older keys on screen (``v`` greyed though two runs were
        loaded) while ``_shown`` named the newer ones. Serialised, each compares afresh."""
        if self._rebuilding is None:
            self._rebuilding = asyncio.Lock()
        async with self._rebuilding:
            showing = self._showing() if self._bindings_ready and self.is_attached else None
            if showing is not None and showing == self._shown:
                return
            self._shown = showing
            await super().recompose()

    def showing_current_keys(self) -> bool:
        """No rebuild running, and the keys shown are the screen's current ones (tests wait on it)."""
        idle = self._rebuilding is None or not self._rebuilding.locked()
        return idle and (not self._bindings_ready or self._shown == self._showing())
