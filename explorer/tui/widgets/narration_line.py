"""Presenting mode's narration: what just happened in the walk and why, in plain words, large and bold.

It wraps, and it never stops in the middle of a sentence: where the whole narration does not fit its rows (at
80×24, a long reason), the brief is shown (the navigator's reason and habits left out), and where even that does
not fit, sentences between what it chose and what landed go (the room hears where the walk is, what it chose and
what landed). While the navigator decides, a last row counts the seconds (``thinking… 4 s``),
so that a room waiting on an LLM sees that something happens.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

from ...safe_text import safe
from ...walks.narration import Narration

ROWS = 7
"""The most rows the narration takes (presenting.tcss gives it ``max-height: 7``): the rest go to the cards."""


class NarrationLine(Widget):
    """One paragraph (:func:`explorer.walks.narration.narration`'s sentences), escaped, never parsed as markup,
    fitted to :data:`ROWS` by whole sentences."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"narration--text", "narration--thinking"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._said = Narration((), ())
        self._thinking: int | None = None
        """Whole seconds the navigator has been deciding, from the first (``None``: not deciding, or not yet 1 s)."""

    def show(self, said: Narration, thinking: float | None = None) -> None:
        """Say ``said``; ``thinking``: the seconds the navigator has been deciding, while it is."""
        self._said, self._thinking = said, _counted(thinking)
        self.refresh(layout=True)

    def thinking(self, seconds: float | None) -> None:
        """The seconds the navigator has been deciding (``None``: it is not); redrawn only when the count moves."""
        if _counted(seconds) != self._thinking:
            self._thinking = _counted(seconds)
            self.refresh(layout=True)

    def _fitted(self, width: int) -> Text:
        width = max(10, width)
        rows = ROWS - 1  # a row kept for thinking…: the words do not change when the count appears
        style = self.get_component_rich_style("narration--text")
        console = self.app.console
        said: tuple[str, ...] = ()
        def fits(sentences: tuple[str, ...]) -> bool:
            return len(safe(" ".join(sentences)).wrap(console, width)) <= rows

        brief = self._said.brief
        whole = [sentences for sentences in (self._said.sentences, brief) if fits(sentences)]
        # Not even the brief fits: where the walk is and what it chose, then the later sentences that fit, the last
        # first (what landed, what stopped: what a room must hear), said in their order; else its first sentences.
        head, kept = brief[:2], set[int]()
        for number in range(len(brief) - 1, len(head) - 1, -1):
            if fits(head + tuple(brief[n] for n in sorted(kept | {number}))):
                kept.add(number)
        said = whole[0] if whole else head + tuple(brief[n] for n in sorted(kept)) if kept and fits(head) else next(
            (brief[:count] for count in range(len(brief) - 1, 0, -1) if fits(brief[:count])), brief[:1])
        text = safe(" ".join(said), style)
        if self._thinking is not None:
            text.append("\n")
            text.append(f"thinking… {self._thinking} s", style=self.get_component_rich_style("narration--thinking"))
        return text

    def render(self) -> Text:
        return self._fitted(self.content_size.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return min(ROWS, len(self._fitted(width).wrap(self.app.console, max(10, width))))

    @property
    def words(self) -> str:
        """What the line says now, as plain text (what a test reads)."""
        return self._fitted(self.content_size.width or 80).plain


def _counted(seconds: float | None) -> int | None:
    """Whole seconds, from 1: a decision quicker than a second (an offline navigator's) shows no count."""
    return int(seconds) if seconds is not None and seconds >= 1 else None
