"""The footer, able to show only the keys that matter now (presenting mode's essentials)."""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.widgets import Footer


class WalkFooter(Footer):
    """Textual's footer; with :attr:`only` set, it shows just those actions' keys (and the palette's)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.only: frozenset[str] | None = None

    def show_only(self, actions: Iterable[str] | None) -> None:
        """Show only ``actions``' keys (``None``: every key that asks to be shown)."""
        self.only = frozenset(actions) if actions is not None else None
        self.call_later(self.recompose)  # on this widget's own loop: its keys bind to it

    def compose(self) -> ComposeResult:
        kept = 0
        for widget in super().compose():
            action = getattr(widget, "action", None)  # a key of the footer (FooterKey) names its action
            if self.only is None or action is None or action in self.only or widget.has_class("-command-palette"):
                kept += 1
                yield widget
        if self.only is not None:
            self.styles.grid_size_columns = kept  # the footer is a grid of one column per key shown
