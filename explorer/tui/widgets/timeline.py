"""The timeline: one line per walk event; choosing one shows the walk as it was at that step."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList

from core import WalkEvent

from ...walks.describe import event_summary


class Timeline(OptionList):
    """Options are events in order; the highlighted option follows the step shown."""

    def add_event(self, seq: int, event: WalkEvent) -> None:
        prompt = Text(f"{seq:>4}  ", style="dim")
        prompt.append_text(event_summary(event))
        self.add_option(prompt)

    def add_end(self, end: str, step: int) -> None:
        """A last row saying how the walk ended (a cancel or a failure is no event of the walk's own)."""
        prompt = Text(f"{'end':>4}  ", style="dim")
        prompt.append(f"walk {end} after step {step}", style="bold")
        self.add_option(prompt)

    def reset(self) -> None:
        self.clear_options()

    def point_at(self, step: int) -> None:
        """Highlight step ``step`` (1-based) without posting a selection."""
        index = step - 1
        if 0 <= index < self.option_count and self.highlighted != index:
            with self.prevent(OptionList.OptionHighlighted):
                self.highlighted = index
