"""The budget sweep's chart: one bar per visit budget, the hit rate drawn in the terminal with its figures beside it
(``15 ████░░░░░░ 13/41 (32%) · hit@3 13 · precision 20% · live calls 105``)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from ...walks.evaluation import BudgetRow, Sweep

BAR_WIDTH = 10
"""Cells in a bar: ten, so each cell is a tenth of the questions and the figures fit beside it at 80 columns."""


def bar_cells(hits: int, questions: int, width: int = BAR_WIDTH) -> int:
    """How many of ``width`` cells a hit rate fills: rounded, at least one for any hit, all only for all."""
    if not questions or not hits:
        return 0
    filled = round(width * hits / questions)
    return min(width - (hits < questions), max(1, filled))


def row_words(row: BudgetRow) -> str:
    """The figures beside a budget's bar: hits of all, the rate, hit@3, precision and the live calls it made."""
    s = row.summary
    precision = "—" if s.precision is None else f"{s.precision:.0%}"
    calls = "re-walked, no call" if row.reused else f"live calls {row.live_calls:,}"
    hits = f"{s.hits}/{s.questions}".rjust(2 * len(str(s.questions)) + 1)
    return f"{hits} ({s.hit_rate:.0%}) · hit@3 {s.hits_at_3} · precision {precision} · {calls}"


class SweepChart(Static):
    """Hit rate by budget: a bar per budget, smallest first, the figures beside each."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"sweep--hit", "sweep--miss", "sweep--budget"}

    def show(self, found: Sweep | None) -> None:
        """Draw ``found`` (``None``: nothing yet)."""
        if found is None or not found.rows:
            self.update("")
            return
        style = self.get_component_rich_style
        width = max(len(str(b)) for b in found.budgets)
        lines = []
        for row in found.rows:
            filled = bar_cells(row.summary.hits, row.summary.questions)
            line = Text()
            line.append(f"{row.budget:>{width}} ", style=style("sweep--budget"))
            line.append("█" * filled, style=style("sweep--hit"))
            line.append("░" * (BAR_WIDTH - filled), style=style("sweep--miss"))
            line.append(f" {row_words(row)}")
            lines.append(line)
        shown = Text("\n").join(lines)
        shown.no_wrap, shown.overflow = True, "ellipsis"
        self.update(shown)
