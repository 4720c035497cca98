"""The timeline: one line per walk event; choosing one shows the walk as it was at that step."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList

from core import NavigatorChose, WalkEvent

from ...safe_text import styled
from ...walks.decisions import judged_never
from ...walks.describe import event_summary
from ...walks.history import WalkHistory


class Timeline(OptionList):
    """Options are the shown walk's events in order, then how it ended; the highlighted one follows the step shown.

    :meth:`show` keeps it in step with a history: a new walk is listed anew, a growing one only gains rows.
    """

    def on_mount(self) -> None:
        self._history: WalkHistory | None = None
        self._listed = (0, False)
        """How many of the listed history's events are rows, and whether its end is."""
        self._unjudged: set[str | None] = set()
        """The nodes listed so far that the record never judged (their stops say ``never judged``)."""

    def show(self, history: WalkHistory | None) -> None:
        """List ``history``'s events and its end (``None``: nothing), and highlight the step at its cursor."""
        listed, ended = self._listed
        if history is not self._history or history is None or listed > len(history.events) or (
                ended and history.end is None):
            self.clear_options()
            self._history, listed, ended = history, 0, False
            self._unjudged = set()
        if history is None:
            self._listed = (0, False)
            return
        if not ended:
            events = history.events[listed:]
            self.add_options([self._event_row(seq, event) for seq, event in enumerate(events, start=listed + 1)])
            listed = len(history.events)
            if history.end is not None:
                self.add_option(self._end_row(history.end.value, listed))
                ended = True
        self._listed = (listed, ended)
        self._point_at(history.cursor)

    def _event_row(self, seq: int, event: WalkEvent) -> Text:
        if isinstance(event, NavigatorChose) and judged_never(event):
            self._unjudged.add(event.current)
        prompt = styled(f"{seq:>4}  ", "dim")
        prompt.append_text(event_summary(event, unjudged=self._unjudged))
        return prompt

    @staticmethod
    def _end_row(end: str, step: int) -> Text:
        """A last row saying how the walk ended (a cancel or a failure is no event of the walk's own)."""
        prompt = styled(f"{'end':>4}  ", "dim")
        prompt.append(f"walk {end} after step {step}", style="bold")
        return prompt

    def _point_at(self, step: int) -> None:
        """Highlight step ``step`` (1-based) without posting a selection."""
        index = step - 1
        if 0 <= index < self.option_count and self.highlighted != index:
            with self.prevent(OptionList.OptionHighlighted):
                self.highlighted = index
