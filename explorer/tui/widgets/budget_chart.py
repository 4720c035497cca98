"""A chart by visit budget on screen: :func:`explorer.walks.evaluation.chart.draw`'s drawing, at the widget's size, its
colours read as styles (``Text.from_ansi``: never markup), drawn again when the widget is resized."""

from __future__ import annotations

from rich.text import Text
from textual.events import Resize
from textual.widgets import Static

from ...walks.evaluation.chart import BudgetChart, draw


class BudgetChartView(Static):
    """``chart`` (``None``: nothing yet) drawn to fill the widget; its height is set in the screen's TCSS."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.chart: BudgetChart | None = None

    def show(self, chart: BudgetChart | None) -> None:
        self.chart = chart
        self._draw()

    def on_resize(self, event: Resize) -> None:
        self._draw()

    def _draw(self) -> None:
        size = self.content_size
        drawn = draw(self.chart, size.width, size.height, colour=True) if self.chart is not None else ""
        shown = Text.from_ansi(drawn) if drawn else Text("")
        shown.no_wrap, shown.overflow = True, "crop"
        self.update(shown)
