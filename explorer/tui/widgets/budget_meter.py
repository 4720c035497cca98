"""The budget meter: visits used and left, depth against the limit, navigator calls, and the walk's status."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.widgets import Static

from ...walks.describe import calls_words
from ...walks.state import WalkState

BAR_WIDTH = 30
MIN_BAR_WIDTH = 8


class BudgetMeter(Static):
    """Three lines: the visit bar with its counts; depth, calls, characters and tokens; the walk's status."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "meter--used",
        "meter--left",
        "meter--label",
        "meter--status",
        "meter--warning",
    }

    _shown: tuple[WalkState, str, int, int] | None = None

    def on_resize(self, event: events.Resize) -> None:
        """The bar's width follows the meter's: drawn again at the new width (a first draw can come before the
        layout gives the meter its width)."""
        if self._shown is not None:
            self.show(*self._shown)

    def show(self, state: WalkState, status: str, budget: int, max_depth: int) -> None:
        self._shown = (state, status, budget, max_depth)
        budget = state.budget or budget
        max_depth = state.max_depth if state.step else max_depth
        used = min(state.visits_used, budget)
        left = budget - used
        # The bar gives way first on a narrow screen, so the counts stay on one line.
        room = self.content_size.width - 32 if self.content_size.width else BAR_WIDTH
        width = max(MIN_BAR_WIDTH, min(BAR_WIDTH, room))
        filled = round(width * used / budget) if budget else 0
        style = self.get_component_rich_style
        bar = Text()
        bar.append("Visits ", style=style("meter--label"))
        bar.append("█" * filled, style=style("meter--used"))
        bar.append("░" * (width - filled), style=style("meter--left"))
        bar.append(f" {used}/{budget} used · ")
        bar.append(f"{left} left", style=style("meter--warning") if left <= max(1, budget // 5) else "")
        depth = "-" if state.depth is None else str(state.depth)
        details = Text()
        details.append("Depth ", style=style("meter--label"))
        details.append(f"{depth}/{max_depth}")
        details.append("  Calls ", style=style("meter--label"))
        details.append(calls_words(state.cost(), decisions=""))  # live calls; forced, replayed, cached apart
        details.append("  Chars shipped ", style=style("meter--label"))
        details.append(f"{state.chars_shipped:,}")
        if state.prompt_tokens or state.completion_tokens:
            details.append("  Tokens ", style=style("meter--label"))
            details.append(f"{state.prompt_tokens:,} in / {state.completion_tokens:,} out")
        # Three lines, each cut short rather than wrapped: the status must never be pushed out of view.
        shown = Text("\n").join([bar, details, Text(status, style=style("meter--status"))])
        shown.no_wrap, shown.overflow = True, "ellipsis"
        self.update(shown)
