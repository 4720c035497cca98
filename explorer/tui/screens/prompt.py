"""A one-field prompt, used for settings, file names and ids; it says when it is ready for the keys held for it.

Its list of suggestions (when it has one) behaves as every picker of the explorer does: Down in the field enters the
list, Up from its first row goes back to the field, a character typed on the list goes to the field, and Enter on a
row accepts that row (checked as a typed value would be)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast, overload

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Key
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList

from .closing_once import ClosesOnce

T = TypeVar("T")


@dataclass
class PromptReady(Message):
    """A prompt has the focus (or kept it, refusing a value): the keys typed meanwhile can be handed to it."""


@dataclass
class PromptClosed(Message):
    """A prompt has closed: keys typed after the one that closed it go to the screen below."""


class PromptScreen(ClosesOnce, ModalScreen[T | None]):
    """Ask for one value; ``check`` returns an error to show, or ``None`` when the value is fine. With ``read``, the
    prompt hands back what ``read`` made of the text (a number it checked), and shows the ``ValueError`` it raises.
    With ``confirm``, a value it warns of (a file that exists) is accepted only when Enter is pressed again on it."""

    CSS_PATH = Path(__file__).with_name("prompt.tcss")

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    @overload
    def __init__(self: PromptScreen[str], title: str, value: str = "", *,
                 check: Callable[[str], str | None] | None = None, suggestions: Sequence[str] = (),
                 placeholder: str = "", confirm: Callable[[str], str | None] | None = None) -> None: ...

    @overload
    def __init__(self: PromptScreen[T], title: str, value: str = "", *, read: Callable[[str], T],
                 suggestions: Sequence[str] = (), placeholder: str = "",
                 confirm: Callable[[str], str | None] | None = None) -> None: ...

    def __init__(
        self,
        title: str,
        value: str = "",
        *,
        check: Callable[[str], str | None] | None = None,
        read: Callable[[str], Any] | None = None,
        suggestions: Sequence[str] = (),
        placeholder: str = "",
        confirm: Callable[[str], str | None] | None = None,
    ) -> None:
        super().__init__()
        self.ready = False
        """Whether the field has the focus (the app holds keys typed while the prompt opens until then)."""
        self._covered = False
        """Whether a screen (the command palette) was opened over this prompt since it last said it was ready."""
        self.prompt_title = title
        self.initial = value
        self.check = check
        self.read = read
        self.suggestions = list(suggestions)
        self.placeholder = placeholder
        self.confirm = confirm
        self._warned: str | None = None
        """The value ``confirm`` warned of: Enter again on it accepts it."""

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-dialog"):
            yield Label(Text(self.prompt_title), id="prompt-title")
            yield Input(self.initial, placeholder=self.placeholder, id="prompt-input")
            yield Label("", id="prompt-error")
            if self.suggestions:
                yield OptionList(*[Text(s) for s in self.suggestions], id="prompt-suggestions")
            more = " · ↓ the list" if self.suggestions else ""
            yield Label(f"Enter accepts{more} · Escape cancels", id="prompt-hint")

    def on_mount(self) -> None:
        field = self.query_one("#prompt-input", Input)
        field.focus()
        field.select_all()  # typing replaces the current value
        self.call_after_refresh(self._ready)

    def _ready(self) -> None:
        self.ready = True
        self.app.post_message(PromptReady())

    def on_screen_suspend(self) -> None:
        self._covered = True

    def on_screen_resume(self) -> None:
        """Back on top after a screen over it (the palette, opened by a key held for this prompt) closed: the keys
        that screen took were never this prompt's to answer, so the keys held behind them are handed over now."""
        if self._covered:
            self._covered = False
            self.call_after_refresh(self._ready)

    def on_key(self, event: Key) -> None:
        """Down from the field enters the list (at the row the field holds, else the first); Up from the list's
        first row, or a character typed on the list, goes back to the field. Enter always answers, wherever the
        focus is: the app holds the keys typed after it until the prompt closes or refuses the value."""
        field = self.query_one("#prompt-input", Input)
        if event.key == "enter" and not field.has_focus and not self._on_a_row():
            event.stop()
            self._submit(field.value)
            return
        if not self.suggestions:
            return
        options = self.query_one("#prompt-suggestions", OptionList)
        if field.has_focus and event.key == "down":
            value = field.value.strip()
            options.highlighted = self.suggestions.index(value) if value in self.suggestions else 0
            options.focus()
            event.stop()
        elif options.has_focus and event.key == "up" and options.highlighted in (None, 0):
            field.focus()
            event.stop()
        elif options.has_focus and event.is_printable and event.character and event.character != " ":
            field.focus()
            field.insert_text_at_cursor(event.character)
            event.stop()

    def _on_a_row(self) -> bool:
        """Whether the focus is on a highlighted row of the suggestions (Enter there accepts that row)."""
        focused = self.focused
        return isinstance(focused, OptionList) and focused.highlighted is not None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) on a suggestion accepts it."""
        field = self.query_one("#prompt-input", Input)
        field.value = self.suggestions[event.option_index]
        self._submit(field.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._submit(event.value)

    def _submit(self, text: str) -> None:
        value = text.strip()
        error = self.check(value) if self.check else None
        result: Any = value
        if not error and self.read is not None:
            try:
                result = self.read(value)
            except ValueError as exc:
                error = str(exc)
        if not error and self.confirm is not None and value != self._warned:
            error = self.confirm(value)
            self._warned = value if error else None
        if error:
            self.query_one("#prompt-error", Label).update(Text(error))
            self.query_one("#prompt-input", Input).focus()  # the value to mend is in the field
            self.app.post_message(PromptReady())
            return
        self.dismiss(cast("T", result))

    def on_unmount(self) -> None:
        self.app.post_message(PromptClosed())

    def action_cancel(self) -> None:
        self.dismiss(None)
