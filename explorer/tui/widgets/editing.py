"""Fields a dialog is edited in by keys alone: a text area and a one-line field that both take ``ctrl+home`` /
``ctrl+end`` (to the start and end of what they hold, ``shift`` selecting) and undo (``ctrl+z``, ``ctrl+y``).

Textual's ``TextArea`` undoes but stops ``ctrl+home`` at nothing; its ``Input`` has no undo at all. The one-line
field keeps the values it held (each edit, up to :data:`UNDO_DEPTH`) to step back and forth through.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input, TextArea

UNDO_DEPTH = 200
"""How many earlier values a one-line field keeps to undo to."""


class EditableText(TextArea):
    """A text area that also moves to the start and the end of its text (``ctrl+home``, ``ctrl+end``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+home", "document_start", "To the start", show=False),
        Binding("ctrl+end", "document_end", "To the end", show=False),
        Binding("ctrl+shift+home", "document_start(True)", "Select to the start", show=False),
        Binding("ctrl+shift+end", "document_end(True)", "Select to the end", show=False),
    ]

    def action_document_start(self, select: bool = False) -> None:
        self.move_cursor((0, 0), select=select)

    def action_document_end(self, select: bool = False) -> None:
        self.move_cursor(self.document.end, select=select)


class EditableField(Input):
    """A one-line field with undo and redo (``ctrl+z``, ``ctrl+y``) and ``ctrl+home`` / ``ctrl+end``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+home", "home", "To the start", show=False),
        Binding("ctrl+end", "end", "To the end", show=False),
        Binding("ctrl+shift+home", "home(True)", "Select to the start", show=False),
        Binding("ctrl+shift+end", "end(True)", "Select to the end", show=False),
        Binding("ctrl+z", "undo", "Undo", show=False),
        Binding("ctrl+y", "redo", "Redo", show=False),
    ]

    def __init__(self, value: str = "", *, placeholder: str = "", id: str | None = None,
                 classes: str | None = None) -> None:
        self._undo: list[str] = []
        self._redo: list[str] = []
        self._last = value
        self._stepping = False
        super().__init__(value, placeholder=placeholder, id=id, classes=classes)  # it sets the value, watched

    def watch_value(self, value: str) -> None:
        if value == self._last:
            return
        if not self._stepping:
            self._undo = [*self._undo, self._last][-UNDO_DEPTH:]
            self._redo = []
        self._last = value

    def action_undo(self) -> None:
        if self._undo:
            self._step(self._undo, self._redo)

    def action_redo(self) -> None:
        if self._redo:
            self._step(self._redo, self._undo)

    def _step(self, source: list[str], target: list[str]) -> None:
        target.append(self.value)
        self._stepping = True
        try:
            self.value = source.pop()
            self._last = self.value
        finally:
            self._stepping = False
        self.cursor_position = len(self.value)
