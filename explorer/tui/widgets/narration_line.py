"""Presenting mode's narration: what just happened in the walk and why, in plain words, large and bold."""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import Static

from ...safe_text import safe


class NarrationLine(Static):
    """One paragraph (``explorer.walks.narration.narrate``'s words), escaped, never parsed as markup."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"narration--text"}

    def show(self, words: str) -> None:
        self.update(safe(words, self.get_component_rich_style("narration--text")))

    @property
    def words(self) -> str:
        """What the line says, as plain text (what a test reads)."""
        return str(self.content)
