"""The prompt variants kept for this corpus (``ctrl+l`` in the ``W`` dialog), each with its unified diff against the
built-in prompt: the list on the left, the diff of the one highlighted (or chosen with Enter) beside it, its text
shown literally (a ``-`` line the built-in's, a ``+`` line the variant's), never as markup."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static

from ...safe_text import safe, visible
from .closing_once import ClosesOnce

_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))
"""A diff line's style, by how it starts (the first that matches)."""


def diff_text(diff: str) -> Text:
    """A unified diff as the screen shows it: each line literal (controls made visible), coloured by its kind."""
    shown = Text()
    for line in diff.splitlines():
        style = next((style for start, style in _STYLES if line.startswith(start)), "")
        shown.append_text(safe(line, style, width=10_000))
        shown.append("\n")
    return shown


class VariantsScreen(ClosesOnce, ModalScreen[None]):
    """``variants``: each kept variant's name and its diff against the built-in prompt, listed from ``folder``."""

    CSS_PATH = Path(__file__).with_name("variants.tcss")
    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="variants.close")]

    def __init__(self, variants: Sequence[tuple[str, str]], folder: Path) -> None:
        super().__init__()
        self.variants = list(variants)
        self.folder = folder
        self.shown: str | None = None
        """The name of the variant whose diff is shown (``None``: none kept)."""

    def compose(self) -> ComposeResult:
        count = len(self.variants)
        title = (f"{count} prompt variant{'s' if count != 1 else ''} kept in {self.folder}, each against the built-in "
                 "prompt · Escape closes" if count else
                 f"No prompt variant kept in {self.folder} yet: ctrl+s keeps the edited request as one")
        with Vertical(id="variants-dialog"):
            yield Label(Text(visible(title)), id="variants-title")
            with Horizontal(id="variants-body"):
                yield OptionList(*(Text(visible(name)) for name, _ in self.variants), id="variants-list")
                with VerticalScroll(id="variants-diff-scroll"):
                    yield Static(Text(""), id="variants-diff")

    def on_mount(self) -> None:
        options = self.query_one("#variants-list", OptionList)
        if self.variants:
            options.highlighted = 0
            self._show(0)
        options.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(event.option_index)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._show(event.option_index)

    def _show(self, index: int) -> None:
        name, diff = self.variants[index]
        self.shown = name
        self.query_one("#variants-diff", Static).update(diff_text(diff))
        self.query_one("#variants-diff-scroll", VerticalScroll).border_title = visible(f"{name} against the built-in")
