"""A figure by visit budget, one line per series (a side of a sweep, a walk policy), drawn as text by ``plotext``: the
one chart of ``eval --budgets``, the evaluation screen's sweep and its HTML page.

:func:`draw` returns what plotext's ``build()`` makes, a block of lines: plain (``colour=False``: what the command line
prints when it writes to no terminal, and what a test reads exactly), or with ANSI colours, one per series, for a
reader that turns them into styles (Rich's ``Text.from_ansi``), never into markup. A series' name is untrusted (a
model id, a file name): it is made visible (:func:`~explorer.safe_text.visible`) before plotext draws it, so no escape
sequence of its own reaches the drawing. plotext keeps one figure per process, so drawings take turns (a lock).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import plotext  # type: ignore[import-untyped]

from ...safe_text import visible

__all__ = ["MARKERS", "BudgetChart", "Series", "draw", "draw_chart"]

MARKERS = ("•", "x", "+", "o", "*", "#")
"""Each series' marker, in order: lines told apart without colour."""

FINE = "hd"
"""The marker of every line drawn in colour (the colour tells them apart): quarter blocks, two rows to a cell, so a
short plot still shows a step of one question (braille, finer, is missing from the fonts an SVG export is read in,
and shifted the rest of its row there)."""

COLOURS = ("cyan+", "orange+", "magenta+", "green+", "blue+", "red+")
"""Each series' colour, in order, when the chart is drawn in colour."""

MIN_WIDTH, MIN_HEIGHT = 24, 8
"""The smallest drawing that still holds the axes and a legend line: below it :func:`draw` draws nothing."""

_ONE_FIGURE = threading.Lock()


@dataclass(frozen=True)
class Series:
    """One line: a figure at each visit budget, smallest budget first."""

    name: str
    points: tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class BudgetChart:
    """A figure (``title``) by visit budget, up to ``top`` (the number of questions, for a count of them)."""

    title: str
    series: tuple[Series, ...]
    top: float

    @property
    def budgets(self) -> tuple[int, ...]:
        return tuple(sorted({budget for line in self.series for budget, _ in line.points}))

    def level(self, name: str, value: float) -> BudgetChart:
        """The chart with one more line, ``name``, at ``value`` across its budgets: a figure that does not depend on
        the budget (the flat search's hit@3) drawn beside those that do."""
        return BudgetChart(self.title, (*self.series, Series(name, tuple((b, value) for b in self.budgets))), self.top)


PLOT_FRAME_ROWS = 5
"""The rows of a plotext drawing that are not the plot's own: the title, the frame's top and bottom, the budgets and
the axis's name."""
_STEPS = (1, 2, 4, 5)
"""A tick step is one of these times a power of ten: ticks a person reads at a glance."""


def _ticks(low: float, high: float, height: int, rows: int) -> list[float]:
    """Evenly spaced whole-number ticks between ``low`` and ``high``: at most five on a tall drawing, three on a
    short one, a step of 1, 2, 4 or 5 times a power of ten (``10, 15, 20`` rather than the uneven ``9, 13, 16, 20, 24``
    of ticks rounded from equal parts of the span: issue 45), and at least a row of the plot's ``rows`` apart: two
    ticks on one row were drawn as either label, as the process's hash seed fell (a flat line far above the walk's made
    the span wide on a short plot)."""
    most = (4 if height >= 12 else 2) + 1
    per_row = (high - low) / max(rows - 1, 1)  # what one row of the plot stands for

    def ticks(step: int) -> list[float]:
        first, last = math.ceil(low / step) * step, math.floor(high / step) * step
        return [float(first + step * n) for n in range(int((last - first) // step) + 1)]

    # The smallest step whose ticks fit the drawing's rows (as many as read apart, none drawn over another).
    return next(found for step in (s * 10**power for power in range(12) for s in _STEPS)
                if (0 < len(found := ticks(step)) <= most and (len(found) == 1 or step >= per_row))
                or step > high - low)


def _span(chart: BudgetChart) -> tuple[float, float]:
    """The figures' range, widened by a step at each end (within 0 and the top): lines a question apart are drawn
    apart, not one over the other at the scale of every question (the ticks say where the axis starts)."""
    values = [value for line in chart.series for _, value in line.points]
    top = max(chart.top, 1.0)
    if not values:
        return 0.0, top
    pad = max(1.0, (max(values) - min(values)) / 6)
    return max(0.0, min(values) - pad), min(top, max(values) + pad)


def draw(chart: BudgetChart, width: int, height: int, *, colour: bool = False) -> str:
    """``chart`` drawn in ``width`` × ``height`` cells: the plot, then a legend line per series under it (its marker
    and name: plotext's own legend, inside the plot, hides lines and is left out of a short plot); ``""`` when there
    is nothing to draw or no room (under :data:`MIN_WIDTH` × :data:`MIN_HEIGHT` for the plot)."""
    budgets = chart.budgets
    plot_height = height - len(chart.series)
    if not budgets or width < MIN_WIDTH or plot_height < MIN_HEIGHT:
        return ""
    low, high = _span(chart)
    legend = []
    with _ONE_FIGURE:
        plotext.clear_figure()
        plotext.limit_size(False, False)  # the size asked, not the process's terminal's (COLUMNS, LINES, or 80×24)
        plotext.plotsize(width, plot_height)
        plotext.theme("clear")
        for number, line in enumerate(chart.series):
            xs = [budget for budget, _ in line.points]
            ys = [value for _, value in line.points]
            marker, shade = MARKERS[number % len(MARKERS)], COLOURS[number % len(COLOURS)]
            plotext.plot(xs, ys, marker=FINE if colour else marker, color=shade)
            legend.append(f"{plotext.colorize('━━', shade) if colour else marker * 2} {visible(line.name)}")
        ticks = _ticks(low, high, height, plot_height - PLOT_FRAME_ROWS)
        plotext.xticks(list(budgets))
        plotext.yticks(ticks, [f"{tick:g}" for tick in ticks])
        if len(budgets) > 1:
            plotext.xlim(budgets[0], budgets[-1])
        plotext.ylim(low, high)
        plotext.title(visible(chart.title))
        plotext.xlabel("visit budget")
        drawn = plotext.build()
        plotext.clear_figure()
    if not colour:
        drawn = plotext.uncolorize(drawn)
    return "\n".join([*(line.rstrip() for line in drawn.splitlines()), *legend])


draw_chart = draw
"""The same function, by the name the package's facade gives it."""
