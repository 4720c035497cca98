"""Find a node by id or title as you type."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList

from ...safe_text import safe
from .closing_once import ClosesOnce

FIND_LIMIT = 50
"""Matches listed while finding a node; typing more narrows them."""


class FindScreen(ClosesOnce, ModalScreen[str | None]):
    """Find a node by id or title as you type; Enter (or a click) on a match returns its id."""

    CSS_PATH = Path(__file__).with_name("find.tcss")

    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="find.close"),
                Binding("down", "focus_results", "Matches", show=False, id="find.results")]

    def __init__(self, search: Callable[[str, int], list[tuple[str, str]]]) -> None:
        super().__init__()
        self.search = search
        self.found: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="find-dialog"):
            yield Label("Find a node: type part of its title or id · ↓ the matches · Enter goes there · Escape "
                        "closes", id="find-title")
            # Opened empty with the nodes listed: a placeholder that reads as a value (``refund``) was taken for one.
            yield Input(placeholder="type part of a title or id", id="find-input")
            yield Label("", id="find-count")
            yield OptionList(id="find-results")

    def on_mount(self) -> None:
        self.query_one("#find-input", Input).focus()
        self._list("")

    def on_input_changed(self, event: Input.Changed) -> None:
        self._list(event.value)

    def _list(self, value: str) -> None:
        """The matches of ``value``; nothing typed: the nodes in corpus order, the first 50 (typing narrows them)."""
        matches = self.search(value.strip(), FIND_LIMIT + 1)
        self.found = [node_id for node_id, _ in matches[:FIND_LIMIT]]
        results = self.query_one("#find-results", OptionList)
        results.clear_options()
        results.add_options([safe(f"{title}  ·  {node_id}", width=160) for node_id, title in matches[:FIND_LIMIT]])
        if not value.strip():
            more = f"the first {FIND_LIMIT}: " if len(matches) > FIND_LIMIT else ""
            count = f"Every node, in corpus order ({more}type to narrow)"
        else:
            more = f" (the first {FIND_LIMIT}: type more to narrow)" if len(matches) > FIND_LIMIT else ""
            count = f"{min(len(matches), FIND_LIMIT)} match{'es' if len(matches) != 1 else ''}{more}"
        self.query_one("#find-count", Label).update(Text(count))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self.found:
            self.dismiss(self.found[0])
        else:
            self.query_one("#find-count", Label).update(Text("No node matches: try fewer letters, or an id."))

    def action_focus_results(self) -> None:
        results = self.query_one("#find-results", OptionList)
        if results.option_count:
            results.focus()
            results.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.found[event.option_index])
