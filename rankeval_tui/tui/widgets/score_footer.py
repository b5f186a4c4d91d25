"""The scoring screen's footer: Textual's, rebuilt only when what it shows changes."""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer


class ScoreFooter(Footer):
    """The stock footer, not rebuilt when the keys it would show are the ones it shows.

    Why: Textual's ``Footer`` recomposes (a new widget per key, each one styled) on every
    bindings signal, and one ``v`` sends several (focus leaves the hidden table, enters the other,
    and once more after the refresh): the footer was rebuilt twice per ``v``, three times at start,
    ~20-30 ms each on this machine. What it shows is compared, not assumed: keys, actions,
    descriptions, enabled state and tooltips, and the footer's own display settings."""

    _shown: tuple[Any, ...] | None = None

    def _showing(self) -> tuple[Any, ...]:
        keys = tuple(
            (binding.key, binding.action, binding.description, binding.key_display, enabled, tooltip)
            for _, binding, enabled, tooltip in self.screen.active_bindings.values()
            if binding.show
        )
        return keys, self.compact, self.show_command_palette, self.combine_groups

    async def recompose(self) -> None:
        showing = self._showing() if self._bindings_ready and self.is_attached else None
        if showing is not None and showing == self._shown:
            return
        self._shown = showing
        await super().recompose()
