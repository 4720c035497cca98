"""Play and pace: a walk advancing by itself, one step every ``pace`` seconds (demo mode).

Whether the walk on screen plays is the shown walk's (:class:`~.shown.ShownWalk`), the pace a reactive of the
screen; the screen tells the :class:`Player`, which owns the timer and calls ``tick`` at each beat until it is
stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from textual.timer import Timer

PACES = (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0)
"""The paces ``+`` and ``-`` step through, in seconds per step."""


def next_pace(pace: float, direction: int) -> float:
    """The pace one step faster (``direction`` -1) or slower (+1) than ``pace``, from :data:`PACES`."""
    nearest = min(range(len(PACES)), key=lambda i: abs(PACES[i] - pace))
    return PACES[max(0, min(len(PACES) - 1, nearest + direction))]


class SetInterval(Protocol):
    """Starts a timer on the screen (a widget's ``set_interval``)."""

    def __call__(self, interval: float, callback: Callable[[], None], *, name: str | None = ...) -> Timer: ...


class Player:
    """The timer behind play, made with ``set_interval``: :meth:`play` (re)starts it at a pace, :meth:`stop` stops
    it."""

    def __init__(self, set_interval: SetInterval, tick: Callable[[], None]) -> None:
        self.set_interval = set_interval
        self.tick = tick
        self._timer: Timer | None = None

    def play(self, pace: float) -> None:
        self.stop()
        self._timer = self.set_interval(pace, self.tick, name="play")

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
