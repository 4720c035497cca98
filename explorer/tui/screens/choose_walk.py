"""Choose one of the session's walks by name (to switch to it, or to compare with it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList

from ...safe_text import safe, visible


class WalksScreen(ModalScreen[int | None]):
    """Pick one of the session's walks by name; returns its number."""

    CSS_PATH = Path(__file__).with_name("choose_walk.tcss")

    BINDINGS = [Binding("escape,w", "dismiss(None)", "Close", id="walks.close")]

    def __init__(self, names: Sequence[str], current: int, *,
                 title: str = "Walks of this session — Enter switches, Escape closes") -> None:
        super().__init__()
        self.names = list(names)
        self.current = current
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="walks-dialog"):
            yield Label(Text(visible(self.title_text)), id="walks-title")
            yield OptionList(*[safe(("▶ " if n == self.current else "  ") + name, width=160) for n, name in
                               enumerate(self.names, start=1)], id="walks-list")

    def on_mount(self) -> None:
        options = self.query_one("#walks-list", OptionList)
        options.highlighted = max(0, self.current - 1)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index + 1)
