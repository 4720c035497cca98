"""Play and pace: a walk advancing by itself, one step every ``pace`` seconds (demo mode).

The walk screen holds ``playing`` and ``pace`` as reactives; its watchers tell the :class:`Player`, which owns
the timer and calls ``tick`` at each beat until the screen stops it.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.timer import Timer
from textual.widget import Widget

PACES = (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0)
"""The paces ``+`` and ``-`` step through, in seconds per step."""


def next_pace(pace: float, direction: int) -> float:
    """The pace one step faster (``direction`` -1) or slower (+1) than ``pace``, from :data:`PACES`."""
    nearest = min(range(len(PACES)), key=lambda i: abs(PACES[i] - pace))
    return PACES[max(0, min(len(PACES) - 1, nearest + direction))]


class Player:
    """The timer behind play: :meth:`play` (re)starts it at a pace, :meth:`stop` stops it."""

    def __init__(self, owner: Widget, tick: Callable[[], None]) -> None:
        self.owner = owner
        self.tick = tick
        self._timer: Timer | None = None

    def play(self, pace: float) -> None:
        self.stop()
        self._timer = self.owner.set_interval(pace, self.tick, name="play")

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
