"""Modal screens: the help, and a one-field prompt used for settings and file names."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static

from ...safe_text import safe, visible
from ..keymap import ANALYSIS_KEYS, MORE_KEYS, PICKER_KEYS, WALK_KEYS, Key, shown_key


def _keys_table(title: str, keys: Sequence[Key]) -> Table:
    table = Table(title=title, title_justify="left", show_header=False, box=None, expand=True, pad_edge=False)
    table.add_column(style="bold", no_wrap=True, width=12)
    table.add_column()
    for key in keys:
        table.add_row(Text(shown_key(key.keys)), Text(key.help))
    return table


class HelpScreen(ModalScreen[None]):
    """Every key, from the same table the bindings are made from."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", id="help.close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Label("reasoning-explorer — keys", id="help-title")
            with VerticalScroll():
                yield Static(_keys_table("Walk", WALK_KEYS))
                yield Static(_keys_table("More", MORE_KEYS))
                yield Static(_keys_table("The picker (the manual navigator asks, or a fork)", PICKER_KEYS))
                yield Static(_keys_table("Across walks", ANALYSIS_KEYS))
                yield Static(Text(
                    "Tree marks: ◆ current · ? offered · ✓ chosen · ⚑ chosen by a forced decision · ✗ rejected · "
                    "• visited · ■ landed (with its stop reason) · ⊘ chosen but never entered. Comparing two walks: "
                    "A / B only in one, = in both, ⑂ where they part. ◎ expected by a question; 7/10 how often "
                    "N walks chose a node.\n"
                    "Every action is also in the command palette (ctrl+p).", style="dim"))
            yield Label("Escape closes", id="help-hint")


class PromptReady(Message):
    """A prompt has the focus (or kept it, refusing a value): the keys typed meanwhile can be handed to it."""


class PromptClosed(Message):
    """A prompt has closed: keys typed after the one that closed it go to the screen below."""


class PromptScreen(ModalScreen[str | None]):
    """Ask for one value; ``check`` returns an error to show, or ``None`` when the value is fine."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(
        self,
        title: str,
        value: str = "",
        *,
        check: Callable[[str], str | None] | None = None,
        suggestions: Sequence[str] = (),
        placeholder: str = "",
    ) -> None:
        super().__init__()
        self.ready = False
        """Whether the field has the focus (the app holds keys typed while the prompt opens until then)."""
        self.prompt_title = title
        self.initial = value
        self.check = check
        self.suggestions = list(suggestions)
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-dialog"):
            yield Label(Text(self.prompt_title), id="prompt-title")
            yield Input(self.initial, placeholder=self.placeholder, id="prompt-input")
            yield Label("", id="prompt-error")
            if self.suggestions:
                yield OptionList(*[Text(s) for s in self.suggestions], id="prompt-suggestions")
            yield Label("Enter accepts · Escape cancels", id="prompt-hint")

    def on_mount(self) -> None:
        field = self.query_one("#prompt-input", Input)
        field.focus()
        field.select_all()  # typing replaces the current value
        self.call_after_refresh(self._ready)

    def _ready(self) -> None:
        self.ready = True
        self.app.post_message(PromptReady())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        field = self.query_one("#prompt-input", Input)
        field.value = self.suggestions[event.option_index]
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        error = self.check(value) if self.check else None
        if error:
            self.query_one("#prompt-error", Label).update(Text(error))
            self.app.post_message(PromptReady())
            return
        self.dismiss(value)

    def on_unmount(self) -> None:
        self.app.post_message(PromptClosed())

    def action_cancel(self) -> None:
        self.dismiss(None)


class WalksScreen(ModalScreen[int | None]):
    """Pick one of the session's walks by name; returns its number."""

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


FIND_LIMIT = 50
"""Matches listed while finding a node; typing more narrows them."""


class FindScreen(ModalScreen[str | None]):
    """Find a node by id or title as you type; Enter (or a click) on a match returns its id."""

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
            yield Input(placeholder="refund", id="find-input")
            yield Label("", id="find-count")
            yield OptionList(id="find-results")

    def on_mount(self) -> None:
        self.query_one("#find-input", Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        matches = self.search(event.value, FIND_LIMIT + 1) if event.value.strip() else []
        self.found = [node_id for node_id, _ in matches[:FIND_LIMIT]]
        results = self.query_one("#find-results", OptionList)
        results.clear_options()
        results.add_options([safe(f"{title}  ·  {node_id}", width=160) for node_id, title in matches[:FIND_LIMIT]])
        more = " (the first 50: type more to narrow)" if len(matches) > FIND_LIMIT else ""
        count = f"{min(len(matches), FIND_LIMIT)} match{'es' if len(matches) != 1 else ''}{more}"
        self.query_one("#find-count", Label).update(Text(count if event.value.strip() else ""))

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
