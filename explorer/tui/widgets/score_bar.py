"""A navigator's score for one candidate drawn as a short bar with its figure (``██████▍  0.81``), as the step panel
and the transcript show each offered candidate's."""

from __future__ import annotations

BAR_CELLS = 6
"""Cells in a bar: short enough that the title still fits beside it at 80 columns."""
EIGHTHS = " ▏▎▍▌▋▊▉"
"""A cell filled by eighths, from none to seven (a full cell is ``█``)."""


def score_bar(score: float, cells: int = BAR_CELLS) -> str:
    """``score`` (0 to 1; outside it, the nearer end) as ``cells`` cells filled by eighths, padded with spaces."""
    eighths = round(min(1.0, max(0.0, score)) * cells * 8)
    full, part = divmod(eighths, 8)
    bar = "█" * full + (EIGHTHS[part] if part else "")
    return bar.ljust(cells)


def scored(score: float | None, cells: int = BAR_CELLS) -> str:
    """A candidate's bar and figure (``██████▍  0.81``); one the navigator left unscored reads ``–`` in their place."""
    if score is None:
        return "–".center(cells) + "     "
    return f"{score_bar(score, cells)} {score:4.2f}"
