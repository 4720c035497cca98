"""Drawing what changed at most a few times a second, however fast it changes.

An evaluation's walks can end hundreds of times a second (a lexical navigator on a long question set), and a
``DataTable`` redraws every visible cell after any change to one of them: drawn on every change, the screen spends
its time repainting and keys wait. A :class:`Throttle` draws the first change at once, gathers the changes that come
within the next ``every`` seconds into one draw at its end (none when nothing came), and draws at once when told the
changes have settled (a run's last walk)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class _Timer(Protocol):
    def stop(self) -> None: ...


SetTimer = Callable[[float, Callable[[], None]], _Timer]
"""Starts a one-shot timer on the screen (a widget's ``set_timer``)."""


class Throttle:
    """Calls ``draw`` when :meth:`ask`\\ ed, at most once every ``every`` seconds, on timers ``set_timer`` starts.

    The first ask after a quiet spell draws at once (a single change shows without delay); the asks that come while
    the interval runs are drawn once, as it ends; an ask when ``at_once()`` holds, or :meth:`now`, draws without
    waiting (the last change of a run, which people read at once)."""

    def __init__(self, set_timer: SetTimer, draw: Callable[[], None], every: float, *,
                 at_once: Callable[[], bool] = lambda: False) -> None:
        self._set_timer = set_timer
        self._draw = draw
        self.every = every
        self._at_once = at_once
        """Whether an ask is drawn at once whatever the interval (what changes has settled: the last of a run)."""
        self._timer: _Timer | None = None
        self.pending = False
        """Whether a change was asked for and has not been drawn yet."""

    def ask(self) -> None:
        """Something changed: draw it now if the last draw is ``every`` seconds old (or ``at_once()`` holds), else
        when that time is up."""
        if self._timer is not None and self._at_once():
            self._timer.stop()
            self._timer = None
        if self._timer is not None:
            self.pending = True
            return
        self.pending = False
        self._draw()
        self._timer = self._set_timer(self.every, self._beat)

    def now(self) -> None:
        """Draw at once, whatever is pending (the interval then starts again)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.ask()

    def _beat(self) -> None:
        self._timer = None
        if self.pending:
            self.ask()
