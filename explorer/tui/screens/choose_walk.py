"""Choose one of the session's walks by name (to switch to it, or to compare with it), filtered by what is typed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from ...safe_text import safe, visible
from .closing_once import ClosesOnce


class WalksScreen(ClosesOnce, ModalScreen[int | None]):
    """Pick one of the session's walks by name; returns its place in ``names`` (1-based).

    Typing filters the list: a walk stays when every word typed is in its query (``queries``, one per name), or
    every one in its name, in any case. A walk whose name does not say its query (a trace's) shows it after the name,
    and then where it came from (``sources``, one per name: ``live``, ``from session 2026-12-05 10:31``)."""

    CSS_PATH = Path(__file__).with_name("choose_walk.tcss")

    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="walks.close")]

    def __init__(self, names: Sequence[str], current: int, *, queries: Sequence[str] = (), sources: Sequence[str] = (),
                 title: str = "Walks of this session — Enter switches, type to filter, Escape closes") -> None:
        super().__init__()
        self.names = list(names)
        self.queries = list(queries) + [""] * (len(self.names) - len(queries))
        self.sources = list(sources) + [""] * (len(self.names) - len(sources))
        self.current = current
        self.title_text = title
        self.shown: list[int] = []
        """The 1-based places in ``names`` of the rows listed now, in order."""

    def compose(self) -> ComposeResult:
        with Vertical(id="walks-dialog"):
            yield Label(Text(visible(self.title_text)), id="walks-title")
            yield Input(placeholder="filter: words of a walk's name or query", id="walks-filter")
            yield OptionList(id="walks-list")

    def on_mount(self) -> None:
        self._list("")
        options = self.query_one("#walks-list", OptionList)
        options.highlighted = self.shown.index(self.current) if self.current in self.shown else 0
        options.focus()

    def _row(self, number: int) -> Text:
        name, query = self.names[number - 1], self.queries[number - 1]
        text = safe(("▶ " if number == self.current else "  ") + name, width=160)
        if query and " ".join(query.split()) not in name:
            text.append_text(safe(f"  “{' '.join(query.split())}”", "dim", width=100))
        if self.sources[number - 1]:
            text.append_text(safe(f"  · {self.sources[number - 1]}", "dim italic", width=100))
        return text

    def _list(self, typed: str) -> None:
        words = typed.lower().split()
        self.shown = [n for n, texts in enumerate(zip(self.names, self.queries, strict=True), start=1)
                      if any(all(w in text.lower() for w in words) for text in texts)]
        options = self.query_one("#walks-list", OptionList)
        options.clear_options()
        options.add_options([Option(self._row(n), id=str(n)) for n in self.shown])
        if self.shown:
            options.highlighted = 0

    @on(Input.Changed, "#walks-filter")
    def _filtered(self, event: Input.Changed) -> None:
        self._list(event.value)

    @on(Input.Submitted, "#walks-filter")
    def _chosen_from_filter(self) -> None:
        options = self.query_one("#walks-list", OptionList)
        if self.shown and options.highlighted is not None:
            self.dismiss(self.shown[options.highlighted])

    def on_key(self, event: Key) -> None:
        """A character typed on the list goes to the filter; Down from the filter goes to the list."""
        box = self.query_one("#walks-filter", Input)
        options = self.query_one("#walks-list", OptionList)
        if options.has_focus and event.is_printable and event.character and event.character != " ":
            box.focus()
            box.insert_text_at_cursor(event.character)
            event.stop()
        elif box.has_focus and event.key == "down":
            options.focus()
            event.stop()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """The walk of the row chosen, by the walk's number the row carries: the list may have been filtered again
        since Enter was pressed on it (a letter typed right after), and the row's place then names another walk,
        or none (an IndexError took the explorer down)."""
        if event.option.id is not None:
            self.dismiss(int(event.option.id))
