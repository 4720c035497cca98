"""A screen closes once: a key queued to it before it closed (Enter typed twice in a blink) dismisses nothing.

Textual hands a key to the screen on top when the key is dispatched; a second Enter already in a closing screen's
queue then ran its handler after the screen had left the stack, and ``dismiss`` popped whatever screen was on top
instead: the walk screen itself (``ScreenStackError``, the app gone with the session's walks), or an evaluation
under a prompt. Every screen of the explorer that can be dismissed, and its command palette, take this mixin.
"""

from __future__ import annotations

from typing import Any

from textual.app import ScreenStackError
from textual.await_complete import AwaitComplete
from textual.command import CommandPalette
from textual.screen import Screen


class ClosesOnce:
    """Mixed into a :class:`Screen` before it: ``dismiss`` does nothing once the screen is not the one on top (a
    handler that acts and then closes asks :attr:`on_top` first)."""

    @property
    def on_top(self) -> bool:
        """Whether this screen is the one on top: a key or a row chosen for it now is meant for it."""
        assert isinstance(self, Screen)
        try:
            return self.app.screen is self
        except ScreenStackError:  # the app is closing: no screen is left
            return False

    def dismiss(self, result: Any = None) -> AwaitComplete:
        if not self.on_top:
            return AwaitComplete()  # closed already, or covered: the key was meant for it, not for what is on top
        return super().dismiss(result)  # type: ignore[misc,no-any-return]


class Palette(ClosesOnce, CommandPalette):
    """Textual's command palette, closing once (Escape, ctrl+p, Enter, ctrl+p, Enter typed fast crashed it)."""
