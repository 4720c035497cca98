"""Reading a pane of the walk screen by keys: the focused pane takes the whole screen and gives it back (``z``), is
searched while it has the screen (``/``), and the decision on screen is copied to the terminal's clipboard (``y``
its request, ``Y`` its raw answer, byte for byte).

A pane is a widget of the walk screen with the class :data:`PANE`: the tree, the step panel, the Results, the
Transcript, the Timeline and the Node tabs. Tab moves the focus from pane to pane, and the focused one shows it
(``walk_screen.tcss``); PageUp, PageDown, Home and End scroll it, whole screen or not (its own scroll bindings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static, TabbedContent, TabPane

from ...walks.transcripts import raw_answer, request_text
from ..screens.prompt import PromptScreen
from .shown import Grounds, Part

PANE = "pane"
"""The class that makes a widget of the walk screen a pane that ``z`` gives the whole screen."""

FULL_SCREEN_KEYS = "PageUp PageDown Home End scroll · / searches in it · y copies the request, Y the raw answer · " \
                   "z gives it back"
"""What the status says when a pane takes the whole screen."""


@dataclass(frozen=True)
class Panes:
    """What reading a pane needs of the screen's layout: which pane has the whole screen (``None``: none), giving
    it to one (or back, with ``None``), and the widget holding the focus."""

    maximized: Callable[[], Widget | None]
    maximize: Callable[[Widget | None], None]
    focused: Callable[[], Widget | None]


@dataclass(frozen=True)
class Match:
    """Where a search found its text: the ``line``-th line (0-based, as drawn) of ``static``, one of ``count``."""

    static: Static
    line: int
    number: int
    count: int


class PaneReading(Part):
    """The reading keys of the screen's ``panes``; what they copy is the decision on screen (the one the Transcript
    shows); a dialog of the ``stage``'s app asks what to search for, and the app copies to the clipboard."""

    def __init__(self, grounds: Grounds, *, panes: Panes) -> None:
        super().__init__(grounds)
        self.panes = panes
        self.searched = ""
        """The last text searched for: ``/`` offers it again, and Enter on it goes to the next match."""
        self._after: tuple[int, int] = (-1, -1)
        """The last match's place (its static among the pane's, its line): the next search starts after it."""

    @property
    def full_screen(self) -> Widget | None:
        """The pane that has the whole screen (``None``: none has)."""
        return self.panes.maximized()

    def pane(self) -> Widget | None:
        """The pane on the whole screen, else the one holding the focus (the tab strip: its active tab's pane)."""
        if (maximized := self.panes.maximized()) is not None:
            return maximized
        focused = self.panes.focused()
        if focused is None:
            return None
        for node in focused.ancestors_with_self:
            if isinstance(node, Widget) and node.has_class(PANE):
                return node
            if isinstance(node, TabbedContent):  # the tab strip: the pane of the tab it shows
                active = node.active_pane
                panes = active.query(f".{PANE}") if isinstance(active, TabPane) else None
                return panes.first() if panes else None
        return None

    def toggle(self) -> None:
        """``z``: the focused pane takes the whole screen, or gives it back."""
        if self.panes.maximized() is not None:
            self.panes.maximize(None)
            self.say("The whole screen again.", timeout=2)
            return
        pane = self.pane()
        if pane is None:
            self.say("Tab to a pane first (the tree, the step panel, a tab's content): z gives it the whole screen.",
                     timeout=4)
            return
        self.panes.maximize(pane)
        if not pane.has_focus_within:
            target = pane if pane.focusable else next((w for w in pane.query("*") if w.focusable), None)
            if target is not None:
                target.focus()
        self.say(f"Full screen: {FULL_SCREEN_KEYS}.", timeout=5)

    def ask_search(self) -> None:
        """``/`` with a pane on the whole screen: ask what to search for (the last search offered again)."""
        self.stage.app.push_screen(PromptScreen("Search this pane for (Enter again: the next match)",
                                                 self.searched), self._searched)

    def _searched(self, text: str | None) -> None:
        if text:
            self.search(text)

    def search(self, text: str) -> Match | None:
        """Scroll the pane on the whole screen to the next line holding ``text`` (ignoring case), from the last match
        on (wrapping around), and say which match it is."""
        pane = self.full_screen
        if pane is None or not text:
            return None
        if text != self.searched:
            self.searched, self._after = text, (-1, -1)
        found = matches(pane, text)
        if not found:
            self.say(f"No {text!r} in this pane.", timeout=3)
            return None
        index = next((i for i, (s, line) in enumerate(found) if (s, line) > self._after), 0)
        static_index, line = found[index]
        self._after = (static_index, line)
        static = statics(pane)[static_index]
        match = Match(static, line, index + 1, len(found))
        reveal(static, line)
        self.say(f"{text!r}: match {match.number} of {match.count} (/ then Enter: the next).", timeout=4)
        return match

    def copy(self, what: str) -> None:
        """``y`` (``what`` = ``"request"``) or ``Y`` (``"answer"``): the decision on screen's request or raw answer
        to the clipboard, byte for byte."""
        history = self.view.history
        decision = history.decision_at() if history is not None else None
        if decision is None:
            self.say("No decision at this step: step to an offer's answer (n), then y or Y.", timeout=3)
            return
        text = request_text(decision) if what == "request" else raw_answer(decision)
        name = "request" if what == "request" else "raw answer"
        if text is None:
            self.say(f"The decision at step {decision.step} has no {name} to copy.", timeout=3)
            return
        self.stage.app.copy_to_clipboard(text)
        self.say(f"Copied the {name} of the decision at step {decision.step}: {len(text):,} characters.", timeout=3)


def statics(pane: Widget) -> list[Static]:
    """The text of ``pane`` that is displayed, in order: the pane itself if it is text, and the text inside it."""
    found = [pane] if isinstance(pane, Static) else []
    found += [w for w in pane.query(Static) if w.display and w.size.width > 0]
    return [w for w in found if isinstance(w, Static)]


def lines_of(static: Static) -> list[str]:
    """``static``'s text as drawn at its width, a line each."""
    width = max(1, static.content_region.width)
    return [line.plain for line in Content(str(static.render())).wrap(width)]


def matches(pane: Widget, text: str) -> list[tuple[int, int]]:
    """Every line of ``pane``'s text holding ``text`` (ignoring case), as (its static's index, its line)."""
    wanted = text.casefold()
    return [(index, number) for index, static in enumerate(statics(pane))
            for number, line in enumerate(lines_of(static)) if wanted in line.casefold()]


def reveal(static: Static, line: int) -> None:
    """Scroll the container of ``static`` so that its ``line``-th line is at the top."""
    container = static.parent if static.parent is not None and not static.allow_vertical_scroll else static
    if not isinstance(container, Widget):
        return
    region = static.virtual_region if container is not static else Region(0, 0, 0, 0)
    container.scroll_to(y=region.y + static.styles.gutter.top + line, animate=False, immediate=True)
