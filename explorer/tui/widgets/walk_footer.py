"""The footer, able to show only the keys that matter now: presenting mode's essentials, or on a screen too narrow
for every key, all but those a walk can do without (they are in the help and the palette)."""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer


class WalkFooter(Footer):
    """Textual's footer; with :attr:`only` set, it shows just those actions' keys (and the palette's), and narrower
    than ``narrow_below`` columns, compact, every key but ``narrow_hides``' actions'."""

    def __init__(self, *, narrow_hides: Iterable[str] = (), narrow_below: int = 0, id: str | None = None) -> None:
        super().__init__(id=id)
        self.only: frozenset[str] | None = None
        self.narrow_hides = frozenset(narrow_hides)
        self.narrow_below = narrow_below
        self.narrow = False

    def show_only(self, actions: Iterable[str] | None) -> None:
        """Show only ``actions``' keys (``None``: every key that asks to be shown)."""
        self.only = frozenset(actions) if actions is not None else None
        self.call_later(self.recompose)  # on this widget's own loop: its keys bind to it

    def on_resize(self, event: events.Resize) -> None:
        narrow = event.size.width < self.narrow_below
        if narrow != self.narrow:
            self.narrow = narrow
            self.compact = narrow  # keys closer together
            self.call_later(self.recompose)

    def compose(self) -> ComposeResult:
        hidden = self.narrow_hides if self.narrow and self.only is None else frozenset()
        kept = 0
        for widget in super().compose():
            action = getattr(widget, "action", None)  # a key of the footer (FooterKey) names its action
            if widget.has_class("-command-palette") or action is None or (
                    action not in hidden and (self.only is None or action in self.only)):
                kept += 1
                yield widget
        self.styles.grid_size_columns = kept  # the footer is a grid of one column per key shown
